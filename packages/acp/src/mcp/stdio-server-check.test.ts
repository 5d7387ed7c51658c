import { spawn, type ChildProcess } from "node:child_process";
import { readFileSync } from "node:fs";
import { setTimeout as sleep } from "node:timers/promises";
import { afterEach, describe, expect, it } from "vitest";
import { mcpStdio } from "@adaptor/mcp";
import { MCP_SERVER_NAME_VAR, stdioServersNotRunning } from "./stdio-server-check.js";

let started: ChildProcess | undefined;
/** A process `started` forked, ended with it. */
let forked: number | undefined;
afterEach(() => {
  started?.kill("SIGKILL");
  if (forked !== undefined) process.kill(forked, "SIGKILL");
  started = forked = undefined;
});

/** The first child of `pid`, once it has one. */
async function childOf(pid: number): Promise<number> {
  for (;;) {
    const [child] = readFileSync(`/proc/${pid}/task/${pid}/children`, "utf8").trim().split(" ").filter(Boolean).map(Number);
    if (child !== undefined) return child;
    await sleep(10);
  }
}

/** The children of `pid` now. */
function childrenOf(pid: number): number[] {
  try {
    return readFileSync(`/proc/${pid}/task/${pid}/children`, "utf8").trim().split(" ").filter(Boolean).map(Number);
  } catch {
    return [];
  }
}

/** Every process below `pid` now. */
function descendantsOf(pid: number): number[] {
  return childrenOf(pid).flatMap((child) => [child, ...descendantsOf(child)]);
}

const server = (name: string) => mcpStdio(name, process.execPath, { args: ["-e", "process.stdin.resume()"] });

describe.runIf(process.platform === "linux")("stdioServersNotRunning", () => {
  it("a server whose process still reads an empty environment (mid-exec) is looked at again and found", async () => {
    // A shell started with no environment at all (its /proc environ reads empty, as a process in the
    // middle of an execve does) becomes the server, tagged, a moment later. The shell exports PWD:
    // `env`, for the moment it runs, reads PWD alone (a launcher naming the tag).
    started = spawn(
      "/bin/sh",
      ["-c", `sleep 0.2; exec /usr/bin/env ${MCP_SERVER_NAME_VAR}=fx "$0" -e "setInterval(() => {}, 1000)"`, process.execPath],
      {
        stdio: "ignore",
        env: {},
      },
    );
    const pid = started.pid!;
    const missing = await stdioServersNotRunning({ listDescendants: async () => [pid] }, [server("fx")]);
    expect(missing).toEqual([]);
  });

  it("a shell with an environment of its own (PWD) that starts the server through `env` is waited for, and the server found", async () => {
    // The shell reads PWD alone, without the tag, until it hands over: its command line names the tag.
    started = spawn(
      "/bin/sh",
      ["-c", `sleep 0.5; exec /usr/bin/env ${MCP_SERVER_NAME_VAR}=fx "$0" -e "setInterval(() => {}, 1000)"`, process.execPath],
      { stdio: "ignore", env: { PWD: "/" } },
    );
    const pid = started.pid!;
    const missing = await stdioServersNotRunning({ listDescendants: async () => [pid] }, [server("fx")]);
    expect(missing).toEqual([]);
  });

  it("a fork whose exec is not done yet (the parent's command line, the parent's environment) is waited for, and the server found", async () => {
    // A subshell, forked, reads its parent's environment and command line (neither names the tag)
    // until it execs the server through `env`.
    started = spawn(
      "/bin/sh",
      ["-c", `(sleep 0.5; exec /usr/bin/env "$T" "$0" -e "setInterval(() => {}, 1000)") & wait`, process.execPath],
      { stdio: "ignore", env: { PWD: "/", T: `${MCP_SERVER_NAME_VAR}=fx` } },
    );
    const pid = started.pid!;
    const fork = (forked = await childOf(pid));
    const missing = await stdioServersNotRunning({ listDescendants: async () => [pid, fork] }, [server("fx")]);
    expect(missing).toEqual([]);
  });

  it("a launcher that starts the server as a new process after the agent's processes were listed: they are listed again, and the server found", async () => {
    // The shell names the tag on its command line and, after a moment, forks `env` (no exec): the
    // server is a process that did not exist when the check began.
    started = spawn(
      "/bin/sh",
      ["-c", `sleep 0.5; /usr/bin/env ${MCP_SERVER_NAME_VAR}=fx "$0" -e "setInterval(() => {}, 1000)"; true`, process.execPath],
      { stdio: "ignore", env: { PWD: "/" } },
    );
    const pid = started.pid!;
    const missing = await stdioServersNotRunning({ listDescendants: async () => [pid, ...descendantsOf(pid)] }, [server("fx")]);
    forked = childrenOf(pid).find((child) => readFileSync(`/proc/${child}/cmdline`, "utf8").includes("setInterval"));
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
