import { sentinel } from "@adaptor/errors";

// Session recorder identities (docs/errors.md "Session recorder errors"); the root `adaptor`
// package re-exports these very objects.

/** A recorder or backend key validator, or the mandatory path-containment check, refused a session key. */
export const ErrInvalidSessionKey = sentinel("adaptor.sessionrecorder.InvalidSessionKey", "invalid session key");
/** An operation was attempted after the event backend (or the writer) was closed. */
export const ErrJSONLEventBackendClosed = sentinel("adaptor.sessionrecorder.JSONLEventBackendClosed", "event backend closed");
/** A malformed, truncated or inconsistent JSONL event log could not be replayed faithfully. */
export const ErrJSONLEventLogCorrupt = sentinel("adaptor.sessionrecorder.JSONLEventLogCorrupt", "event log corrupt");
/** Another writer (in this or another process) holds the session key's log. */
export const ErrEventLogLocked = sentinel("adaptor.sessionrecorder.EventLogLocked", "event log locked");
/** A backend's or writer's `close()` gave up, on its signal, waiting for appends the store had not answered. */
export const ErrAppendsPending = sentinel("adaptor.sessionrecorder.AppendsPending", "appends pending");
