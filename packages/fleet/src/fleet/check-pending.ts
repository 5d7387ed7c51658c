import { checkOptions, InvalidOptionError, type OptionCheck } from "@adaptor/errors";
import { checkThreadKey } from "@adaptor/threadstore";

/** Options of `fleet.pendingApprovals()` once checked. */
export interface CheckedPendingOptions {
  readonly threadKey?: string;
  readonly limit: number;
}

const limit: OptionCheck = (value, field, subject) => {
  if (!Number.isInteger(value) || (value as number) < 1 || (value as number) > 1000)
    throw new InvalidOptionError({ subject, field, reason: `must be an integer from 1 to 1000, got ${String(value)}` });
};

/**
 * Checks `fleet.pendingApprovals()`'s options as every other options object is checked: a plain
 * object (or undefined) with known keys only, so a misspelt `limt` is refused, not read as the default.
 * @throws InvalidOptionError (subject `"fleet pendingApprovals"`) for options that are not an
 *   object, an unknown key (with the closest known name), or a `limit` (null included) that is not
 *   an integer from 1 to 1,000; InvalidThreadKeyError (TypeError for an empty one) for a bad `threadKey`.
 */
export function checkPendingOptions(options: unknown): CheckedPendingOptions {
  const checked = checkOptions<{ threadKey?: string; limit?: number }>("fleet pendingApprovals", options, {
    threadKey: (value) => checkThreadKey(value as string),
    limit,
  });
  return { ...(checked.threadKey !== undefined ? { threadKey: checked.threadKey } : {}), limit: checked.limit ?? 100 };
}
