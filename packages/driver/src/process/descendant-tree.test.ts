import { spawn } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { createInterface } from "node:readline";
import { describe, expect, it, vi } from "vitest";
import {
  AHEAD_FRESH_MS,
  aheadReads,
  DescendantTracker,
  forceDeepBatchStrategy,
  PROCESS_TAG_VAR,
  observeCandidateStatReads,
  inWindow,
  orphanReads,
  lastPid,
  observeEnvironReads,
  ownedCliPids,
  observeProcessScans,
  readOrphansAhead,
  refreshDeepSoon,
  unwatchDescendants,
  pollStrategy,
  refreshAllTrackers,
  releaseDescendants,
  startedIn,
  watchDescendants,
} from "./descendants.js";

// The periodic refresh walks the CLI's tree through the children lists in /proc instead of reading
// the stat of every process on the host; it must find exactly what the full scan finds.

const node = process.execPath;

/** A CLI stand-in: a child, a grandchild in its own session (setsid), and a great-grandchild; prints their pids. */
const TREE = `
const { spawn } = require("child_process");
const forever = ["-e", "setInterval(() => {}, 1000)"];
const script = 'const { spawn } = require("child_process"); const g = spawn(process.execPath, ' + JSON.stringify(forever) + ', { stdio: "ignore" }); console.log(g.pid); setInterval(() => {}, 1000);';
const child = spawn(process.execPath, forever, { stdio: "ignore" });
const detached = spawn(process.execPath, ["-e", script], { detached: true, stdio: ["ignore", "pipe", "ignore"] });
detached.stdout.once("data", (d) => console.log(JSON.stringify([child.pid, detached.pid, Number(String(d).trim())])));
setInterval(() => {}, 1000);
`;

/** A tagged CLI stand-in: a child, and a background job whose shell (in its own session) exited at once; prints their pids. */
const TAGGED = `
const { spawn } = require("child_process");
const child = spawn(process.execPath, ["-e", "setInterval(() => {}, 1000)"], { stdio: "ignore" });
const job = JSON.stringify(process.execPath) + ' -e "setInterval(() => {}, 1000)" >/dev/null 2>&1 & echo $!';
const shell = spawn("/bin/sh", ["-c", job], { detached: true, stdio: ["ignore", "pipe", "ignore"] });
let out = "";
shell.stdout.on("data", (d) => (out += d));
shell.on("exit", () => console.log(JSON.stringify([child.pid, Number(out.trim())])));
setInterval(() => {}, 1000);
`;

/**
 * A CLI stand-in that starts a child at once, then for every line on its stdin a child that starts a
 * grandchild in its own session (setsid); prints the pids it started, as one JSON array a line.
 */
const GROWING = `
const { spawn } = require("child_process");
const forever = ["-e", "setInterval(() => {}, 1000)"];
const script = 'const { spawn } = require("child_process"); const g = spawn(process.execPath, ' + JSON.stringify(forever) + ', { stdio: "ignore" }); console.log(g.pid); setInterval(() => {}, 1000);';
const first = spawn(process.execPath, forever, { stdio: "ignore" });
console.log(JSON.stringify([first.pid]));
require("readline").createInterface({ input: process.stdin }).on("line", () => {
  const child = spawn(process.execPath, ["-e", script], { detached: true, stdio: ["ignore", "pipe", "ignore"] });
  child.stdout.once("data", (d) => console.log(JSON.stringify([child.pid, Number(String(d).trim())])));
});
setInterval(() => {}, 1000);
`;

/**
 * A tagged CLI stand-in with a shell in its own session (setsid); on a line on its stdin the shell
 * starts a job with an empty environment (no tag) in that session and exits. Prints the shell's
 * pid, then the job's, each as a JSON array a line.
 */
const SESSION_JOB = `
const { spawn } = require("child_process");
const job = 'read x; env -i ' + JSON.stringify(process.execPath) + ' -e "setInterval(() => {}, 1000)" >/dev/null 2>&1 & echo $!';
const shell = spawn("/bin/sh", ["-c", job], { detached: true, stdio: ["pipe", "pipe", "ignore"] });
console.log(JSON.stringify([shell.pid]));
let out = "";
shell.stdout.on("data", (d) => (out += d));
shell.on("exit", () => console.log(JSON.stringify([Number(out.trim())])));
process.stdin.on("data", () => shell.stdin.write("go\\n"));
setInterval(() => {}, 1000);
`;

/**
 * A background job's shell: waits until SIGUSR1, then `exec`s node with an empty environment (the
 * same process, its tag dropped). `$0` is node's path.
 */
const TAG_DROPPING_JOB = `trap 'exec env -i "$0" -e "setInterval(() => {}, 1000)"' USR1; while :; do sleep 1000 & wait $!; done`;

