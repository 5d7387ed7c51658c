export {
  ErrBusy,
  ErrLeaseLost,
  ErrAlreadyExists,
  ErrInvalidThreadKey,
  ErrSessionStateTooLarge,
  ErrApprovalNotPending,
} from "./errors/sentinels.js";
export { ApprovalNotPendingError } from "./errors/approval-not-pending-error.js";
export { BusyError, type LeaseHolder } from "./errors/busy-error.js";
export { LeaseLostError } from "./errors/lease-lost-error.js";
export { AlreadyExistsError } from "./errors/already-exists-error.js";
export { InvalidThreadKeyError } from "./errors/invalid-thread-key-error.js";
export { SessionStateTooLargeError } from "./errors/session-state-too-large-error.js";
export type { SessionStateWrite, StoredSessionState, SessionStateStore } from "./session-state/session-state.js";
export {
  segmentSummaryAfter,
  segmentTag,
  checksumTerm,
  SEGMENT_CHECKSUM_MODULUS,
  type SegmentSummary,
} from "./session-state/segment-summary.js";
export { MAX_THREAD_KEY_BYTES, threadKeyProblem, checkThreadKey } from "./keys/thread-key.js";
export type { ThreadStatus, CheckpointState, ThreadRecord, ThreadRecordDraft } from "./contract/thread-record.js";
export type { Lease } from "./contract/lease.js";
export type { ThreadStore, ResolveQuery, FinalizeRequest } from "./contract/thread-store.js";
export {
  checkLeaseArgs,
  checkLease,
  checkTtl,
  checkResolveQuery,
  checkFinalizeRequest,
  checkSessionStateWrite,
  checkSegmentIndex,
  sessionStateBytesAfter,
} from "./contract/argument-checks.js";
export { ReleasedLeases } from "./released-leases/released-leases.js";
export type { StoreFaults, StoreOperation, FinalizeStep } from "./faults/store-faults.js";
export { MemoryThreadStore, type MemoryThreadStoreOptions } from "./memory/memory-thread-store.js";
export {
  supportsPendingApprovals,
  DEADLINE_PASSED_REASON,
  type PendingApprovalStore,
  type PendingApprovalOperation,
  type PendingApproval,
  type PendingApprovalDraft,
  type PendingApprovalStatus,
  type StoredApprovalDecision,
  type ApprovalCheckpointRef,
} from "./contract/pending-approvals.js";
export { checkApprovalId, checkPendingApprovalDraft, checkStoredDecision, storedDeadline } from "./contract/pending-approval-checks.js";
export {
  supportsThreadCatalog,
  checkListThreadsQuery,
  compareKeys,
  DEFAULT_THREAD_PAGE_LIMIT,
  MAX_THREAD_PAGE_LIMIT,
  type ThreadCatalogStore,
  type ListThreadsQuery,
  type CheckedThreadsQuery,
  type ThreadSummary,
  type ThreadPage,
  type DeletedThread,
} from "./contract/thread-catalog.js";
