import { AppendsPendingError, type PendingAppends } from "../errors/appends-pending-error.js";
import { untilAborted } from "./abort.js";

/**
 * Waits for `closing` (a close that lets pending appends complete first), but not past `signal`'s
 * abort: then rejects with {@link AppendsPendingError} naming `pending()` as it is at that moment,
 * or with `signal.reason` when no append is pending (the close itself is slow: a key's release);
 * `closing` goes on either way, its own rejection handled. Without a signal, `closing` as it is.
 */
export async function closeWithin(
  closing: Promise<void>,
  signal: AbortSignal | undefined,
  pending: () => readonly PendingAppends[],
): Promise<void> {
  try {
    await untilAborted(closing, signal);
  } catch (error) {
    if (!signal?.aborted || error !== signal.reason) throw error;
    const left = pending();
    throw left.length === 0 ? error : new AppendsPendingError(left, signal.reason);
  }
}
