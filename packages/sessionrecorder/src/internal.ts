// `@adaptor/sessionrecorder/internal`: plumbing shared with other event backends of the SDK (the
// record's JSON form, the closed-backend error, a close bounded by a signal). Not a stable API: no semver promise.

export { encodeRecord, decodeRecord } from "./backend/encode-record.js";
export { closedError } from "./errors/closed.js";
export { throwIfAborted } from "./backend/abort.js";
export { closeWithin } from "./backend/close-within.js";
