import type { SegmentSummary } from "./segment-summary.js";

/**
 * One write of a thread's session state (the CLI's own files a resume needs, as the SDK encoded
 * them), committed by `finalize` in the same transaction as the record: both are written or
 * neither. The store keeps it per record id and treats segments and manifest as opaque.
 */
export interface SessionStateWrite {
  /**
   * `"append"`: `segments` follow the segments already stored for the record (none stored: they
   * are the first). `"replace"`: they replace every segment stored for the record.
   */
  readonly mode: "append" | "replace";
  /** Opaque bytes, in order; may be empty (only the manifest changes). */
  readonly segments: readonly Uint8Array[];
  /**
   * JSON-serialisable description of the whole state after this write; stored and returned as is.
   * It replaces the stored manifest whole, in either mode: no field of the previous one is kept.
   */
  readonly manifest: unknown;
  /**
   * The most bytes the record's segments may hold after this write (the sum of all stored segment
   * lengths), a positive safe integer. Over it, `finalize` rejects with `SessionStateTooLargeError`
   * and writes nothing (neither the record nor the state).
   */
  readonly limitBytes: number;
}

/** What a store holds for one record's session state (without the segment bytes). */
export interface StoredSessionState {
  /**
   * The manifest of the last write. A stored manifest the backend cannot parse (a damaged row) is
   * returned as its raw text rather than failing the read, so the caller can report the state as
   * damaged instead of as a backend failure.
   */
  readonly manifest: unknown;
  /** Number of stored segments. */
  readonly segments: number;
  /** Sum of the stored segments' byte lengths. */
  readonly bytes: number;
}

/**
 * The optional session-state capability of a thread store (`ThreadStore.sessionState`). A store
 * that has it accepts `FinalizeRequest.sessionState` and keeps it atomically with the record; the
 * conformance kit checks it (round trip, append, atomic with `finalize`, limit, stale lease).
 * A store without it keeps checkpoints only: conversations then live in each host's CLI home.
 */
export interface SessionStateStore {
  /** The state stored for record `recordId`, or `undefined` when there is none. @throws DriverError for backend failures. */
  read(recordId: string, signal?: AbortSignal): Promise<StoredSessionState | undefined>;
  /**
   * Every stored segment of record `recordId`, in order (`[]` when none), each a copy: a caller
   * changing one in place changes nothing stored (and neither does changing a segment passed to
   * `finalize` after it resolved). @throws DriverError for backend failures.
   */
  segments(recordId: string, signal?: AbortSignal): Promise<Uint8Array[]>;
  /**
   * Optional: the stored segments of record `recordId` from index `from` (0-based, in the order of
   * {@link segments}) on: what `segments(recordId)` holds after its first `from`, read without the
   * earlier ones (`[]` when there are no more), copies as {@link segments} returns. A host that
   * holds an older copy of the session reads only what it lacks. Without it the SDK reads every segment and skips the first `from`.
   * @throws RangeError when `from` is not a non-negative safe integer; DriverError for backend failures.
   */
  segmentsFrom?(recordId: string, from: number, signal?: AbortSignal): Promise<Uint8Array[]>;
  /**
   * Optional: a {@link SegmentSummary} of record `recordId`'s segments, computed from the segments
   * the store actually holds (its rows, files or objects: how many, their lengths, and the
   * {@link segmentTag} kept with each, by position), never from counters kept beside them, and
   * without reading the segments' bytes (a warm turn's cost must not grow with the history). All
   * zeros when none are stored.
   *
   * The SDK calls it when a turn begins, before the CLI continues the conversation, and compares it
   * with what its own writes left: a store that lost, shortened or reordered a stored segment fails
   * the turn with `ErrThreadSessionCorrupt` there, instead of on another host many turns later.
   * Without it, such a loss is found only when a host restores the segments.
   * @throws DriverError for backend failures.
   */
  summary?(recordId: string, signal?: AbortSignal): Promise<SegmentSummary>;
}
