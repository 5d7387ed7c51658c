import type { PendingApprovalOperation } from "../contract/pending-approvals.js";

/**
 * The store operations a {@link StoreFaults.beforeOperation} hook sees, named after the `ThreadStore`
 * methods (`sessionState`: either read of the session-state capability; the pending-approvals
 * methods and the thread-catalog methods by their names).
 */
export type StoreOperation =
  | "resolve"
  | "acquireLease"
  | "renewLease"
  | "releaseLease"
  | "finalize"
  | "sessionState"
  | "listThreads"
  | "deleteThread"
  | PendingApprovalOperation;

/**
 * The points inside `finalize`'s transaction at which a store calls {@link StoreFaults.afterFinalizeStep}:
 * after the leases were validated, after `archiveId` was archived (or skipped), after the record was
 * written. Every point is before commit.
 */
export type FinalizeStep = "leases-checked" | "archived" | "record-written";

/**
 * Test-only fault hooks. A store accepts them as its `faults` constructor option and calls them at
 * fixed points, so the conformance kit (`@adaptor/threadstore/testing`) can make the backend fail
 * in the middle of an operation. A hook that throws must have exactly the effect of a backend
 * failure at that point: the operation rejects with an ordinary error whose `cause` chain holds
 * the thrown value, and inside `finalize` nothing is written (the transaction rolls back).
 * Hooks are synchronous. Production code passes none.
 */
export interface StoreFaults {
  /** Called first in every operation (after argument and signal checks); throwing simulates an unreachable backend. */
  beforeOperation?(operation: StoreOperation): void;
  /** Called inside `finalize`'s transaction after each {@link FinalizeStep}, before commit. */
  afterFinalizeStep?(step: FinalizeStep): void;
  /**
   * Whether {@link afterFinalizeStep} may throw in the next `finalize`. A store that writes in
   * one statement without an explicit transaction (PostgreSQL) opens one only then, so the hook
   * can fail it after its steps; absent means "maybe".
   */
  finalizeStepArmed?(): boolean;
}
