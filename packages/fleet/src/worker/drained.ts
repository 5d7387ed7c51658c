import { walkError } from "@adaptor/errors";

/**
 * Whether a run's attempt was stopped by the worker's drain: the run failed with the drain's abort
 * reason (`stopping.reason`, the error itself or one in its `cause` chain), which is how a run ends
 * when its signal aborts. A run that failed by itself keeps its own verdict even when the drain's
 * timeout fired after it ended.
 */
export function stoppedByDrain(
  outcome: { readonly ok: true } | { readonly ok: false; readonly error: unknown },
  stopping: AbortSignal,
): boolean {
  if (outcome.ok || !stopping.aborted) return false;
  const reason: unknown = stopping.reason;
  return walkError(outcome.error, (node) => node === reason);
}
