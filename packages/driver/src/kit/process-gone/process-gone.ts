import { procStatFields } from "@adaptor/errors/internal";

/**
 * Whether the process `pid` is gone: no such process, or a zombie (state `Z` in `/proc/<pid>/stat`)
 * whose reaper is not the caller, such as an orphan reparented to a PID 1 that never reaps, as in
 * some containers. For checking that a CLI, or what it started, did not outlive its host or its
 * run. Synchronous; never throws. A process the caller may not signal (`EPERM`) exists, so it is
 * not gone. Where `/proc` is missing (not Linux) a zombie counts as alive.
 */
export function processGone(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "ESRCH";
  }
  return procStatFields(pid)?.[0] === "Z";
}

/**
 * Resolves true as soon as {@link processGone} holds for `pid`, checking every 20 ms, or false
 * after `ms` milliseconds (default 2000) if it never did.
 */
export async function waitForProcessGone(pid: number, ms = 2000): Promise<boolean> {
  for (const end = Date.now() + ms; Date.now() < end; await new Promise((resolve) => setTimeout(resolve, 20))) {
    if (processGone(pid)) return true;
  }
  return processGone(pid);
}