/**
 * A tagged CLI stand-in whose helper in its own session (setsid) starts {@link TAG_DROPPING_JOB} and
 * exits, so that the job is an orphan; prints the helper's pid (the job's session and group) and
 * the job's, as one JSON array.
 */
const TAG_DROPPER = `
const { spawn } = require("child_process");
const helper = 'const job = require("child_process").spawn("/bin/sh", ["-c", ' + JSON.stringify(${JSON.stringify(TAG_DROPPING_JOB)}) + ', process.execPath], { stdio: "ignore" }); console.log(job.pid); process.exit(0);';
const started = spawn(process.execPath, ["-e", helper], { detached: true, stdio: ["ignore", "pipe", "ignore"] });
started.stdout.once("data", (d) => console.log(JSON.stringify([started.pid, Number(String(d).trim())])));
setInterval(() => {}, 1000);
`;

/**
 * The leader of a session of its own (to be started detached): prints 0 once ready, then for each
 * line on its stdin starts a helper in its session that starts a job and exits (the job an orphan
 * in that session), and prints the job's pid.
 */
const OLD_SESSION = `
const { spawn } = require("child_process");
const helper = 'const job = require("child_process").spawn(process.execPath, ["-e", "setInterval(() => {}, 1000)"], { stdio: "ignore" }); console.log(job.pid); process.exit(0);';
console.log(0);
process.stdin.on("data", () => {
  const started = spawn(process.execPath, ["-e", helper], { stdio: ["ignore", "pipe", "ignore"] });
  started.stdout.once("data", (d) => console.log(String(d).trim()));
});
setInterval(() => {}, 1000);
`;

/** Starts a child for each line on its stdin and prints its pid (0 once ready). */
const FORKER = `
console.log(0);
process.stdin.on("data", () => console.log(require("child_process").spawn(process.execPath, ["-e", "setInterval(() => {}, 1000)"], { stdio: "ignore" }).pid));
setInterval(() => {}, 1000);
`;

/** The start time of `pid` in clock ticks since boot (field 22 of its stat). */
const startOf = (pid: number): number => Number(readFileSync(`/proc/${pid}/stat`, "latin1").split(") ")[1]!.split(" ")[19]);

/** Clock ticks since boot now (100 a second). */
const ticksNow = (): number => Math.floor(Number(readFileSync("/proc/uptime", "latin1").split(" ")[0]) * 100);

/** Two tagged CLI stand-ins ({@link TAGGED}), each with its tag and the pids it prints; trackers and pids filled by {@link watchAll}. */
function twoTaggedClis(prefix: string) {
  const clis = [0, 1].map((i) => taggedCli(`${prefix}-${i}`));
  return { clis, trackers: [] as DescendantTracker[], all: [] as number[] };
}

/** A tagged CLI stand-in ({@link TAGGED}) with its tag and the pids it prints. */
function taggedCli(prefix: string) {
  const tag = `${prefix}-${process.pid}-${Date.now()}`;
  const cli = spawn(node, ["-e", TAGGED], { stdio: ["ignore", "pipe", "ignore"], env: { ...process.env, [PROCESS_TAG_VAR]: tag } });
  const pids = new Promise<number[]>((resolve) => cli.stdout.once("data", (d) => resolve(JSON.parse(String(d)) as number[])));
  return { cli, tag, pids };
}

/** Waits for each CLI's pids (into `all`) and watches a tracker of it (into `trackers`). */
async function watchAll(clis: ReturnType<typeof twoTaggedClis>["clis"], trackers: DescendantTracker[], all: number[]): Promise<void> {
  all.push(...clis.map(({ cli }) => cli.pid!));
  for (const { cli, tag, pids } of clis) {
    all.push(...(await pids));
    const tracker = new DescendantTracker(cli.pid!, tag);
    watchDescendants(tracker);
    trackers.push(tracker);
  }
}

/** SIGKILLs every one of `pids` still there. */
function killAll(pids: readonly number[]): void {
  for (const pid of pids) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // gone
    }
  }
}

const hasChildrenLists = (() => {
  try {
    readFileSync(`/proc/${process.pid}/task/${process.pid}/children`);
    return true;
  } catch {
    return false;
  }
})();

