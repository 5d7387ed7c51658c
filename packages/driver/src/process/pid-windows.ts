/**
 * The pids handed out in this pid namespace after `after` up to `last` (both pids the kernel handed
 * out last, read at two moments): the kernel hands pids out in increasing order from the last one
 * handed out, wrapping to the lowest free pid past the maximum, so every process started between
 * the two reads has its pid in this window, whatever it is now.
 */
export interface PidWindow {
  readonly after: number;
  readonly last: number;
}

/** Whether `pid` is one the kernel handed out in `window` (see {@link PidWindow}). */
export function inWindow(pid: number, { after, last }: PidWindow): boolean {
  return after <= last ? pid > after && pid <= last : pid > after || pid <= last;
}

/** Most passes {@link followPidWindows} makes before it gives up on catching up. */
export const CATCH_UP_PASSES = 64;

/**
 * Catches a listing up with what started while it ran: reads the last pid handed out
 * (`lastPid`), hands the window of pids handed out since `since` (the last pid read when the listing
 * began) to `examine`, and again from there, until a pass in which no pid was handed out (every
 * process started since `since` was then examined: one that ended meanwhile started its successor,
 * if it had one, before the window it is in was read, so the successor is in a window too).
 * A job that forks faster than a listing reads `/proc` is found under its newest pid, whatever the
 * listing's speed. Stops after `passes` passes on a host that never stops starting processes.
 * @returns true when it caught up (a pass without a new pid); false when it gave up, or `since`
 *   or the last pid cannot be read.
 */
export function followPidWindows(
  since: number | undefined,
  lastPid: () => number | undefined,
  examine: (window: PidWindow) => void,
  passes = CATCH_UP_PASSES,
): boolean {
  let after = since;
  for (let pass = 0; after !== undefined && pass < passes; pass++) {
    const last = lastPid();
    if (last === undefined) return false;
    if (last === after) return true;
    examine({ after, last });
    after = last;
  }
  return false;
}
