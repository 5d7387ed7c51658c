import type { ApprovalRequest } from "./approval-request.js";

/**
 * Host-side approval handler: decide by calling `request.approve()`, `deny()` or `answer()`.
 * Throwing before the request was decided aborts the run with the thrown value as cause;
 * returning without deciding is an agent failure. Either way the CLI is answered with a deny.
 * Once the request was decided (by this handler, another answer, the deadline's fallback or the
 * run's end), the run has moved on: a throw then, such as the `ErrApprovalExpired` of an answer
 * that came too late, only adds a `notice` (kind `approval.handler-error`) and never fails the run.
 */
export type ApprovalHandler = (request: ApprovalRequest, context: { readonly signal: AbortSignal }) => void | Promise<void>;

/** Handler that approves every permission and plan review and denies questions (nobody to answer them). */
export function approveAll(): ApprovalHandler {
  return (request) => {
    if (request.kind === "question") request.deny("no one is available to answer questions");
    else request.approve();
  };
}

/** Handler that denies everything with `reason`. */
export function denyAll(reason = "denied by host"): ApprovalHandler {
  return (request) => request.deny(reason);
}
