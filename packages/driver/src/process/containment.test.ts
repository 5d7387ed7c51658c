import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath, pathToFileURL } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import type { CliProcess } from "./cli-process.js";
import { observeEnvironReads } from "./descendants.js";
import { spawnCli } from "./spawn-cli.js";

// Process containment on Linux: whatever a CLI starts, even in its own session (setsid) and even
// after its parent exited, ends when the CLI ends, is terminated, is force-killed, or the host exits.

const node = process.execPath;

/** Live (non-zombie) processes with `marker` as one whole argument. */
function survivors(marker: string): number[] {
  const found: number[] = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const cmdline = readFileSync(`/proc/${name}/cmdline`, "utf8");
      if (!cmdline.split("\0").includes(marker)) continue; // a whole argument: the CLI's own script only mentions it
      const stat = readFileSync(`/proc/${name}/stat`, "utf8");
      if (stat.slice(stat.lastIndexOf(")") + 2).startsWith("Z")) continue;
      found.push(Number(name));
    } catch {
      // gone meanwhile
    }
  }
  return found;
}

/** Polls until no process carries `marker` (true) or `ms` passed (false). */
async function noSurvivors(marker: string, ms = 8000): Promise<boolean> {
  for (const end = Date.now() + ms; Date.now() < end; await new Promise((r) => setTimeout(r, 100))) {
    if (survivors(marker).length === 0) return true;
  }
  return survivors(marker).length === 0;
}

/** Polls until a process carries `marker`. */
async function appeared(marker: string, ms = 15000): Promise<boolean> {
  for (const end = Date.now() + ms; Date.now() < end; await new Promise((r) => setTimeout(r, 50))) {
    if (survivors(marker).length > 0) return true;
  }
  return false;
}

/** A node "tool" that lives forever, recognisable by `marker` on its command line. */
const tool = (marker: string): string => JSON.stringify(["-e", "setInterval(() => {}, 1000)", marker]);

/** CLI scripts: start a tool in its own session (setsid), or as a background job whose shell exits at once. */
const startSetsidTool = (marker: string): string =>
  `require("child_process").spawn(process.execPath, ${tool(marker)}, { detached: true, stdio: "ignore" }).unref();`;
const startOrphanedJob = (marker: string): string =>
  `require("child_process").spawn("/bin/sh", ["-c", ${JSON.stringify(`"${node}" -e "setInterval(() => {}, 1000)" ${marker} >/dev/null 2>&1 &`)}], { detached: true, stdio: "ignore" });`;

/**
 * A CLI script that starts `argv` (a perl job that forks, its parent exiting at once: the fork is
 * out of the CLI's tree, still in the CLI's session), prints the first line the job writes (the
 * fork's pid), and exits on a line on its stdin.
 */
const startSessionJob = (argv: readonly string[]): string =>
  `const job = require("child_process").spawn(${JSON.stringify(argv[0])}, ${JSON.stringify(argv.slice(1))}, { stdio: ["ignore", "pipe", "ignore"] });
job.stdout.once("data", (d) => console.log(String(d).trim()));
process.stdin.on("data", () => process.exit(0));
setInterval(() => {}, 1000);`;

/**
 * The fork of a session job: once its parent is gone (it is out of the CLI's tree), moves to a
 * process group of its own (setpgrp), prints its pid, and lives on.
 */
const FORK_TO_OWN_GROUP = `my $parent = $$; exit if fork; select(undef, undef, undef, 0.05) while getppid() == $parent; setpgrp(0, 0); print "$$\\n"; close STDOUT; sleep 300`;

/** A session job with an empty environment (no tag) from the start, carrying `marker` as an argument. */
const untaggedSessionJob = (marker: string): string[] => ["/usr/bin/env", "-i", "perl", "-e", FORK_TO_OWN_GROUP, marker];

/**
 * A session job started with the tag that drops it before it forks: it moves to a process group of
 * its own and renames itself to `marker` (perl's `$0` writes over the environment's memory, so
 * `/proc/<pid>/environ` no longer holds the tag).
 */
const renamedSessionJob = (marker: string): string[] => ["perl", "-e", `setpgrp(0, 0); $0 = "${marker}"; ${FORK_TO_OWN_GROUP}`];

/** The fork's pid, printed by the CLI; checks it is in the CLI's session, out of its tree and group, without the tag. */
async function sessionJob(proc: CliProcess): Promise<number> {
  let job = 0;
  for await (const line of proc.lines()) {
    job = Number(line.text);
    break;
  }
  const stat = readFileSync(`/proc/${job}/stat`, "latin1");
  const [, ppid, pgid, sid] = stat
    .slice(stat.lastIndexOf(")") + 2)
    .split(" ")
    .map(Number);
  expect(sid).toBe(proc.pid);
  expect(ppid).not.toBe(proc.pid);
  expect(pgid).not.toBe(proc.pid);
  expect(readFileSync(`/proc/${job}/environ`, "latin1")).not.toContain("ADAPTOR_PROCESS_TAG");
  return job;
}

