import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { randomUUID } from "node:crypto";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { observeEnvironReads } from "./descendants.js";
import { spawnCli } from "./spawn-cli.js";

// A process's /proc environ reads empty while it is in the middle of an execve. A tagged orphan read
// at that moment must not be taken as untagged for good: it is read again until its environment shows.

const node = process.execPath;

/** Live (non-zombie) processes with `marker` as one whole argument. */
function survivors(marker: string): number[] {
  const found: number[] = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      if (!readFileSync(`/proc/${name}/cmdline`, "utf8").split("\0").includes(marker)) continue;
      const stat = readFileSync(`/proc/${name}/stat`, "utf8");
      if (!stat.slice(stat.lastIndexOf(")") + 2).startsWith("Z")) found.push(Number(name));
    } catch {
      // gone meanwhile
    }
  }
  return found;
}

async function until<T>(probe: () => T | undefined, ms = 20_000): Promise<T | undefined> {
  for (const end = Date.now() + ms; Date.now() < end; await new Promise((r) => setTimeout(r, 50))) {
    const value = probe();
    if (value !== undefined) return value;
  }
  return probe();
}

let dir: string | undefined;
afterEach(() => {
  observeEnvironReads(undefined);
  for (const pid of marked) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // gone
    }
  }
  marked.length = 0;
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});
const marked: number[] = [];

describe.runIf(process.platform === "linux")("an orphan read while its environment is empty", () => {
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
    const jobPid = await until(() => (existsSync(pidFile) ? Number(readFileSync(pidFile, "utf8")) || undefined : undefined));
    expect(jobPid).toBeGreaterThan(0);
    marked.push(jobPid!);
    // Its empty environment was read (as an orphan candidate) before it took the tag.
    expect(await until(() => (reads.has(jobPid!) ? true : undefined))).toBe(true);
    writeFileSync(go, "");
    expect(await until(() => (survivors(marker).includes(jobPid!) ? true : undefined))).toBe(true);
    await proc.terminate();
    await proc.close();
    expect(await until(() => (survivors(marker).length === 0 ? true : undefined), 8_000)).toBe(true);
  }, 60_000);
});
