import type { ApprovalKind, ApprovalMode, DriverCapabilities } from "../spi/descriptor.js";

/** Every approval kind, in the order policies, errors and docs list them. */
export const APPROVAL_KINDS: readonly ApprovalKind[] = Object.freeze(["permission", "plan_review", "question", "elicitation"]);

/**
 * The modes each approval kind can take at all (its domain): a value outside it is
 * `InvalidPolicyError`, one inside it that a driver does not list (see {@link approvalModes}) is
 * `HumanDecisionModeUnsupportedError`. A `question` or an `elicitation` has no `auto_approve`: only
 * a person can answer one.
 */
export const APPROVAL_MODES_BY_KIND: Readonly<Record<ApprovalKind, readonly ApprovalMode[]>> = Object.freeze({
  permission: Object.freeze(["inherit", "ask", "auto_approve", "auto_deny"] as const),
  plan_review: Object.freeze(["inherit", "ask", "auto_approve", "auto_deny"] as const),
  question: Object.freeze(["inherit", "ask", "auto_deny"] as const),
  elicitation: Object.freeze(["inherit", "ask", "auto_deny"] as const),
});

/**
 * The approval modes `capabilities` lists for `kind`; `["inherit"]` for an `elicitation` a driver
 * does not list (it relays no MCP server's elicitation).
 */
export function approvalModes(capabilities: Pick<DriverCapabilities, "approvals">, kind: ApprovalKind): readonly ApprovalMode[] {
  return capabilities.approvals[kind] ?? ["inherit"];
}
