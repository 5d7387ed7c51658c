import { readdirSync, readFileSync } from "node:fs";

/**
 * A python3 program: a background job that keeps changing pid. It forks (the parent exits), calls
 * `setsid`, closes its stdio, then forks every 20 ms with the parent exiting each time, for
 * `argv[2]` seconds; at the end it writes `argv[1]`. It keeps its environment (and with it the CLI's
 * process tag).
 */
const PID_HOPPER = [
  "import os, sys, time",
  "out = sys.argv[1]; secs = float(sys.argv[2])",
  "if os.fork() > 0: os._exit(0)",
  "os.setsid()",
  "[os.close(fd) for fd in (0, 1, 2)]",
  "end = time.time() + secs",
  "while time.time() < end:",
  "    if os.fork() > 0: os._exit(0)",
  "    time.sleep(0.02)",
  'open(out, "w").write("late")',
].join("\n");

/**
 * A one-line shell command (a scripted model's `SHELL_CMD` takes one line) that starts the pid
 * hopper writing `marker` after `seconds`, then prints `started`.
 */
export function pidHopperCommand(marker: string, seconds: number): string {
  return `python3 -c 'exec(${JSON.stringify(PID_HOPPER)})' ${marker} ${seconds}; echo started`;
}

/** Pids of live processes whose command line names `marker` (the hopper's argument). */
export function processesNaming(marker: string): number[] {
  const pids: number[] = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      if (readFileSync(`/proc/${name}/cmdline`, "utf8").includes(marker) && !readFileSync(`/proc/${name}/stat`, "utf8").includes(") Z "))
        pids.push(Number(name));
    } catch {
      // ended meanwhile
    }
  }
  return pids;
}

/** SIGKILLs, a few rounds, what {@link processesNaming} finds (a test's own clean-up). */
export function killProcessesNaming(marker: string): void {
  for (let round = 0; round < 20; round++)
    for (const pid of processesNaming(marker)) {
      try {
        process.kill(pid, "SIGKILL");
      } catch {
        // ended meanwhile
      }
    }
}
