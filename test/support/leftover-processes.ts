// Vitest global setup: marks every process the test run starts, and fails the run when one of them
// is still alive after the last test file.
import { randomUUID } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";

/**
 * The variable that marks the processes of one test run (its value: a UUID per run). An `LC_*`
 * name, so that it rides along the default environment allowlist of the drivers (`SAFE_ENV_BASE`)
 * into the CLIs they start and everything those start; the C library ignores an `LC_` variable it
 * does not know. A process started with an environment of its own (`env -i`, an explicit `env`
 * without it) is not marked, and not found.
 */
export const RUN_MARKER_VAR = "LC_ADAPTOR_TEST_RUN";

/** How long a process found at teardown is given to finish exiting before it counts as left over, in ms. */
const EXIT_GRACE_MS = 500;

/** A process of the run still alive after its last test. */
interface Leftover {
  pid: number;
  ppid: number;
  /** Its command line, arguments joined by spaces. */
  args: string;
}

/**
 * The processes whose environment holds `entry` (`NAME=value`), but this process (the run's main
 * process, which set it) and its children (the test workers, and the tools the run itself starts):
 * a process a test started has a worker or an orphan's adopter as parent. Reads one file of /proc
 * per process of the host; a process that exits meanwhile, or whose files cannot be read, is skipped.
 */
function marked(entry: string): Leftover[] {
  const needle = Buffer.from(entry + "\0");
  const found: Leftover[] = [];
  for (const name of readdirSync("/proc")) {
    const pid = Number(name);
    if (!Number.isSafeInteger(pid) || pid === process.pid) continue;
    try {
      if (!readFileSync(`/proc/${pid}/environ`).includes(needle)) continue;
      const stat = readFileSync(`/proc/${pid}/stat`, "latin1");
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      if (ppid === process.pid) continue;
      const args = readFileSync(`/proc/${pid}/cmdline`, "latin1").split("\0").join(" ").trim();
      found.push({ pid, ppid, args });
    } catch {
      // gone, or not ours to read
    }
  }
  return found;
}

/**
 * Marks the run (sets {@link RUN_MARKER_VAR} in the environment the test workers start with) and
 * returns the teardown that, after the last test file, lists the marked processes still alive
 * (Linux; elsewhere it checks nothing). Those still there {@link EXIT_GRACE_MS} later are killed
 * (SIGKILL), named on stderr (pid, parent pid, command line), and the run fails (exit code 1).
 */
export default function setup(): () => Promise<void> {
  const entry = `${RUN_MARKER_VAR}=${randomUUID()}`;
  process.env[RUN_MARKER_VAR] = entry.slice(RUN_MARKER_VAR.length + 1);
  return async () => {
    if (process.platform !== "linux") return;
    const first = marked(entry);
    if (first.length === 0) return;
    await new Promise((resolve) => setTimeout(resolve, EXIT_GRACE_MS));
    const pids = new Set(first.map(({ pid }) => pid));
    const left = marked(entry).filter(({ pid }) => pids.has(pid));
    if (left.length === 0) return;
    for (const { pid } of left) {
      try {
        process.kill(pid, "SIGKILL");
      } catch {
        // gone meanwhile
      }
    }
    const lines = left.map(({ pid, ppid, args }) => `  pid ${pid} (parent ${ppid}): ${args}`);
    // Vitest only logs what a teardown throws: the exit code is set here.
    process.exitCode = 1;
    console.error(`\nFAIL: ${left.length} process(es) started by the tests outlived them (now killed):\n${lines.join("\n")}\n`);
  };
}
