import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { isolateStdioServer } from "./stdio-server-env.js";

const node = process.execPath;
const printEnv = ["-e", "console.log(JSON.stringify(process.env))"];

/** Runs the isolated command line the way a CLI would: its own environment, the server's declared env over it. */
function runAsCli(
  line: { command: string; args: string[] },
  cliEnv: Record<string, string>,
  declared: Record<string, string> = {},
): Record<string, string> {
  return JSON.parse(execFileSync(line.command, line.args, { env: { ...cliEnv, ...declared }, encoding: "utf8" })) as Record<string, string>;
}

const cliEnv = { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: "/home/u", ANTHROPIC_API_KEY: "cli-key", HOST_SECRET: "s3cr3t" };

describe("isolateStdioServer", () => {
  it.skipIf(process.platform === "win32")(
    "stdio MCP server env leak: the server sees its declared env and the safe base, not the CLI's secrets",
    () => {
      const declared = { ROOT: "/srv", TOKEN: "declared" };
      const env = runAsCli(isolateStdioServer({ command: node, args: printEnv, env: declared }, cliEnv), cliEnv, declared);
      expect(env).toMatchObject({ PATH: cliEnv.PATH, HOME: "/home/u", ROOT: "/srv", TOKEN: "declared" });
      expect(env.ANTHROPIC_API_KEY).toBeUndefined();
      expect(env.HOST_SECRET).toBeUndefined();
    },
  );

  it.skipIf(process.platform === "win32")(
    "a declaration that asks for named variables gets those in addition to the safe base (PATH, HOME), and inheritEnv: true the whole CLI env",
    () => {
      const named = runAsCli(isolateStdioServer({ command: node, args: printEnv, inheritEnv: ["HOST_*"] }, cliEnv), cliEnv);
      expect(named).toMatchObject({ HOST_SECRET: "s3cr3t", PATH: cliEnv.PATH, HOME: "/home/u" });
      expect(named.ANTHROPIC_API_KEY).toBeUndefined();
      const none = runAsCli(isolateStdioServer({ command: node, args: printEnv, inheritEnv: false }, cliEnv), cliEnv);
      expect(none.PATH).toBeUndefined();
      expect(isolateStdioServer({ command: node, args: printEnv, inheritEnv: true }, cliEnv)).toEqual({ command: node, args: printEnv });
    },
  );

  it.skipIf(process.platform === "win32")("stdio MCP server found only via PATH starts when inheritEnv lists other names", () => {
    const bin = mkdtempSync(join(tmpdir(), "stdio-path-"));
    try {
      writeFileSync(join(bin, "path-only-server"), `#!/bin/sh\nexec "${node}" -e 'console.log("started")'\n`, { mode: 0o755 });
      const env = { ...cliEnv, PATH: `${bin}:${cliEnv.PATH}` };
      const line = isolateStdioServer({ command: "path-only-server", inheritEnv: ["AWS_*"] }, env);
      expect(execFileSync(line.command, line.args, { env, encoding: "utf8" }).trim()).toBe("started");
    } finally {
      rmSync(bin, { recursive: true, force: true });
    }
  });

  it("puts only variable names on the command line, never values", () => {
    const line = isolateStdioServer({ command: "srv", args: ["--x"], env: { TOKEN: "declared-value" } }, cliEnv);
    expect(line.command).toBe("/usr/bin/env");
    expect(line.args).toEqual(["-u", "ANTHROPIC_API_KEY", "-u", "HOST_SECRET", "--", "srv", "--x"]);
    expect(line.args.join(" ")).not.toContain("s3cr3t");
  });

  it.skipIf(process.platform === "win32")("a command containing '=' still runs as the command, not as an assignment", () => {
    const line = isolateStdioServer({ command: node, args: ["-e", "console.log('ran')"] }, cliEnv);
    expect(execFileSync(line.command, line.args, { env: cliEnv, encoding: "utf8" }).trim()).toBe("ran");
    const withEquals = isolateStdioServer({ command: "./a=b", args: [] }, {});
    expect(withEquals.args).toEqual(["/bin/sh", "-c", 'exec "$0" "$@"', "./a=b"]);
  });
});
