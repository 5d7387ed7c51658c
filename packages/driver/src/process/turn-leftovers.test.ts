import { spawn } from "node:child_process";
import { readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { CliProcess } from "./cli-process.js";
import { spawnCli } from "./spawn-cli.js";
import { processGroupOf } from "./descendants.js";
import { descendantBaseline, endTurnLeftovers } from "./turn-leftovers.js";

/** Polls until `check` holds (true) or `ms` passed (false). */
async function until(check: () => boolean, ms = 20_000): Promise<boolean> {
  for (const end = Date.now() + ms; Date.now() < end; await new Promise((r) => setTimeout(r, 50))) if (check()) return true;
  return check();
}

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

// A job that keeps changing its pid: in a session of its own, once the file named second exists,
// it forks every 20 ms, the parent exiting.
const HOPPER = [
  "import os, sys, time",
  "if os.fork() > 0: os._exit(0)",
  "os.setsid()",
  "while not os.path.exists(sys.argv[2]): time.sleep(0.02)",
  "while True:",
  "    if os.fork() > 0: os._exit(0)",
  "    time.sleep(0.02)",
].join("\n");

describe("endTurnLeftovers", () => {
  it("a process without listDescendants has no baseline and nothing is ended for it", async () => {
    const proc = { pid: process.pid, liveDescendants: () => [] } as unknown as CliProcess;
    expect(await descendantBaseline(proc)).toBeUndefined();
    expect(await endTurnLeftovers(proc, new Set(), { settleMs: 0, graceMs: 0 })).toEqual([]);
  });

  it("a process about to exit with nothing left below it is listed once; one that stays up is listed until three listings in a row find nothing", async () => {
    const listings = { count: 0 };
    const proc = {
      pid: process.pid,
      listDescendants: () => {
        listings.count++;
        return Promise.resolve([]);
      },
    } as unknown as CliProcess;
    expect(await endTurnLeftovers(proc, new Set(), { settleMs: 5_000, graceMs: 1_000, exiting: true })).toEqual([]);
    expect(listings.count).toBe(1);
    listings.count = 0;
    expect(await endTurnLeftovers(proc, new Set(), { settleMs: 5_000, graceMs: 1_000 })).toEqual([]);
    expect(listings.count).toBe(3);
  });

  it.skipIf(process.platform !== "linux")(
    "a process about to exit with a leftover below it: the leftover is still ended, and reported",
    async () => {
      const marker = `leftover-exiting-${process.pid}-${Date.now()}`;
      const job = spawn(process.execPath, ["-e", "setInterval(() => {}, 1000)", marker], { stdio: "ignore", detached: true });
      try {
        expect(await until(() => naming(marker).length === 1)).toBe(true);
        const proc = { pid: process.pid, listDescendants: () => Promise.resolve(naming(marker)) } as unknown as CliProcess;
        const signalled = await endTurnLeftovers(proc, new Set(), { settleMs: 0, graceMs: 1_000, exiting: true });
        expect(signalled).toEqual([job.pid]);
        expect(await until(() => naming(marker).length === 0)).toBe(true);
      } finally {
        for (const pid of naming(marker)) process.kill(pid, "SIGKILL");
      }
    },
    30_000,
  );

  it.skipIf(process.platform !== "linux")(
    "a listing that names the CLI itself and its threads beside a leftover: the leftover is ended, the CLI is never signalled",
    async () => {
      const marker = `leftover-beside-cli-${process.pid}-${Date.now()}`;
      await using proc = await spawnCli({
        command: process.execPath,
        args: ["-e", "setInterval(() => {}, 1000)", `${marker}-cli`],
        device: "node",
        killGraceMs: 500,
      });
      const job = spawn(process.execPath, ["-e", "setInterval(() => {}, 1000)", `${marker}-job`], { stdio: "ignore", detached: true });
      try {
        expect(await until(() => naming(`${marker}-job`).length === 1)).toBe(true);
        // As a catch-up that took the CLI, or its threads (their ids answer in /proc), for leftovers would list them.
        let threads: number[] = [];
        expect(
          await until(
            () =>
              (threads = readdirSync(`/proc/${proc.pid}/task`)
                .map(Number)
                .filter((tid) => tid !== proc.pid)).length > 0,
          ),
        ).toBe(true);
        const listing = {
          pid: proc.pid,
          listDescendants: () => Promise.resolve([proc.pid, ...threads, ...naming(`${marker}-job`)]),
        } as unknown as CliProcess;
        const signalled = await endTurnLeftovers(listing, new Set(), { settleMs: 0, graceMs: 1_000 });
        expect(signalled).toEqual([job.pid]);
        expect(await until(() => naming(`${marker}-job`).length === 0)).toBe(true);
        expect(naming(`${marker}-cli`)).toEqual([proc.pid]);
      } finally {
        for (const pid of naming(`${marker}-job`)) process.kill(pid, "SIGKILL");
      }
    },
    30_000,
  );

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

  it.skipIf(process.platform !== "linux")(
    "a job that forks faster than a listing reads is found by every listing after the first (its group is stopped while the listing runs), and ended",
    async () => {
      const marker = `leftover-hopper-${process.pid}-${Date.now()}`;
      const go = join(tmpdir(), `${marker}.go`);
      spawn("python3", ["-c", HOPPER, marker, go], { stdio: "ignore" }).unref();
      try {
        expect(await until(() => naming(marker).length > 0)).toBe(true);
        let listings = 0;
        // The first listing sees the job, still waiting to hop (its pid must outlive the listing on
        // a busy host). Each later one starts the hopping and is slower than the job: it reads the
        // job's pids, waits until the job forked to a pid it did not read (for up to 3 s, as a
        // stopped job never does), and hands back those of the pids read that are still alive.
        const slowListing = async (): Promise<number[]> => {
          if (++listings === 1) {
            let seen: number[] = [];
            // Once the job has made its own session (before, it is in this process's group).
            const ours = processGroupOf(process.pid);
            await until(() => (seen = naming(marker)).length > 0 && seen.every((pid) => ![undefined, ours].includes(processGroupOf(pid))));
            return seen;
          }
          writeFileSync(go, "");
          const read = naming(marker);
          await until(() => naming(marker).some((pid) => !read.includes(pid)), 3_000);
          const live = naming(marker);
          return read.filter((pid) => live.includes(pid));
        };
        const proc = { pid: process.pid, listDescendants: slowListing } as unknown as CliProcess;
        const signalled = await endTurnLeftovers(proc, new Set(), { settleMs: 0, graceMs: 1_000 });
        expect(signalled.length).toBeGreaterThan(0);
        expect(listings).toBeGreaterThan(1);
        expect(await until(() => naming(marker).length === 0)).toBe(true);
      } finally {
        for (let round = 0; round < 20; round++) for (const pid of naming(marker)) process.kill(pid, "SIGKILL");
        rmSync(go, { force: true });
      }
    },
    60_000,
  );

  it.skipIf(process.platform !== "linux")(
    "a job that left the tree, then cleared its environment and forked, is ended by the session a process of the turn created; processes the turn did not start are left alone",
    async () => {
      const marker = `leftover-session-${process.pid}-${Date.now()}`;
      const node = process.execPath;
      const forever = `-e "setInterval(() => {}, 1000)"`;
      // The shape of the escape: a detached shell (a session of its own) leaves a subshell that waits
      // outside the tree with the tag, then clears its environment and forks the job.
      const shape = `( sleep 3; exec env -i /bin/sh -c '( exec ${node} ${forever} ${marker}-job ) & exit 0' ) & exit 0`;
      const script = `process.stdin.on("data", () => require("child_process").spawn("/bin/sh", ["-c", ${JSON.stringify(shape)}], { detached: true, stdio: "ignore" }).unref()); setInterval(() => {}, 1000);`;
      await using proc = await spawnCli({ command: node, args: ["-e", script], device: "node", killGraceMs: 500 });
      // Started by the host, after the CLI: in the host's session, and in a session of their own.
      const other = `not-the-turn-${process.pid}-${Date.now()}`;
      const foreign = [
        spawn(node, ["-e", "setInterval(() => {}, 1000)", `${other}-host`], { stdio: "ignore" }),
        spawn(node, ["-e", "setInterval(() => {}, 1000)", `${other}-own-session`], { stdio: "ignore", detached: true }),
      ];
      try {
        const baseline = await descendantBaseline(proc);
        await proc.writeText("go\n");
        // The tagged subshell and the shell it became are gone: only the untagged job is left, outside the CLI's tree.
        // (The CLI's own command line names the marker too.)
        const turn = (): number[] => naming(marker).filter((pid) => pid !== proc.pid);
        const isJob = (pid: number): boolean => {
          try {
            return readFileSync(`/proc/${pid}/cmdline`, "latin1").split("\0").includes(`${marker}-job`);
          } catch {
            return false; // ended meanwhile
          }
        };
        expect(await until(() => turn().length === 1 && isJob(turn()[0]!))).toBe(true);
        const job = turn()[0]!;
        expect(readFileSync(`/proc/${job}/environ`, "latin1")).not.toContain("ADAPTOR_PROCESS_TAG");
        await endTurnLeftovers(proc, baseline, { settleMs: 0, graceMs: 1_000 });
        expect(await until(() => turn().length === 0)).toBe(true);
        expect(naming(`${other}-host`)).toHaveLength(1);
        expect(naming(`${other}-own-session`)).toHaveLength(1);
        expect(naming(marker)).toEqual([proc.pid]); // the CLI itself stays
      } finally {
        for (const child of foreign) child.kill("SIGKILL");
        for (const pid of [...naming(marker), ...naming(other)]) process.kill(pid, "SIGKILL");
      }
    },
    60_000,
  );

  it.skipIf(process.platform !== "linux")(
    "a job without a tag that left the tree into a process group of its own in the CLI's own session is ended; the CLI and a process started since outside that session are left alone",
    async () => {
      const marker = `leftover-own-session-${process.pid}-${Date.now()}`;
      // Started with an empty environment (no tag); its parent exits at once, and once out of the
      // tree the fork moves to a process group of its own, staying in the CLI's session.
      const job = `my $parent = $$; exit if fork; select(undef, undef, undef, 0.05) while getppid() == $parent; setpgrp(0, 0); sleep 300`;
      const start = `require("child_process").spawn("/usr/bin/env", ["-i", "perl", "-e", ${JSON.stringify(job)}, "${marker}-job"], { stdio: "ignore" })`;
      const script = `process.stdin.on("data", () => ${start}); setInterval(() => {}, 1000);`;
      await using proc = await spawnCli({ command: process.execPath, args: ["-e", script], device: "node", killGraceMs: 500 });
      const other = spawn(process.execPath, ["-e", "setInterval(() => {}, 1000)", `${marker}-other`], { stdio: "ignore", detached: true });
      try {
        const baseline = await descendantBaseline(proc);
        await proc.writeText("go\n");
        // (The CLI's own command line names the job's marker too.)
        const jobs = (): number[] => naming(`${marker}-job`).filter((pid) => pid !== proc.pid);
        expect(await until(() => jobs().length === 1 && processGroupOf(jobs()[0]!) === jobs()[0])).toBe(true);
        const stat = readFileSync(`/proc/${jobs()[0]!}/stat`, "latin1");
        const [, ppid, , sid] = stat
          .slice(stat.lastIndexOf(")") + 2)
          .split(" ")
          .map(Number);
        expect(sid).toBe(proc.pid);
        expect(ppid).not.toBe(proc.pid);
        await endTurnLeftovers(proc, baseline, { settleMs: 0, graceMs: 1_000 });
        expect(await until(() => jobs().length === 0)).toBe(true);
        expect(naming(`${marker}-other`)).toEqual([other.pid]);
        expect(naming(marker).filter((pid) => pid !== other.pid)).toEqual([proc.pid]); // the CLI itself stays
      } finally {
        other.kill("SIGKILL");
        for (const pid of naming(marker)) process.kill(pid, "SIGKILL");
      }
    },
    60_000,
  );
});
