import { spawn } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import type { CliProcess } from "./cli-process.js";
import { endTurnLeftovers } from "./turn-leftovers.js";

/** Pids of live processes whose command line names `marker`. */
function naming(marker: string): number[] {
  const pids: number[] = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, "utf8");
      if (readFileSync(`/proc/${name}/cmdline`, "utf8").includes(marker) && !/\) [ZX] /.test(stat)) pids.push(Number(name));
    } catch {
      // ended meanwhile
    }
  }
  return pids;
}

// A background job in a session of its own: its leader forks a listed member ("<marker>-seen")
// and an unlisted one ("<marker>-unseen"), as a job that forked since the last listing has.
const JOB = [
  "import os, sys, time",
  "m = sys.argv[1]",
  "if os.fork() > 0: os._exit(0)",
  "os.setsid()",
  "for tag in ('seen', 'unseen'):",
  "    if os.fork() == 0:",
  "        os.execvp('python3', ['python3', '-c', 'import time; time.sleep(30)', m + '-' + tag])",
  "time.sleep(30)",
].join("\n");

describe("endTurnLeftovers", () => {
  it.skipIf(process.platform !== "linux")(
    "a leftover in a process group of its own making is ended with its whole group, a member no listing saw included",
    async () => {
      const marker = `leftover-group-${process.pid}-${Date.now()}`;
      spawn("python3", ["-c", JOB, marker], { stdio: "ignore" }).unref();
      try {
        for (const end = Date.now() + 10_000; naming(`${marker}-unseen`).length === 0 || naming(`${marker}-seen`).length === 0;) {
          if (Date.now() > end) throw new Error("the job did not start");
          await new Promise((r) => setTimeout(r, 50));
        }
        // The turn's process sees only the "seen" member (its listing missed the other).
        const proc = { pid: process.pid, listDescendants: () => Promise.resolve(naming(`${marker}-seen`)) } as unknown as CliProcess;
        const signalled = await endTurnLeftovers(proc, new Set(), { settleMs: 0, graceMs: 1_000 });
        expect(signalled).toHaveLength(1);
        for (const end = Date.now() + 10_000; naming(marker).length > 0 && Date.now() < end;) await new Promise((r) => setTimeout(r, 50));
        expect(naming(marker)).toEqual([]);
      } finally {
        for (const pid of naming(marker)) process.kill(pid, "SIGKILL");
      }
    },
    30_000,
  );
});
