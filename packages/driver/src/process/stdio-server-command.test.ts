import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { DriverError, ErrCode } from "@adaptor/errors";
import type { McpServerConfig } from "../spi/mcp-server.js";
import { checkStdioServerCommands, withStdioCommandProblems } from "./stdio-server-command.js";

const dir = mkdtempSync(join(tmpdir(), "stdio-command-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
writeFileSync(join(dir, "only-here-mcp"), "#!/bin/sh\nexit 0\n", { mode: 0o755 });
writeFileSync(join(dir, "not-executable"), "", { mode: 0o644 });

const stdio = (name: string, command: string, more: Partial<Extract<McpServerConfig, { transport: "stdio" }>> = {}): McpServerConfig => ({
  name,
  transport: "stdio",
  command,
  ...more,
});
const cliEnv = { PATH: `/usr/bin:/bin:${dir}` };

describe("checkStdioServerCommands", () => {
  it.skipIf(process.platform === "win32")(
    "a missing command is named by server (a path, or a name on the PATH the server gets); found ones, http servers and unknown PATHs are not",
    async () => {
      const problems = await checkStdioServerCommands(
        [
          stdio("ghost", "/nonexistent/mcp-server-xyz"),
          stdio("unlisted", "no-such-mcp-server-xyz"),
          stdio("onpath", "only-here-mcp"),
          // Its declared PATH is the one it gets: the CLI's does not count.
          stdio("declared", "only-here-mcp", { env: { PATH: "/usr/bin:/bin" } }),
          stdio("relative", "./only-here-mcp"),
          stdio("plain", "not-executable", { env: { PATH: dir } }),
          // Its environment loses PATH: not checked.
          stdio("bare", "no-such-mcp-server-xyz", { inheritEnv: false }),
          { name: "web", transport: "http", url: "http://127.0.0.1:9/mcp" },
        ],
        cliEnv,
        dir,
      );
      expect(Object.fromEntries(problems)).toEqual({
        ghost: "command not found: /nonexistent/mcp-server-xyz",
        unlisted: "command not found: no-such-mcp-server-xyz",
        declared: "command not found: only-here-mcp",
        plain: expect.stringMatching(/^command cannot be started: not-executable \(/) as unknown,
      });
    },
  );

  it.skipIf(process.platform === "win32")(
    "an empty PATH entry is the working directory, as env's execvp reads it: a required server whose command is found there is not refused",
    async () => {
      for (const PATH of ["/usr/bin:/bin:", "/usr/bin::/bin", ""]) {
        // The wrapper the CLI starts finds it there.
        const started = spawnSync("/usr/bin/env", ["--", "only-here-mcp"], { cwd: dir, env: { PATH } });
        expect(started.error).toBeUndefined();
        expect(started.status).toBe(0);
        await expect(
          checkStdioServerCommands([stdio("cwd", "only-here-mcp", { required: true, env: { PATH } })], cliEnv, dir),
        ).resolves.toEqual(new Map());
      }
      // Elsewhere it is still missing.
      const problems = await checkStdioServerCommands([stdio("cwd", "only-here-mcp", { env: { PATH: "/usr/bin:" } })], cliEnv, tmpdir());
      expect(Object.fromEntries(problems)).toEqual({ cwd: "command not found: only-here-mcp" });
    },
  );

  it("a required server whose command is missing refuses the run: DriverError DEVICE_DISCONNECTED, op mcp connect, the reason as cause", async () => {
    const error = await checkStdioServerCommands([stdio("ghost", "/nonexistent/mcp-server-xyz", { required: true })], cliEnv, dir).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(DriverError);
    expect(error).toMatchObject({ code: ErrCode.DeviceDisconnected, op: "mcp connect", device: "ghost" });
    expect((error as Error).message).toBe("[DEVICE_DISCONNECTED] mcp connect: ghost (command not found: /nonexistent/mcp-server-xyz)");
  });

  it("withStdioCommandProblems: the reason replaces the CLI's error of a server not connected, nothing else", () => {
    const problems = new Map([["ghost", "command not found: x"]]);
    expect(
      withStdioCommandProblems(
        [
          { name: "ghost", status: "failed", cliStatus: "failed", error: "Connection closed" },
          { name: "other", status: "failed", error: "Connection closed" },
        ],
        problems,
      ),
    ).toEqual([
      { name: "ghost", status: "failed", cliStatus: "failed", error: "command not found: x" },
      { name: "other", status: "failed", error: "Connection closed" },
    ]);
  });
});
