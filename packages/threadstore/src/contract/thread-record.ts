/** Lifecycle of a thread record: one `active` record per key at most; replaced ones are `archived`. */
export type ThreadStatus = "active" | "archived";

/** Where a conversation resumes from (docs/design.md "Thread stores": checkpoints, never chat history). */
export interface CheckpointState {
  /** The id the CLI resumes by (Claude `session_id`, Codex thread id). */
  readonly resumeId: string;
  /** A second id for people, when the provider has one. */
  readonly displayId?: string;
  /**
   * Driver-specific JSON data, encoded by the record's codec: `null`, booleans, finite numbers,
   * strings, arrays and plain objects only (an object property set to `undefined` counts as
   * absent). `finalize` refuses anything else with a TypeError naming its path, on every store.
   */
  readonly data?: unknown;
}

/** One stored conversation. Times are UTC `Date`s. */
export interface ThreadRecord {
  /** Unique id of this record (UUID v7). */
  readonly id: string;
  /** The host's thread key; several records may share it, at most one `active`. */
  readonly key: string;
  /** `active` (the key's current conversation) or `archived` (replaced). */
  readonly status: ThreadStatus;
  /** Driver type that produced the checkpoint, e.g. `"claude"`. */
  readonly driverType: string;
  /** Host identity the thread belongs to (tenant, user), free-form. */
  readonly identity: string;
  /** Compatibility fingerprint (driver type, model, workspace, identity, driver config). */
  readonly fingerprint: string;
  /** Name of the codec that encoded `checkpoint.data`, e.g. `"json/v1"`. */
  readonly codec: string;
  /** Where the conversation resumes from. */
  readonly checkpoint: CheckpointState;
  /** When the record was first stored. */
  readonly createdAt: Date;
  /** When the record was last finalized; part of its version. */
  readonly updatedAt: Date;
  /**
   * Store-assigned write counter of this record: 1 when the record id is first written, then one
   * more on every later write of it (`finalize` of the same id, or archiving it through
   * `archiveId`). Together with `id` it names one committed state exactly, even for writes within
   * one millisecond: compare `id` and `revision` to ask "is the record still as I left it?", never
   * `updatedAt`.
   */
  readonly revision: number;
}

/**
 * A record as a caller hands it to `finalize`: a {@link ThreadRecord} whose `revision` the store
 * assigns (a `revision` given here is ignored).
 */
export type ThreadRecordDraft = Omit<ThreadRecord, "revision"> & { readonly revision?: number };
