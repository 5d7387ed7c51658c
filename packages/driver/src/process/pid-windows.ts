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

/**
 * The processes (or anything keyed by pid) started in pid windows, read once for several readers
 * that ask, one right after the other, for windows that overlap: catch-ups made together, each
 * from the last pid it read before its own listing to the last pid handed out now. Each pid of the
 * span the windows cover together is read once; a window that wraps past the highest pid, or lies
 * apart from that span, is read as asked, not remembered. Meant to live for one synchronous pass:
 * what it holds is what was there when it was first read.
 */
export class SharedWindowReads<T extends { readonly pid: number }> {
  readonly #read: (window: PidWindow) => Iterable<T>;
  /** The span read so far, `(after, last]`; undefined before the first read. */
  #span: PidWindow | undefined;
  /** What was found in {@link #span}, by pid. */
  readonly #found = new Map<number, T>();

  /** @param read - reads what started in one window (as `startedIn` does). */
  constructor(read: (window: PidWindow) => Iterable<T>) {
    this.#read = read;
  }

  /** What started in `window`, by ascending pid (for a window that wraps: in the order read). */
  in(window: PidWindow): T[] {
    const { after, last } = window;
    if (after >= last) return [...this.#read(window)];
    const span = this.#span;
    if (span && (last < span.after || after > span.last)) return [...this.#read(window)].sort((a, b) => a.pid - b.pid);
    if (!span) this.#add(window);
    else {
      if (after < span.after) this.#add({ after, last: span.after });
      if (last > span.last) this.#add({ after: span.last, last });
    }
    this.#span = { after: Math.min(after, span?.after ?? after), last: Math.max(last, span?.last ?? last) };
    const found: T[] = [];
    if (last - after <= this.#found.size) {
      for (let pid = after + 1; pid <= last; pid++) {
        const each = this.#found.get(pid);
        if (each) found.push(each);
      }
      return found;
    }
    for (const [pid, each] of this.#found) if (pid > after && pid <= last) found.push(each);
    return found.sort((a, b) => a.pid - b.pid);
  }

  #add(window: PidWindow): void {
    for (const each of this.#read(window)) this.#found.set(each.pid, each);
  }
}
