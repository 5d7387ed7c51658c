import { readFileSync } from "node:fs";

/**
 * Whether the process `pid` is gone: no such process, or a zombie whose reaper is not the caller (an
 * orphan reparented to a PID 1 that never reaps, as in some containers). For tests that check that
 * a CLI, or what it started, did not outlive its host or its run. Synchronous; never throws. Where
 * `/proc` is missing (not Linux) a zombie counts as alive.
 */
export function processGone(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "ESRCH";
  }
  try {
    return /^\d+ \(.*\) Z/s.test(readFileSync(`/proc/${pid}/stat`, "utf8"));
  } catch {
    return false; // no /proc, or it vanished meanwhile: ask again
  }
}

/**
 * Resolves true as soon as {@link processGone} holds for `pid`, checking every 20 ms, or false
 * after `ms` (default 2000) if it never did.
 */
export async function waitForProcessGone(pid: number, ms = 2000): Promise<boolean> {
  for (const end = Date.now() + ms; Date.now() < end; await new Promise((r) => setTimeout(r, 20))) {
    if (processGone(pid)) return true;
  }
  return processGone(pid);
}
