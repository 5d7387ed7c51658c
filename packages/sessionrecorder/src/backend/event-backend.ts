/** A JSON value: what a backend stores for each event. */
export type JsonValue = null | boolean | number | string | readonly JsonValue[] | { readonly [key: string]: JsonValue };

/** One recorded event: the host-side sequence, the time of the append, the event. */
export interface RecordedEvent<E = JsonValue> {
  /** Per session key, from 1, strictly increasing by one; continues across writers and restarts. */
  readonly sequence: number;
  /** When the event was appended, ISO 8601 (UTC). */
  readonly recordedAt: string;
  /** The event as stored (a JSON value). */
  readonly event: E;
}

/** Options of the backend operations that may wait on I/O. */
export interface BackendCallOptions {
  /** Aborts the operation; it then rejects with `signal.reason`. */
  readonly signal?: AbortSignal;
}

/** What `repair(key)` did. */
export interface RepairReport {
  /** The session key. */
  readonly key: string;
  /** Bytes cut off the end of the log (a torn final line); 0 when the log was sound. */
  readonly truncatedBytes: number;
  /** The last sequence left in the log (0 for an empty or missing log). */
  readonly lastSequence: number;
}

/**
 * The one writer of a session key's log. Appends are ordered as called; each resolves once the
 * record is stored as durably as the backend promises (see the backend's `fsync` policy).
 */
export interface EventLogWriter extends AsyncDisposable {
  /** The session key. */
  readonly key: string;
  /** The sequence of the last record appended (resolved or not), 0 for an empty log. */
  readonly lastSequence: number;
  /**
   * Appends one event and resolves with its record (holding `event` itself; replay yields the
   * stored JSON). The sequence is assigned at the call, so appends are stored in call order.
   * @throws a `DriverError` coded `INVALID` when `event` cannot be written as JSON (a cycle, a
   * BigInt); the backend-closed error (`ErrJSONLEventBackendClosed`) after `close()`; an I/O error
   * (then every later append fails too: close the writer and `repair` the log).
   */
  append(event: JsonValue): Promise<RecordedEvent>;
  /**
   * Waits for pending appends, makes them durable, releases the key. Idempotent. Appends are
   * refused from the call on.
   * @throws AppendsPendingError (`ErrAppendsPending`) naming the appends that had not answered when
   * `options.signal` aborted first (the writer stays closed; they may still be stored and the key
   * is released once they answer); `signal.reason` when it aborted with none pending.
   */
  close(options?: BackendCallOptions): Promise<void>;
}

/**
 * Where recorded events live: one append-only log per session key, one writer per key at a time.
 * Every operation checks the key (`ErrInvalidSessionKey`) and fails with
 * `ErrJSONLEventBackendClosed` after `close()`.
 */
export interface EventBackend extends AsyncDisposable {
  /**
   * Takes the key's writer. The next sequence continues from the log's last record.
   * @throws EventLogLockedError (`ErrEventLogLocked`) while another writer holds the key;
   * EventLogCorruptError (`ErrJSONLEventLogCorrupt`) when the log ends in a torn line (call `repair`).
   */
  openWriter(key: string, options?: BackendCallOptions): Promise<EventLogWriter>;
  /**
   * Yields the key's records in order, exactly as written, as present when the replay starts (a
   * missing log yields nothing). A record being written by a live writer at that moment is not
   * yet part of the log.
   * @throws EventLogCorruptError after yielding every record before the offending line.
   */
  replay(key: string, options?: BackendCallOptions): AsyncIterable<RecordedEvent>;
  /**
   * Cuts a torn final line (an append a crash interrupted) off the key's log. A sound log is left
   * as it is. Needs the key's writer lock for the duration.
   * @throws EventLogCorruptError for any other corruption (not repairable: kept for inspection);
   * EventLogLockedError while a writer holds the key.
   */
  repair(key: string, options?: BackendCallOptions): Promise<RepairReport>;
  /**
   * Closes every open writer (their pending appends complete first), then refuses all operations.
   * Idempotent: a later call waits for the same close.
   * @throws AppendsPendingError (`ErrAppendsPending`) naming, per writer, the appends that had not
   * answered when `options.signal` aborted first (a store that stopped answering); the backend
   * stays closed, the appends may still be stored, and their writers release their keys once they
   * answer (a later `close()` without a signal waits for that). `signal.reason` when it aborted
   * with no append pending.
   */
  close(options?: BackendCallOptions): Promise<void>;
}
