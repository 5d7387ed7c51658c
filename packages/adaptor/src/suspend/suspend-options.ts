/**
 * How a thread turn suspends when an approval is asked (the `suspend` run option): instead of
 * waiting with a live CLI process, the turn stores the question, ends the CLI, releases the
 * thread's lease and resolves a `Result` whose `status` is `"suspended"`. Any host answers it
 * later with `thread.answer()`.
 */
export interface SuspendOptions {
  /**
   * How long the stored approval can be answered, in ms from the moment the turn suspends, in
   * [0, 2^31-1], or `Infinity` (the default) for no deadline. Judged by the store's clock.
   */
  readonly deadlineMs?: number;
  /**
   * What the store records when the deadline passes unanswered (once, at the next access, even
   * if no host was running at that moment): `"abort"` (default: the turn is not continued) or
   * `"deny"` (`thread.resume()` continues the turn with a denial).
   */
  readonly onDeadline?: "deny" | "abort";
}
