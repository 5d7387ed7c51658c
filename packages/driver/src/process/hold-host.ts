/** Longest delay a Node timer takes (about 12 days here; the interval only has to stay armed). */
const HOLD_INTERVAL_MS = 2 ** 30;

/**
 * Keeps the host's event loop alive until `work` settles, and returns it unchanged. For an await
 * whose only pending handles are unref'd (a parked child, its pipes, the sweep's timers) or already
 * closed (a reaped child): without a ref'd handle Node would find its loop empty and exit with code
 * 13 ("unsettled top-level await") while the caller still waits. Nothing is held once `work`
 * settles, so an idle host still exits.
 */
export function holdHostWhile<T>(work: Promise<T>): Promise<T> {
  const hold = setInterval(() => undefined, HOLD_INTERVAL_MS);
  const release = (): void => clearInterval(hold);
  work.then(release, release);
  return work;
}
