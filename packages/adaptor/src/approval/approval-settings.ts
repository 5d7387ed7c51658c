import type { ApprovalKind, ApprovalMode } from "@adaptor/driver";
import type { ApprovalFallback, ApprovalPolicy } from "../policy/policy.js";

/** Approval policy with every default applied. */
export interface ApprovalSettings {
  readonly modes: Readonly<Record<ApprovalKind, ApprovalMode>>;
  /** Deadline per ask in ms, or undefined for none. */
  readonly timeoutMs: number | undefined;
  readonly onTimeout: ApprovalFallback;
  readonly onReject: ApprovalFallback;
  readonly maxRetries: number;
}

/** Default deadline of one approval ask, in ms. */
export const DEFAULT_APPROVAL_TIMEOUT_MS = 30_000;

/** Applies the approval defaults (see {@link ApprovalPolicy}); `inherit` resolves to the kind's default. */
export function resolveApprovalSettings(policy: ApprovalPolicy = {}): ApprovalSettings {
  const mode = (kind: ApprovalKind, fallback: ApprovalMode): ApprovalMode => {
    const value = policy[kind];
    return value === undefined || value === "inherit" ? fallback : value;
  };
  const timeout = policy.timeoutMs ?? DEFAULT_APPROVAL_TIMEOUT_MS;
  return {
    modes: {
      permission: mode("permission", "ask"),
      plan_review: mode("plan_review", "ask"),
      question: mode("question", "auto_deny"),
      elicitation: mode("elicitation", "auto_deny"),
    },
    // Negative or Infinity: no deadline (finite values beyond Node's timer range are refused by the policy check).
    timeoutMs: timeout < 0 || timeout > 2 ** 31 - 1 ? undefined : timeout,
    onTimeout: policy.onTimeout ?? "abort",
    onReject: policy.onReject ?? "continue",
    maxRetries: policy.maxRetries ?? 3,
  };
}