function cli(script: string, killGraceMs = 500): Promise<CliProcess> {
  return spawnCli({ command: node, args: ["-e", script], device: "node", killGraceMs });
}

/**
 * Starts a host (a Node process) that runs a CLI with `cliScript`, waits until a process carries
 * `marker`, ends the host by `how`, and checks how it ended. @returns whether every process
 * carrying `marker` is gone after it (within a few seconds). The host is a plain child, not one of
 * `spawnCli`: this process's own containment would end what the host left at the host's exit.
 */
async function hostEndLeavesNothing(how: "exit" | "SIGTERM" | "SIGINT", cliScript: string, marker: string): Promise<boolean> {
  const module = pathToFileURL(fileURLToPath(new URL("./spawn-cli.ts", import.meta.url))).href;
  const root = fileURLToPath(new URL("../../../../", import.meta.url));
  const script = `const { spawnCli } = await import(${JSON.stringify(module)});
await spawnCli({ command: process.execPath, args: ["-e", ${JSON.stringify(cliScript)}] });
process.stdin.on("data", () => process.exit(0));
console.log("ready");
setInterval(() => {}, 1000);`;
  const host = spawn(node, ["--conditions=source", "--import", "tsx", "--input-type=module", "-e", script], {
    cwd: root,
    stdio: ["pipe", "pipe", "ignore"],
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    host.once("exit", (code, signal) => resolve({ code, signal })),
  );
  try {
    for await (const line of createInterface({ input: host.stdout })) if (line === "ready") break;
    expect(await appeared(marker)).toBe(true);
    if (how === "exit") host.stdin.write("exit\n");
    else host.kill(how);
    const exit = await exited;
    expect(how === "exit" ? exit.code : exit.signal).toBe(how === "exit" ? 0 : how);
  } finally {
    host.kill("SIGKILL");
  }
  return noSurvivors(marker);
}

describe.skipIf(process.platform !== "linux")("process containment", () => {
  it("setsid tool survives a SIGKILL of the CLI: now ended once the CLI is gone", async () => {
    const marker = `adaptor-marker-${randomUUID()}`;
    await using proc = await cli(`${startSetsidTool(marker)} setInterval(() => {}, 1000);`);
    expect(await appeared(marker)).toBe(true);
    process.kill(proc.pid, "SIGKILL"); // not sent by the SDK
    expect((await proc.exited).signal).toBe("SIGKILL");
    expect(await noSurvivors(marker)).toBe(true);
  });

  it("a launcher SIGKILLed from outside whose child inherited its stdio: exited settles and the child is ended", async () => {
    const marker = `adaptor-marker-${randomUUID()}`;
    // Like codex-acp's Node launcher: the real binary runs as a child that holds the launcher's stdout.
    await using proc = await cli(`require("child_process").spawnSync(process.execPath, ${tool(marker)}, { stdio: "inherit" });`);
    expect(await appeared(marker)).toBe(true);
    process.kill(proc.pid, "SIGKILL"); // the launcher only, not its group
    expect((await proc.exited).signal).toBe("SIGKILL");
    expect(await noSurvivors(marker)).toBe(true);
  });

  it("orphaned background job at run end: a job whose shell already exited ends when the CLI exits", async () => {
    const marker = `adaptor-marker-${randomUUID()}`;
    await using proc = await cli(`${startOrphanedJob(marker)} setTimeout(() => process.exit(0), 300);`);
    expect(await appeared(marker)).toBe(true);
    expect((await proc.exited).code).toBe(0);
    await proc.close();
    expect(survivors(marker)).toEqual([]);
  });

  it("terminate() (cancel) ends a setsid tool of a live CLI before it resolves", async () => {
    const marker = `adaptor-marker-${randomUUID()}`;
    await using proc = await cli(`${startSetsidTool(marker)} setInterval(() => {}, 1000);`);
    expect(await appeared(marker)).toBe(true);
    await proc.terminate();
    await proc.close();
    expect(survivors(marker)).toEqual([]);
  });

  it("force-kill: a CLI ignoring SIGTERM and its setsid tool ignoring SIGTERM are both SIGKILLed", async () => {
    const marker = `adaptor-marker-${randomUUID()}`;
    const stubborn = JSON.stringify(["-e", "process.on('SIGTERM', () => {}); setInterval(() => {}, 1000)", marker]);
    await using proc = await cli(
      `process.on("SIGTERM", () => {}); require("child_process").spawn(process.execPath, ${stubborn}, { detached: true, stdio: "ignore" }).unref(); setInterval(() => {}, 1000);`,
    );
    expect(await appeared(marker)).toBe(true);
    expect(await proc.terminate()).toMatchObject({ forceKilled: true });
    await proc.close();
    expect(survivors(marker)).toEqual([]);
  });

  it("a tool that cleared its environment (no tag) in its own session is still found through the CLI's tree", async () => {
    const marker = `adaptor-marker-${randomUUID()}`;
    await using proc = await cli(
      `require("child_process").spawn("/usr/bin/env", ["-i", process.execPath, ...${tool(marker)}], { detached: true, stdio: "ignore" }).unref(); setInterval(() => {}, 1000);`,
    );
    expect(await appeared(marker)).toBe(true);
    await proc.close();
    expect(survivors(marker)).toEqual([]);
  });

  it("a job without a tag that left the tree into a process group of its own in the CLI's session ends when the CLI exits", async () => {
    const marker = `adaptor-marker-${randomUUID()}`;
    await using proc = await cli(startSessionJob(untaggedSessionJob(marker)));
    const job = await sessionJob(proc);
    expect(survivors(marker)).toEqual([job]);
    await proc.writeText("exit\n");
    expect((await proc.exited).code).toBe(0);
    await proc.close();
    expect(survivors(marker)).toEqual([]);
  });

  it("a job that dropped its tag by renaming itself after moving to a process group of its own in the CLI's session ends on close()", async () => {
    const marker = `adaptor-marker-${randomUUID()}`;
    await using proc = await cli(startSessionJob(renamedSessionJob(marker)));
    const job = await sessionJob(proc);
    expect(survivors(marker)).toEqual([job]);
    await proc.close();
    expect(survivors(marker)).toEqual([]);
  });

  it.each(["exit", "SIGTERM", "SIGINT"] as const)("host ends by %s: the CLI's setsid tool is ended too", async (how) => {
    const marker = `adaptor-marker-${randomUUID()}`;
    expect(await hostEndLeavesNothing(how, `${startSetsidTool(marker)} setInterval(() => {}, 1000);`, marker)).toBe(true);
  });

  it.each(["exit", "SIGTERM"] as const)(
    "host ends by %s: a job without a tag in a process group of its own in the CLI's session is ended too",
    async (how) => {
      const marker = `adaptor-marker-${randomUUID()}`;
      expect(await hostEndLeavesNothing(how, startSessionJob(untaggedSessionJob(marker)), marker)).toBe(true);
    },
  );
});

// A process's /proc environ reads empty while it is in the middle of an execve. A tagged orphan read
// at that moment must not be taken as untagged for good: it is read again until its environment shows.
describe.runIf(process.platform === "linux")("an orphan read while its environment is empty", () => {
  let dir: string | undefined;
  let jobPid: number | undefined;
  afterEach(() => {
    observeEnvironReads(undefined);
    try {
      if (jobPid !== undefined) process.kill(jobPid, "SIGKILL");
    } catch {
      // gone
    }
    if (dir) rmSync(dir, { recursive: true, force: true });
    dir = jobPid = undefined;
  });

  /** Polls `probe` every 50 ms until it is true or `ms` passed. */
  async function until(probe: () => boolean, ms = 20_000): Promise<boolean> {
    for (const end = Date.now() + ms; Date.now() < end; await new Promise((r) => setTimeout(r, 50))) if (probe()) return true;
    return probe();
  }

  it("is adopted once it shows the CLI's tag, and ends with the CLI", async () => {
    dir = mkdtempSync(join(tmpdir(), "adaptor-mid-exec-"));
    const pidFile = join(dir, "pid");
    const go = join(dir, "go");
    const marker = `adaptor-marker-${randomUUID()}`;
    // The job: in a session of its own, started with no environment at all (as a process reads in
    // the middle of an execve), its shell already gone; once told, it becomes a tagged node process.
    const job = [
      `echo $$ > '${pidFile}'`,
      `while [ ! -e '${go}' ]; do /bin/sleep 0.05; done`,
      `exec /usr/bin/env "ADAPTOR_PROCESS_TAG=$0" '${node}' -e 'setInterval(() => {}, 1000)' ${marker}`,
    ].join("; ");
    const script = `require("child_process").spawn("/bin/sh", ["-c", ${JSON.stringify(`/usr/bin/setsid /usr/bin/env -i /bin/sh -c "$0" "$1" </dev/null >/dev/null 2>&1 &`)}, ${JSON.stringify(job)}, process.env.ADAPTOR_PROCESS_TAG], { env: {}, stdio: "ignore" }); setInterval(() => {}, 1000);`;
    const reads = new Set<number>();
    observeEnvironReads((pid) => reads.add(pid));
    await using proc = await spawnCli({ command: node, args: ["-e", script], device: "node", killGraceMs: 500 });
    expect(await until(() => existsSync(pidFile) && Number(readFileSync(pidFile, "utf8")) > 0)).toBe(true);
    jobPid = Number(readFileSync(pidFile, "utf8"));
    // Its empty environment was read (as an orphan candidate) before it took the tag.
    expect(await until(() => reads.has(jobPid!))).toBe(true);
    writeFileSync(go, "");
    expect(await until(() => survivors(marker).includes(jobPid!))).toBe(true);
    await proc.terminate();
    await proc.close();
    expect(await noSurvivors(marker)).toBe(true);
  }, 60_000);
});
