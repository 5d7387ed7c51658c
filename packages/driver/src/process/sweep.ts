import { signalProcess } from "./descendants.js";

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms).unref());

/**
 * Listings {@link sweepUntilGone} takes, {@link QUIET_INTERVAL_MS} apart, before it trusts that
 * nothing is left: one listing can miss a process that changes its pid (forks, the parent exits)
 * faster than the listing reads it.
 */
export const QUIET_LISTINGS = 3;
/** Time between two listings of {@link sweepUntilGone}, in ms. */
const QUIET_INTERVAL_MS = 20;

/**
 * Lists what is left (`list`) and hands each listed pid to `signal`, round after round, until
 * {@link QUIET_LISTINGS} listings in a row find nothing or `untilMs` (a `Date.now()` deadline)
 * passed. Catches a job that changes its pid continuously: each round signals its current pid.
 * Never throws (as long as `list` and `signal` do not); the waits never keep Node alive.
 * @returns true when the last {@link QUIET_LISTINGS} listings found nothing.
 */
export async function sweepUntilGone(
  list: () => number[] | Promise<number[]>,
  signal: (pid: number) => void,
  untilMs: number,
): Promise<boolean> {
  for (let quiet = 0; ;) {
    const pids = await list();
    quiet = pids.length === 0 ? quiet + 1 : 0;
    for (const pid of pids) signal(pid);
    if (quiet >= QUIET_LISTINGS) return true;
    if (Date.now() >= untilMs) return false;
    await sleep(pids.length === 0 ? QUIET_INTERVAL_MS : 50);
  }
}

/** Least time the SIGKILL rounds of {@link endSweeping} go on while something is still found, in ms. */
const KILL_SWEEP_MS = 2_000;

/**
 * Ends what `list` finds: SIGTERM (to the process group of one that leads one) to each pid found,
 * round after round for `graceMs` ({@link sweepUntilGone}: a job that keeps changing its pid is
 * signalled under each), then, if something is still found, SIGKILL the same way for at least
 * {@link KILL_SWEEP_MS}. `signal` sends one signal to one found pid (default: to the pid, or to
 * its process group when it leads one); true when sent. `gaveUp` is told the pids the last listing
 * found when the SIGKILL rounds ended with something still found. Never throws; the waits never
 * keep Node alive.
 * @returns the pids it sent SIGTERM to.
 */
export async function endSweeping(
  list: () => number[] | Promise<number[]>,
  graceMs: number,
  signal: (pid: number, signal: NodeJS.Signals) => boolean = signalProcess,
  gaveUp?: (left: number[]) => void,
): Promise<number[]> {
  const signalled = new Set<number>();
  const term = (pid: number): void => {
    if (!signalled.has(pid) && signal(pid, "SIGTERM")) signalled.add(pid);
  };
  if (await sweepUntilGone(list, term, Date.now() + graceMs)) return [...signalled];
  let left: number[] = [];
  const listKept = async (): Promise<number[]> => (left = await list());
  if (!(await sweepUntilGone(listKept, (pid) => signal(pid, "SIGKILL"), Date.now() + Math.max(graceMs, KILL_SWEEP_MS)))) gaveUp?.(left);
  return [...signalled];
}
