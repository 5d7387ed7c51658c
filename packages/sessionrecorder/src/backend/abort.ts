import { raceAbort } from "@adaptor/errors/internal";

/** Throws `signal.reason` when the signal is aborted. */
export function throwIfAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw signal.reason;
}

/**
 * `work`, but rejecting with `signal.reason` as soon as `signal` aborts (`work` is then left
 * behind: its own rejection is handled, its result dropped). Without a signal, `work` as it is.
 */
export function untilAborted<T>(work: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  return signal ? raceAbort(work, signal) : work;
}
