import type { Lease } from "../contract/lease.js";
import { checkApprovalId, checkPendingApprovalDraft, checkStoredDecision, storedDeadline } from "../contract/pending-approval-checks.js";
import {
  DEADLINE_PASSED_REASON,
  type PendingApprovalOperation,
  type PendingApproval,
  type PendingApprovalDraft,
  type StoredApprovalDecision,
} from "../contract/pending-approvals.js";
import { ApprovalNotPendingError } from "../errors/approval-not-pending-error.js";
import { LeaseLostError } from "../errors/lease-lost-error.js";
import { checkLease } from "../contract/argument-checks.js";
import { checkThreadKey } from "../keys/thread-key.js";

/** What the memory store lends its pending approvals: its clock, its lease check and its entry check. */
export interface MemoryPendingApprovalsHost {
  readonly now: () => number;
  readonly holds: (lease: Lease) => boolean;
  readonly enter: (operation: PendingApprovalOperation, signal: AbortSignal | undefined) => void;
}

/** The pending-approvals capability of `MemoryThreadStore` (see `PendingApprovalStore`). */
export class MemoryPendingApprovals {
  readonly #host: MemoryPendingApprovalsHost;
  readonly #rows = new Map<string, PendingApproval>();

  constructor(host: MemoryPendingApprovalsHost) {
    this.#host = host;
  }

  async save(approval: PendingApprovalDraft, lease: Lease, signal?: AbortSignal): Promise<PendingApproval> {
    checkPendingApprovalDraft(approval);
    checkLease(lease);
    this.#host.enter("savePendingApproval", signal);
    if (lease.target !== approval.key || !this.#host.holds(lease)) throw new LeaseLostError(lease.target);
    if (this.#rows.has(approval.id)) throw new TypeError(`savePendingApproval: id ${approval.id} is already stored`);
    const copy = structuredClone(approval);
    const { deadlineMs: _estimate, deadline: _hostDeadline, ...draft } = copy;
    const deadline = storedDeadline(copy, this.#host.now()); // the copy's: the caller may change its Date later
    const row: PendingApproval = { ...draft, ...(deadline !== undefined ? { deadline } : {}), status: "pending" };
    this.#rows.set(row.id, row);
    return structuredClone(row);
  }

  async list(key: string, signal?: AbortSignal): Promise<PendingApproval[]> {
    checkThreadKey(key, "listPendingApprovals: key");
    this.#host.enter("listPendingApprovals", signal);
    const rows = [...this.#rows.values()].filter((row) => row.key === key).map((row) => this.#expire(row));
    return rows
      .filter((row) => row.status !== "closed")
      .sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime() || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
      .map((row) => structuredClone(row));
  }

  async get(id: string, signal?: AbortSignal): Promise<PendingApproval | undefined> {
    checkApprovalId(id);
    this.#host.enter("getPendingApproval", signal);
    const row = this.#rows.get(id);
    return row && structuredClone(this.#expire(row));
  }

  async answer(id: string, decision: StoredApprovalDecision, signal?: AbortSignal): Promise<PendingApproval> {
    checkApprovalId(id);
    checkStoredDecision(decision);
    this.#host.enter("answerPendingApproval", signal);
    const found = this.#rows.get(id);
    if (!found) throw new ApprovalNotPendingError(id, "unknown");
    const row = this.#expire(found);
    if (row.status !== "pending") throw new ApprovalNotPendingError(id, row.status);
    const answered: PendingApproval = {
      ...row,
      status: "answered",
      decision: structuredClone(decision),
      resolvedAt: new Date(this.#host.now()),
    };
    this.#rows.set(id, answered);
    return structuredClone(answered);
  }

  async close(id: string, lease: Lease, signal?: AbortSignal): Promise<PendingApproval> {
    checkApprovalId(id);
    checkLease(lease);
    this.#host.enter("closePendingApproval", signal);
    const found = this.#rows.get(id);
    if (!found) throw new ApprovalNotPendingError(id, "unknown");
    if (lease.target !== found.key || !this.#host.holds(lease)) throw new LeaseLostError(lease.target);
    const closed: PendingApproval = { ...this.#expire(found), status: "closed" };
    this.#rows.set(id, closed);
    return structuredClone(closed);
  }

  /** Removes every approval of `key`, whatever its status; returns how many (the caller checked the key and entered). */
  deleteKey(key: string): number {
    let removed = 0;
    for (const [id, row] of this.#rows) {
      if (row.key !== key) continue;
      this.#rows.delete(id);
      removed += 1;
    }
    return removed;
  }

  /** Applies a passed deadline once: `pending` → `expired` with the fallback recorded. */
  #expire(row: PendingApproval): PendingApproval {
    const now = this.#host.now();
    if (row.status !== "pending" || row.deadline === undefined || now < row.deadline.getTime()) return row;
    const expired: PendingApproval = {
      ...row,
      status: "expired",
      decision: { outcome: "deny", reason: DEADLINE_PASSED_REASON },
      resolvedAt: new Date(now),
    };
    this.#rows.set(row.id, expired);
    return expired;
  }
}
