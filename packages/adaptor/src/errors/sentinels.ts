import { sentinel } from "@adaptor/errors";

// Root identities owned by `adaptor` (docs/errors.md). Leaf identities are re-exported from their owner
// packages in ../index.ts, never copied.

/** `agent.close()` has started; new runs on the agent or its threads fail with this. */
export const ErrAgentClosed = sentinel("adaptor.AgentClosed", "agent closed");

// Root business failures: every one is carried by a RunError.

/** A host or auto policy denied an approval and the fallback aborted. Reason `approval_denied`. */
export const ErrApprovalDenied = sentinel("adaptor.ApprovalDenied", "approval denied");
/** An approval deadline elapsed and the fallback aborted. Reason `approval_timeout`. */
export const ErrApprovalTimeout = sentinel("adaptor.ApprovalTimeout", "approval timeout");
/** The driver classified an agent-level failure (bad terminal protocol, non-zero exit, API error). Reason `agent_error`. */
export const ErrAgentFailed = sentinel("adaptor.AgentFailed", "agent failed");
/** The driver returned a classified cancellation. Reason `cancelled`. An aborted signal does NOT match this. */
export const ErrRunCancelled = sentinel("adaptor.RunCancelled", "run cancelled");
/** A completed invocation violated a run policy (including invalid structured output). Reason `policy_violation`. */
export const ErrPolicyViolation = sentinel("adaptor.PolicyViolation", "policy violation");

// Root Thread errors: the Thread API translates store failures into these.

/** A stateful Thread operation was requested without a thread store. */
export const ErrThreadStoreRequired = sentinel("adaptor.ThreadStoreRequired", "thread store required");
/** A resume-only key or fork parent has no active record. */
export const ErrThreadNotFound = sentinel("adaptor.ThreadNotFound", "thread not found");
/** Another owner holds the thread's lease. */
export const ErrThreadBusy = sentinel("adaptor.ThreadBusy", "thread busy");
/** Driver, config, identity or codec compatibility failed. */
export const ErrThreadIncompatible = sentinel("adaptor.ThreadIncompatible", "thread incompatible");
/** The run lost its lease, so its state was not persisted. */
export const ErrThreadLeaseLost = sentinel("adaptor.ThreadLeaseLost", "thread lease lost");
/** A nominally successful run did not prove a healthy resumable checkpoint. */
export const ErrThreadCheckpointMissing = sentinel("adaptor.ThreadCheckpointMissing", "thread checkpoint missing");
/** A fork target key already has an active conversation. */
export const ErrThreadAlreadyExists = sentinel("adaptor.ThreadAlreadyExists", "thread already exists");
/** The driver rejected a resume and the mode did not allow a fresh retry. */
export const ErrResumeRejected = sentinel("adaptor.ResumeRejected", "resume rejected");
/**
 * Portable sessions: the CLI's session files of the checkpoint are not available where they are
 * needed: a turn's files could not be exported (strict portability), a checkpoint committed without
 * them is resumed on a host that lacks them, or stored files could not be written into this host's
 * CLI home. Typed error: `ThreadSessionError` (`reason`).
 */
export const ErrThreadSessionUnavailable = sentinel("adaptor.ThreadSessionUnavailable", "thread session unavailable");
/** Portable sessions: a turn's session state would exceed the per-thread limit (strict portability); the previous checkpoint is kept. */
export const ErrThreadSessionTooLarge = sentinel("adaptor.ThreadSessionTooLarge", "thread session too large");
/**
 * Portable sessions: the record says the store holds its checkpoint's session files, but they are
 * gone or damaged (no state row, a missing or corrupt segment, a checksum mismatch, an unreadable
 * manifest). The run does not start. Also matches {@link ErrThreadSessionUnavailable}.
 */
export const ErrThreadSessionCorrupt = sentinel("adaptor.ThreadSessionCorrupt", "thread session state corrupt", {
  also: [ErrThreadSessionUnavailable],
});
/**
 * Portable sessions: during the turn the CLI rewrote a session file instead of appending to it
 * (shorter, or no longer beginning with the stored bytes). The turn is not committed: the previous
 * checkpoint and stored files are kept, and the error carries the turn's `Result`.
 */
export const ErrThreadSessionRewritten = sentinel("adaptor.ThreadSessionRewritten", "thread session rewritten");

// Approval responder errors: thrown by ApprovalRequest.approve / deny / answer.

/** A response already won the exactly-once race. */
export const ErrApprovalResolved = sentinel("adaptor.ApprovalResolved", "approval already resolved");
/** The deadline or the owning run ended before this response. Also matches {@link ErrApprovalResolved}. */
export const ErrApprovalExpired = sentinel("adaptor.ApprovalExpired", "approval expired", {
  also: [ErrApprovalResolved],
});
/**
 * The response method does not fit the request kind (approve on a question; answer on a plan
 * review, or on a permission that lists no `choices`).
 */
export const ErrApprovalKindMismatch = sentinel("adaptor.ApprovalKindMismatch", "approval kind mismatch");
/**
 * `approve({ updatedInput })` on a request whose driver cannot run an edited input
 * (`request.inputEditable` is false): the request was denied instead, so neither input runs.
 */
export const ErrApprovalEditUnsupported = sentinel("adaptor.ApprovalEditUnsupported", "approval edit unsupported");
/** The request has no run-owned responder. */
export const ErrApprovalUnavailable = sentinel("adaptor.ApprovalUnavailable", "approval unavailable");

// Suspended turns.

/** A run asked to suspend (`suspend` option) or a thread's pending approvals were used where that cannot work: see `SuspendUnsupportedError`. */
export const ErrSuspendUnsupported = sentinel("adaptor.SuspendUnsupported", "suspend unsupported");

// Managing threads.

/** Threads were listed or deleted through a store without the thread-catalog capability: see `ThreadCatalogUnsupportedError`. */
export const ErrThreadCatalogUnsupported = sentinel("adaptor.ThreadCatalogUnsupported", "thread catalog unsupported");

/** A file checkpoint (`checkpointFiles`) or a `thread.rewind()` could not be taken or applied; see `FileCheckpointError`. */
export const ErrFileCheckpoint = sentinel("adaptor.FileCheckpoint", "file checkpoint failed");
