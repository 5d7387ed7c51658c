import { AdaptorError } from "@adaptor/errors";
import type { PendingApprovalStatus } from "../contract/pending-approvals.js";
import { ErrApprovalNotPending } from "./sentinels.js";

/**
 * A stored approval cannot be answered (or resumed) because it is not in the state the call needs:
 * already answered, expired, closed, or unknown. Matches {@link ErrApprovalNotPending}.
 */
export class ApprovalNotPendingError extends AdaptorError {
  static override readonly brand: symbol = Symbol.for("adaptor.error.ApprovalNotPendingError");
  static override readonly sentinel = ErrApprovalNotPending;
  /** The approval id. */
  readonly id: string;
  /** What the store holds for it; `"unknown"` when nothing. */
  readonly status: PendingApprovalStatus | "unknown";

  constructor(id: string, status: PendingApprovalStatus | "unknown", detail?: string) {
    super(`approval ${id} is not pending (${status})${detail ? `: ${detail}` : ""}`);
    this.id = id;
    this.status = status;
  }
}
