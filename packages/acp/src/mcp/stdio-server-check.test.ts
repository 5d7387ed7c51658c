import { spawn, type ChildProcess } from "node:child_process";
import { afterEach, describe, expect, it } from "vitest";
import { mcpStdio } from "@adaptor/mcp";
import { MCP_SERVER_NAME_VAR, stdioServersNotRunning } from "./stdio-server-check.js";

let started: ChildProcess | undefined;
afterEach(() => {
  started?.kill("SIGKILL");
  started = undefined;
});

const server = (name: string) => mcpStdio(name, process.execPath, { args: ["-e", "process.stdin.resume()"] });

describe.runIf(process.platform === "linux")("stdioServersNotRunning", () => {
  it("a server whose process still reads an empty environment (mid-exec) is looked at again and found", async () => {
    // A shell started with no environment at all (its /proc environ reads empty, as a process in the
    // middle of an execve does) becomes the server, tagged, a moment later. The shell exports PWD
    // unless told not to: unset, so `env` too reads empty until it hands over to the server.
    started = spawn(
      "/bin/sh",
      ["-c", `sleep 0.2; unset PWD; exec /usr/bin/env ${MCP_SERVER_NAME_VAR}=fx "$0" -e "setInterval(() => {}, 1000)"`, process.execPath],
      {
        stdio: "ignore",
        env: {},
      },
    );
    const pid = started.pid!;
    const missing = await stdioServersNotRunning({ listDescendants: async () => [pid] }, [server("fx")]);
    expect(missing).toEqual([]);
  });

  it("a server no process is, beside processes with an environment, is missing at once", async () => {
    started = spawn(process.execPath, ["-e", "setInterval(() => {}, 1000)"], { stdio: "ignore" });
    const pid = started.pid!;
    const missing = await stdioServersNotRunning({ listDescendants: async () => [pid] }, [server("fx")]);
    expect(missing?.map((s) => s.name)).toEqual(["fx"]);
  });

  it("undefined where the agent's processes cannot be listed", async () => {
    expect(await stdioServersNotRunning({}, [server("fx")])).toBeUndefined();
  });
});
