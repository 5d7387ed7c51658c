// Public surface of @adaptor/sessionrecorder.
export {
  SessionRecorder,
  toJsonEvent,
  type SessionRecorderOptions,
  type EventEncoder,
  type RecordOptions,
} from "./recorder/session-recorder.js";
export type { JsonForm } from "./recorder/json-form.js";
export type { EventBackend, EventLogWriter, RecordedEvent, RepairReport, BackendCallOptions, JsonValue } from "./backend/event-backend.js";
export { MemoryEventBackend } from "./memory/memory-event-backend.js";
export { JsonlEventBackend, DEFAULT_MAX_RECORD_BYTES, type JsonlEventBackendOptions } from "./jsonl/jsonl-event-backend.js";
export type { FsyncPolicy } from "./jsonl/jsonl-writer.js";
export { checkSessionKey, sessionKeyProblem, MAX_SESSION_KEY_LENGTH } from "./keys/session-key.js";
export {
  ErrInvalidSessionKey,
  ErrJSONLEventBackendClosed,
  ErrJSONLEventLogCorrupt,
  ErrEventLogLocked,
  ErrAppendsPending,
} from "./errors/sentinels.js";
export { AppendsPendingError, type PendingAppends } from "./errors/appends-pending-error.js";
export { InvalidSessionKeyError } from "./errors/invalid-session-key-error.js";
export { EventLogCorruptError, type EventLogCorruptionKind, type EventLogCorruptInit } from "./errors/event-log-corrupt-error.js";
export { EventLogLockedError, type LockHolder } from "./errors/event-log-locked-error.js";
