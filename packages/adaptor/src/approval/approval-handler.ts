import type { ApprovalRequest } from "./approval-request.js";

/**
 * Host-side approval handler: decide by calling `request.approve()`, `deny()` or `answer()`.
 * A throw aborts the run ("approval handler failed", the thrown value as cause): before a decision
 * the CLI is answered with a deny; after one (e.g. the `ErrApprovalEditUnsupported` of an
 * `approve({ updatedInput })` the agent cannot run, which denied the call) that decision stands.
 * Only the `ErrApprovalResolved` / `ErrApprovalExpired` of an answer that lost to another answer or
 * to an expiry leaves the run alone (a `notice` `approval.late-answer` records it). Returning
 * without deciding is an agent failure.
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