describe.skipIf(process.platform !== "linux" || !hasChildrenLists)("descendant tree walk", () => {
  it("refreshTree finds the same descendants as the full /proc scan, however deep and in whatever session", async () => {
    const cli = spawn(node, ["-e", TREE], { stdio: ["ignore", "pipe", "ignore"], detached: true });
    let pids: number[] = [];
    try {
      pids = await new Promise<number[]>((resolve) => cli.stdout.once("data", (d) => resolve(JSON.parse(String(d)) as number[])));
      const walked = new DescendantTracker(cli.pid!);
      const scanned = new DescendantTracker(cli.pid!);
      expect(walked.refreshTree()).toBe(true);
      scanned.refresh();
      expect(walked.pids.sort()).toEqual([...pids].sort());
      expect(scanned.pids.sort()).toEqual([...pids].sort());
      // A remembered process that ended is forgotten by the walk too.
      process.kill(pids[0]!, "SIGKILL");
      for (const end = Date.now() + 10_000; Date.now() < end; await new Promise((r) => setTimeout(r, 50))) {
        walked.refreshTree();
        if (!walked.pids.includes(pids[0]!)) break;
      }
      expect(walked.pids.sort()).toEqual(pids.slice(1).sort());
    } finally {
      killAll([cli.pid!, ...pids]);
    }
  }, 30_000);

  it("refreshDeepTree (reading only the main thread's children list of this process and of each ancestor) finds the same descendants as the deep /proc scan, a tagged orphan whose shell exited included", async () => {
    const tag = "deep-tree-" + String(process.pid) + "-" + String(Date.now());
    const cli = spawn(node, ["-e", TAGGED], { stdio: ["ignore", "pipe", "ignore"], env: { ...process.env, [PROCESS_TAG_VAR]: tag } });
    let pids: number[] = [];
    try {
      pids = await new Promise<number[]>((resolve) => cli.stdout.once("data", (d) => resolve(JSON.parse(String(d)) as number[])));
      const walked = new DescendantTracker(cli.pid!, tag);
      const scanned = new DescendantTracker(cli.pid!, tag);
      expect(walked.refreshDeepTree()).toBe(true);
      scanned.refresh(undefined, true);
      expect(scanned.pids.sort()).toEqual([...pids].sort());
      expect(walked.pids.sort()).toEqual([...pids].sort());
    } finally {
      killAll([cli.pid!, ...pids]);
    }
  }, 30_000);

  it("with other CLIs of this host watched at once (their stat and environment skipped), each deep tree walk finds what its deep scan finds", async () => {
    const { clis, trackers, all } = twoTaggedClis("deep-tree");
    try {
      await watchAll(clis, trackers, all);
      for (const [i, { cli, tag, pids }] of clis.entries()) {
        const scanned = new DescendantTracker(cli.pid!, tag);
        scanned.refresh(undefined, true);
        expect(trackers[i]!.refreshDeepTree()).toBe(true);
        expect(trackers[i]!.pids.sort()).toEqual((await pids).sort());
        expect(scanned.pids.sort()).toEqual((await pids).sort());
      }
    } finally {
      for (const tracker of trackers) releaseDescendants(tracker);
      killAll(all);
    }
  }, 30_000);

  it("a deep walk finds a job that left the tree without its tag, in a session a process of the CLI created, from where orphans are handed, reading no stat of every process", async () => {
    const tag = `session-job-${process.pid}-${Date.now()}`;
    const cli = spawn(node, ["-e", SESSION_JOB], { stdio: ["pipe", "pipe", "ignore"], env: { ...process.env, [PROCESS_TAG_VAR]: tag } });
    const lines = createInterface({ input: cli.stdout! })[Symbol.asyncIterator]();
    const next = async (): Promise<number> => (JSON.parse(String((await lines.next()).value)) as number[])[0]!;
    const all: number[] = [cli.pid!];
    try {
      const shell = await next();
      all.push(shell);
      // Not watched: no poll sees the job while it is in the tree.
      const tracker = new DescendantTracker(cli.pid!, tag);
      expect(tracker.refreshTree()).toBe(true);
      expect(tracker.pids).toEqual([shell]);
      cli.stdin!.write("go\n");
      const job = await next();
      all.push(job);
      // `$!` is the shell's fork: until `env -i` has executed node it still holds the shell's (tagged)
      // environment, and `env`'s own command line names node's arguments too: wait for node to be the program run.
      const program = (): string | undefined => readFileSync(`/proc/${job}/cmdline`, "latin1").split("\0")[0];
      for (const end = Date.now() + 20_000; Date.now() < end && program() !== node;) {
        await new Promise((r) => setTimeout(r, 50));
      }
      expect(readFileSync(`/proc/${job}/environ`, "latin1")).not.toContain(PROCESS_TAG_VAR);
      let scans = 0;
      observeProcessScans(() => scans++);
      try {
        expect(tracker.refreshDeepTree()).toBe(true);
      } finally {
        observeProcessScans(undefined);
      }
      expect(tracker.pids).toEqual([job]);
      expect(scans).toBe(0);
    } finally {
      killAll(all);
    }
  }, 30_000);

  it("a read of where orphans are handed takes the stat of a candidate whose pid was not handed out since the last read from that read, and still finds a tagged orphan started since", async () => {
    // Trackers not watched: no poll reads the candidates between the walks.
    const first = taggedCli("cached-candidates");
    const all: number[] = [first.cli.pid!];
    try {
      // Every pid the CLI printed is ended after the test: its child outlives a SIGKILL of the CLI.
      const [child, orphan] = await first.pids;
      all.push(child!, orphan!);
      const tracker = new DescendantTracker(first.cli.pid!, first.tag);
      expect(tracker.refreshDeepTree()).toBe(true);
      expect(tracker.pids).toContain(orphan);
      // The orphan (a child of pid 1 or of an ancestor, so a candidate) was read when its pid was new.
      const reads: number[] = [];
      observeCandidateStatReads((pid) => reads.push(pid));
      expect(tracker.refreshDeepTree()).toBe(true);
      expect(reads).not.toContain(orphan);
      expect(tracker.pids).toContain(orphan);
      // A tagged orphan started since: its pid was handed out after the last read, so it is read.
      const second = taggedCli("cached-candidates-later");
      all.push(second.cli.pid!);
      const later = await second.pids;
      all.push(...later);
      const laterTracker = new DescendantTracker(second.cli.pid!, second.tag);
      reads.length = 0;
      expect(laterTracker.refreshDeepTree()).toBe(true);
      expect(reads).toContain(later[1]);
      const scanned = new DescendantTracker(second.cli.pid!, second.tag);
      scanned.refresh(undefined, true);
      expect(laterTracker.pids.sort()).toEqual([...later].sort());
      expect(scanned.pids.sort()).toEqual([...later].sort());
    } finally {
      observeCandidateStatReads(undefined);
      killAll(all);
    }
  }, 30_000);

  it("an orphan read as tagged is adopted by a later deep walk after it dropped its tag (exec with an empty environment): its environment is read once while it stays a candidate", async () => {
    const tag = `tag-dropper-${process.pid}-${Date.now()}`;
    const cli = spawn(node, ["-e", TAG_DROPPER], { stdio: ["ignore", "pipe", "ignore"], env: { ...process.env, [PROCESS_TAG_VAR]: tag } });
    const [group, job] = await new Promise<number[]>((resolve) =>
      cli.stdout.once("data", (d) => resolve(JSON.parse(String(d)) as number[])),
    );
    const reads: number[] = [];
    try {
      const stat = (): string[] => readFileSync(`/proc/${job}/stat`, "latin1").split(") ")[1]!.split(" ");
      // An orphan once its helper exited: handed to an ancestor of this process, where orphans are looked for.
      for (const end = Date.now() + 20_000; Date.now() < end && stat()[1] === String(group);) await new Promise((r) => setTimeout(r, 50));
      expect(stat()[1]).not.toBe(String(group));
      // Not watched: no poll reads the candidates between the walks.
      const seen = new DescendantTracker(cli.pid!, tag);
      expect(seen.refreshDeepTree()).toBe(true);
      expect(seen.pids).toContain(job);
      process.kill(job!, "SIGUSR1");
      // The shell's own command line names the program too: wait for node to be the program run.
      const program = (): string | undefined => readFileSync(`/proc/${job}/cmdline`, "latin1").split("\0")[0];
      for (const end = Date.now() + 20_000; Date.now() < end && program() !== node;) {
        await new Promise((r) => setTimeout(r, 50));
      }
      expect(readFileSync(`/proc/${job}/environ`, "latin1")).not.toContain(PROCESS_TAG_VAR);
      observeEnvironReads((pid) => reads.push(pid));
      const later = new DescendantTracker(cli.pid!, tag);
      expect(later.refreshDeepTree()).toBe(true);
      expect(reads).not.toContain(job);
      expect(later.pids).toContain(job);
    } finally {
      observeEnvironReads(undefined);
      try {
        process.kill(-group!, "SIGKILL");
      } catch {
        // gone
      }
      killAll([cli.pid!, job!]);
    }
  }, 30_000);

  it("a read of where orphans are handed reads no stat of a candidate that was a zombie at the last read, its pid not handed out since", () => {
    // A child of this process that exited: a zombie until this process's event loop reaps it.
    const child = spawn("/bin/sh", ["-c", "exit 0"], { stdio: "ignore" });
    const zombie = child.pid!;
    const state = (): string | undefined => {
      try {
        return readFileSync(`/proc/${zombie}/stat`, "latin1").split(") ")[1]!.split(" ")[0];
      } catch {
        return undefined;
      }
    };
    const pause = new Int32Array(new SharedArrayBuffer(4));
    for (const end = Date.now() + 20_000; Date.now() < end && state() !== "Z";) Atomics.wait(pause, 0, 0, 10);
    expect(state()).toBe("Z");
    const reads: number[] = [];
    observeCandidateStatReads((pid) => reads.push(pid));
    try {
      const tracker = new DescendantTracker(process.pid);
      expect(tracker.refreshDeepTree()).toBe(true);
      expect(reads).toContain(zombie);
      reads.length = 0;
      expect(tracker.refreshDeepTree()).toBe(true);
      expect(reads).not.toContain(zombie);
      expect(state()).toBe("Z");
    } finally {
      observeCandidateStatReads(undefined);
    }
  });

  it("a deep walk and a catch-up read no environment of an orphan in a session created before the CLI, and still adopt the CLI's tagged orphan", async () => {
    const leader = spawn(node, ["-e", OLD_SESSION], { stdio: ["pipe", "pipe", "ignore"], detached: true });
    const lines = createInterface({ input: leader.stdout! })[Symbol.asyncIterator]();
    const next = async (): Promise<number> => Number((await lines.next()).value);
    const all: number[] = [leader.pid!];
    const reads: number[] = [];
    try {
      await next();
      // The CLI starts after the session: its start time is later than the leader's.
      for (const end = Date.now() + 20_000; Date.now() < end && ticksNow() <= startOf(leader.pid!);)
        await new Promise((r) => setTimeout(r, 20));
      const { cli, tag, pids } = taggedCli("older-session");
      all.push(cli.pid!);
      const [child, orphan] = await pids;
      all.push(child!, orphan!);
      const tracker = new DescendantTracker(cli.pid!, tag);
      const since = lastPid();
      leader.stdin!.write("go\n");
      const job = await next();
      all.push(job);
      const parentOf = (): string | undefined => readFileSync(`/proc/${job}/stat`, "latin1").split(") ")[1]!.split(" ")[1];
      // An orphan once its helper exited: handed to an ancestor of this process, where orphans are looked for.
      const helper = String(Number(parentOf()));
      for (const end = Date.now() + 20_000; Date.now() < end && parentOf() === helper;) await new Promise((r) => setTimeout(r, 50));
      expect(startOf(job)).toBeGreaterThanOrEqual(tracker.rootStart);
      observeEnvironReads((pid) => reads.push(pid));
      expect(tracker.refreshDeepTree()).toBe(true);
      expect(tracker.pids).toContain(orphan);
      expect(tracker.pids).not.toContain(job);
      tracker.catchUp(since);
      expect(tracker.pids).not.toContain(job);
      expect(reads).not.toContain(job);
    } finally {
      observeEnvironReads(undefined);
      killAll(all);
    }
  }, 30_000);

  it("deep refreshes asked for in one turn of the event loop share one read of where orphans are handed, made after they were asked, and each finds what its deep scan finds", async () => {
    const { clis, trackers, all } = twoTaggedClis("deep-soon");
    try {
      await watchAll(clis, trackers, all);
      const before = orphanReads.count;
      await Promise.all(trackers.map((tracker) => refreshDeepSoon(tracker)));
      expect(orphanReads.count - before).toBe(1);
      for (const [i, { cli, tag, pids }] of clis.entries()) {
        const scanned = new DescendantTracker(cli.pid!, tag);
        scanned.refresh(undefined, true);
        expect(scanned.pids.sort()).toEqual((await pids).sort());
        expect(trackers[i]!.pids.sort()).toEqual(scanned.pids.sort());
      }
      // One asked for after that read gets a read of its own.
      await refreshDeepSoon(trackers[0]!);
      expect(orphanReads.count - before).toBe(2);
    } finally {
      for (const tracker of trackers) releaseDescendants(tracker);
      killAll(all);
    }
  }, 30_000);

  it("deep refreshes asked for together find their trees in one read of every process when that reads fewer files than their walks, and each finds what its deep scan finds", async () => {
    const { clis, trackers, all } = twoTaggedClis("deep-batch-scan");
    let scans = 0;
    try {
      await watchAll(clis, trackers, all);
      forceDeepBatchStrategy("scan");
      observeProcessScans(() => scans++);
      await Promise.all(trackers.map((tracker) => refreshDeepSoon(tracker, lastPid())));
      observeProcessScans(undefined);
      expect(scans).toBe(1);
      for (const [i, { cli, tag, pids }] of clis.entries()) {
        const scanned = new DescendantTracker(cli.pid!, tag);
        scanned.refresh(undefined, true);
        expect(scanned.pids.sort()).toEqual((await pids).sort());
        expect(trackers[i]!.pids.sort()).toEqual(scanned.pids.sort());
      }
      // Walked, the same batch finds the same.
      forceDeepBatchStrategy("walk");
      const walked = clis.map(({ cli, tag }) => new DescendantTracker(cli.pid!, tag));
      scans = 0;
      observeProcessScans(() => scans++);
      await Promise.all(walked.map((tracker) => refreshDeepSoon(tracker, lastPid())));
      observeProcessScans(undefined);
      expect(scans).toBe(0);
      for (const [i, tracker] of walked.entries()) expect(tracker.pids.sort()).toEqual(trackers[i]!.pids.sort());
    } finally {
      observeProcessScans(undefined);
      forceDeepBatchStrategy(undefined);
      for (const tracker of trackers) releaseDescendants(tracker);
      killAll(all);
    }
  }, 30_000);

  it("a poll served by one /proc scan finds, for every watched CLI, exactly what its own tree walk finds", async () => {
    const clis = [0, 1].map(() => {
      const cli = spawn(node, ["-e", TREE], { stdio: ["ignore", "pipe", "ignore"], detached: true });
      const pids = new Promise<number[]>((resolve) => cli.stdout.once("data", (d) => resolve(JSON.parse(String(d)) as number[])));
      return { cli, pids };
    });
    const polled: DescendantTracker[] = [];
    const all: number[] = clis.map(({ cli }) => cli.pid!);
    try {
      for (const { cli, pids } of clis) {
        all.push(...(await pids));
        const tracker = new DescendantTracker(cli.pid!);
        watchDescendants(tracker);
        polled.push(tracker);
      }
      refreshAllTrackers("scan");
      for (const [i, { cli, pids }] of clis.entries()) {
        const walked = new DescendantTracker(cli.pid!);
        expect(walked.refreshTree()).toBe(true);
        expect(walked.pids.sort()).toEqual((await pids).sort());
        expect(polled[i]!.pids.sort()).toEqual(walked.pids.sort());
      }
      // A remembered process that ended is forgotten by the scan as by the walk.
      const [first] = await clis[0]!.pids;
      process.kill(first!, "SIGKILL");
      for (const end = Date.now() + 10_000; Date.now() < end; await new Promise((r) => setTimeout(r, 50))) {
        refreshAllTrackers("scan");
        if (!polled[0]!.pids.includes(first!)) break;
      }
      const walked = new DescendantTracker(clis[0]!.cli.pid!);
      walked.refreshTree();
      expect(polled[0]!.pids.sort()).toEqual(walked.pids.sort());
      expect(polled[0]!.pids).not.toContain(first);
    } finally {
      for (const tracker of polled) releaseDescendants(tracker);
      killAll(all);
    }
  }, 30_000);

  it("a poll that reads only the processes started since the last scan (and the remembered ones) finds, for every watched CLI, what its own tree walk finds", async () => {
    const clis = [0, 1].map(() => {
      const cli = spawn(node, ["-e", GROWING], { stdio: ["pipe", "pipe", "ignore"], detached: true });
      const lines: number[][] = [];
      let wake: (() => void) | undefined;
      let buffered = "";
      cli.stdout.setEncoding("utf8").on("data", (d: string) => {
        buffered += d;
        for (let at = buffered.indexOf("\n"); at !== -1; at = buffered.indexOf("\n")) {
          lines.push(JSON.parse(buffered.slice(0, at)) as number[]);
          buffered = buffered.slice(at + 1);
        }
        wake?.();
      });
      const next = async (): Promise<number[]> => {
        while (lines.length === 0) await new Promise<void>((resolve) => (wake = resolve));
        return lines.shift()!;
      };
      return { cli, next };
    });
    // A CLI with descendants started before the scans, watched only after them.
    const older = spawn(node, ["-e", TREE], { stdio: ["ignore", "pipe", "ignore"], detached: true });
    const olderPids = new Promise<number[]>((resolve) => older.stdout.once("data", (d) => resolve(JSON.parse(String(d)) as number[])));
    const polled: DescendantTracker[] = [];
    const all: number[] = [older.pid!, ...clis.map(({ cli }) => cli.pid!)];
    try {
      all.push(...(await olderPids));
      for (const { cli, next } of clis) {
        all.push(...(await next()));
        const tracker = new DescendantTracker(cli.pid!);
        watchDescendants(tracker);
        polled.push(tracker);
      }
      refreshAllTrackers("scan");
      // Each CLI starts a child and a grandchild after that scan; the next scan reads only the
      // processes started since (a scan more than a few polls old is done in full: start again).
      let served: string | undefined;
      for (let round = 0; round < 20 && served !== "window"; round++) {
        for (const { cli, next } of clis) {
          cli.stdin.write("grow\n");
          all.push(...(await next()));
        }
        served = refreshAllTrackers("scan");
      }
      expect(served).toBe("window");
      for (const [i, { cli }] of clis.entries()) {
        const walked = new DescendantTracker(cli.pid!);
        expect(walked.refreshTree()).toBe(true);
        expect(walked.pids.length).toBeGreaterThanOrEqual(3);
        expect(polled[i]!.pids.sort()).toEqual(walked.pids.sort());
      }
      // The poll after a CLI older than the last scan is watched reads every process: its
      // descendants were never read.
      const late = new DescendantTracker(older.pid!);
      watchDescendants(late);
      polled.push(late);
      refreshAllTrackers("scan");
      expect(late.pids.sort()).toEqual((await olderPids).sort());
      // A remembered process that ended is forgotten as by the walk.
      const gone = polled[0]!.pids[0]!;
      process.kill(gone, "SIGKILL");
      for (const end = Date.now() + 10_000; Date.now() < end; await new Promise((r) => setTimeout(r, 50))) {
        refreshAllTrackers("scan");
        if (!polled[0]!.pids.includes(gone)) break;
      }
      const walked = new DescendantTracker(clis[0]!.cli.pid!);
      walked.refreshTree();
      expect(polled[0]!.pids).not.toContain(gone);
      expect(polled[0]!.pids.sort()).toEqual(walked.pids.sort());
    } finally {
      for (const tracker of polled) releaseDescendants(tracker);
      for (const { cli } of clis) cli.stdin.destroy();
      killAll(all);
    }
  }, 60_000);

  it("a CLI told to exit stands on a read of where orphans are handed made for it within AHEAD_FRESH_MS; one watched after that read, or one whose last read is older, reads again and adopts its tagged orphan", async () => {
    const { clis, trackers, all } = twoTaggedClis("ahead");
    const [first, second] = clis;
    // The freshness window is read on a clock the test holds still and moves itself: a busy
    // machine pausing between two lines must not make a read look older than it is.
    let now = 1_000_000;
    const clock = vi.spyOn(performance, "now").mockImplementation(() => now);
    try {
      all.push(first!.cli.pid!, second!.cli.pid!);
      all.push(...(await first!.pids), ...(await second!.pids));
      const early = new DescendantTracker(first!.cli.pid!, first!.tag);
      watchDescendants(early);
      trackers.push(early);
      // A poll reads where orphans are handed for every watched CLI.
      refreshAllTrackers("walk");
      const afterPoll = aheadReads.count;
      readOrphansAhead(early);
      expect(aheadReads.count).toBe(afterPoll);
      expect(early.pids).toContain((await first!.pids)[1]);
      // Watched after that read: it served no search for this CLI's orphans.
      const late = new DescendantTracker(second!.cli.pid!, second!.tag);
      watchDescendants(late);
      trackers.push(late);
      readOrphansAhead(late);
      expect(aheadReads.count).toBe(afterPoll + 1);
      expect(late.pids).toContain((await second!.pids)[1]);
      // No poll while nothing is watched: the last read grows older than AHEAD_FRESH_MS.
      for (const tracker of trackers) unwatchDescendants(tracker);
      now += AHEAD_FRESH_MS + 1;
      watchDescendants(early);
      readOrphansAhead(early);
      expect(aheadReads.count).toBe(afterPoll + 2);
    } finally {
      clock.mockRestore();
      for (const tracker of trackers) releaseDescendants(tracker);
      killAll(all);
    }
  }, 30_000);

  it("the CLIs a deep walk skips as other CLIs of this host are those of the trackers owned now, however watched and released", () => {
    // Pids no process has: the trackers are only bookkept here.
    const [a, b, c] = [999_999_001, 999_999_002, 999_999_003];
    const before = ownedCliPids();
    const trackers = [a, b, b, c].map((pid) => new DescendantTracker(pid));
    const [ta, tb1, tb2, tc] = trackers as [DescendantTracker, DescendantTracker, DescendantTracker, DescendantTracker];
    const ours = () => ownedCliPids().filter((pid) => !before.includes(pid));
    try {
      for (const tracker of trackers) watchDescendants(tracker);
      watchDescendants(ta); // watched twice: still one tracker
      expect(ours()).toEqual([a, b, c]);
      // Unwatched (its CLI exited) but not released: still owned.
      unwatchDescendants(tc);
      expect(ours()).toEqual([a, b, c]);
      releaseDescendants(ta);
      expect(ours()).toEqual([b, c]);
      // A pid two trackers have (reused) stays until both are released.
      releaseDescendants(tb1);
      expect(ours()).toEqual([b, c]);
      releaseDescendants(tb2);
      releaseDescendants(tb2);
      expect(ours()).toEqual([c]);
      releaseDescendants(tc);
      expect(ours()).toEqual([]);
    } finally {
      for (const tracker of trackers) releaseDescendants(tracker);
    }
  });

  it("the pids started between two reads of the last pid handed out are those after the first up to the second, across the wrap to low pids", () => {
    expect([100, 101, 150, 151, 5].map((pid) => inWindow(pid, { after: 100, last: 150 }))).toEqual([false, true, true, false, false]);
    // The kernel wrapped past its maximum to the lowest free pids.
    expect([32_000, 32_001, 32_767, 300, 400, 401, 31_000].map((pid) => inWindow(pid, { after: 32_000, last: 400 }))).toEqual([
      false,
      true,
      true,
      true,
      true,
      false,
      false,
    ]);
    // Nothing handed out since.
    expect(inWindow(150, { after: 150, last: 150 })).toBe(false);
  });

  it("a catch-up over the pids a tagged CLI's threads took adopts none of them: a thread answers in /proc with the CLI's tag but is not a process of its own", async () => {
    const tag = `threads-${process.pid}-${Date.now()}`;
    const cli = spawn(node, ["-e", "setInterval(() => {}, 1000)"], {
      stdio: "ignore",
      detached: true,
      env: { ...process.env, [PROCESS_TAG_VAR]: tag },
    });
    try {
      const pid = cli.pid!;
      // Node starts its worker threads right after the process: their ids follow its pid.
      let threads: number[] = [];
      for (const end = Date.now() + 20_000; threads.length < 2 && Date.now() < end; await new Promise((r) => setTimeout(r, 50)))
        threads = readdirSync(`/proc/${pid}/task`)
          .map(Number)
          .filter((tid) => tid > pid);
      expect(threads.length).toBeGreaterThan(1);
      // Each thread's id answers in /proc as if it were a process, a child of this one, tagged.
      expect(readFileSync(`/proc/${threads[0]}/stat`, "latin1").split(") ")[1]?.split(" ")[1]).toBe(String(process.pid));
      expect(readFileSync(`/proc/${threads[0]}/environ`, "latin1")).toContain(tag);
      // Read pid by pid, the window holds the threads' ids too: the catch-up must tell them apart.
      const window = { after: pid - 1, last: Math.max(...threads) };
      expect([...startedIn(window)].map((stat) => stat.pid)).toEqual(expect.arrayContaining(threads));
      const tracker = new DescendantTracker(pid, tag);
      expect(tracker.catchUp(pid - 1)).toBe(true);
      expect(tracker.pids.filter((each) => threads.includes(each))).toEqual([]);
    } finally {
      cli.kill("SIGKILL");
    }
  });

  it("a catch-up reads no environment of a process started since by one older than the CLI that is neither this process nor its ancestor, and still adopts the CLI's tagged orphan", async () => {
    const forker = spawn(node, ["-e", FORKER], { stdio: ["pipe", "pipe", "ignore"] });
    const lines = createInterface({ input: forker.stdout! })[Symbol.asyncIterator]();
    const next = async (): Promise<number> => Number((await lines.next()).value);
    const all: number[] = [forker.pid!];
    try {
      expect(await next()).toBe(0);
      // The CLI starts in a later clock tick than the forker.
      const forkerStart = startOf(forker.pid!);
      while (ticksNow() <= forkerStart + 1) await new Promise((resolve) => setTimeout(resolve, 20));
      const since = lastPid();
      const cli = taggedCli("catch-up-parents");
      all.push(cli.cli.pid!);
      const [child, orphan] = await cli.pids;
      all.push(child!, orphan!);
      forker.stdin!.write("go\n");
      const foreign = await next();
      all.push(foreign);
      expect(startOf(cli.cli.pid!)).toBeGreaterThan(forkerStart);
      const tracker = new DescendantTracker(cli.cli.pid!, cli.tag);
      const read: number[] = [];
      observeEnvironReads((pid) => read.push(pid));
      tracker.catchUp(since);
      expect(tracker.pids.sort()).toEqual([child!, orphan!].sort());
      // The orphan's parent is where orphans are handed: read, tagged. The forker's child: not read.
      expect(read).toContain(orphan);
      expect(read).not.toContain(foreign);
    } finally {
      observeEnvironReads(undefined);
      killAll(all);
    }
  }, 30_000);

  it("a poll scans /proc once only when that reads fewer files than walking every tree", () => {
    const hostAsked: number[] = [];
    const host = (count: number) => () => (hostAsked.push(count), count);
    // A few CLIs: walked, without listing /proc to compare.
    expect(pollStrategy(3, 8, host(100))).toBe("walk");
    expect(hostAsked).toEqual([]);
    // 100 CLIs of 8 threads each (900 files) on a host of 300 processes: one scan.
    expect(pollStrategy(100, 9, host(300))).toBe("scan");
    // 10 CLIs (90 files) on a host of 1,000 processes: the walks.
    expect(pollStrategy(10, 9, host(1_000))).toBe("walk");
    expect(hostAsked).toEqual([300, 1_000]);
  });
});
