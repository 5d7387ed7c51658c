import { DEFAULT_DENY_REASON, type ApprovalRequest } from "./approval-request.js";

/**
 * Host-side approval handler: decide by calling `request.approve()`, `deny()` or `answer()`.
 * A throw aborts the run ("approval handler failed", the thrown value as cause): before a decision
 * the CLI is answered with a deny; after one (e.g. the `ErrApprovalEditUnsupported` of an
 * `approve({ updatedInput })` the agent cannot run, which denied the call) that decision stands.
 * Only the `ErrApprovalResolved` / `ErrApprovalExpired` of an answer that lost to another answer or
 * to an expiry leaves the run alone (a `notice` `approval.late-answer` records the first such answer of a request). Returning
 * without deciding is an agent failure.
 */
export type ApprovalHandler = (request: ApprovalRequest, context: ApprovalHandlerContext) => void | Promise<void>;

/** What an {@link ApprovalHandler} is given with the request. */
export interface ApprovalHandlerContext {
  /** The run's signal: aborted when the run is cancelled or ends. */
  readonly signal: AbortSignal;
  /**
   * For a handler whose answers are recorded somewhere else before it applies them (a database
   * other hosts answer in): makes the request's deadline (`policy.approvals.timeoutMs`) ask
   * `check` first instead of expiring the request at once. When the deadline comes while the
   * request is pending, the SDK calls `check()` and the request stays pending until it settles: an
   * answer applied meanwhile (by `check` itself, or by the handler) wins. Then a request still
   * pending expires as the deadline says (the `onTimeout` fallback). So `check` is where the
   * handler closes its record of the request to answers, in one step with learning whether an
   * answer was recorded first, and applies that answer if so. A `check` that rejects counts as
   * settled (a `notice` of kind `approval.handler-error` records it). Once `check` was called the
   * handler may return without deciding: the deadline decides. Without a deadline it is never
   * called; a later call replaces the check.
   */
  beforeDeadline(check: () => Promise<void>): void;
}

/** Handler that approves every permission and plan review and denies questions (nobody to answer them). */
export function approveAll(): ApprovalHandler {
  return (request) => {
    if (request.kind === "question") request.deny("no one is available to answer questions");
    else request.approve();
  };
}

/** Handler that denies everything with `reason`. */
export function denyAll(reason = DEFAULT_DENY_REASON): ApprovalHandler {
  return (request) => request.deny(reason);
}
