import { sentinel } from "@adaptor/errors";

// threadstore identities (docs/errors.md "Thread store errors"); the root Thread API translates them.

/** `acquireLease` while another owner holds a live lease. */
export const ErrBusy = sentinel("adaptor.threadstore.Busy", "lease busy");
/** `renewLease` or `finalize` after owner, token or expiry validation failed. */
export const ErrLeaseLost = sentinel("adaptor.threadstore.LeaseLost", "lease lost");
/** A conditional `finalize` found the key it required to be absent. */
export const ErrAlreadyExists = sentinel("adaptor.threadstore.AlreadyExists", "already exists");
/** A thread key breaks the key rules (lone surrogate, whitespace only, a control or bidi control character, over the length limit); see `checkThreadKey`. */
export const ErrInvalidThreadKey = sentinel("adaptor.threadstore.InvalidThreadKey", "invalid thread key");
/** A stored approval is not pending: already answered, expired, closed or unknown (see `ApprovalNotPendingError`). */
export const ErrApprovalNotPending = sentinel("adaptor.threadstore.ApprovalNotPending", "approval not pending");
/** A `finalize` whose session state would exceed its `limitBytes` (see `SessionStateWrite`); nothing was written. */
export const ErrSessionStateTooLarge = sentinel("adaptor.threadstore.SessionStateTooLarge", "session state too large");
