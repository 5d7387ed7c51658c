import type { SessionStateStore, SessionStateWrite } from "../session-state/session-state.js";
import type { Lease } from "./lease.js";
import type { ThreadRecord, ThreadRecordDraft } from "./thread-record.js";

/** How to find a record: by record id, or the active record of a key (optionally archived ones too). */
export type ResolveQuery = { readonly id: string } | { readonly key: string; readonly includeArchived?: boolean };

/** One atomic, conditional write (see {@link ThreadStore.finalize}). */
export interface FinalizeRequest {
  /** Leases that must all still be valid (owner, token, not expired) for anything to be written. */
  readonly leases: readonly Lease[];
  /** The new or updated record. Written as given (upsert by `id`), except `revision`, which the store assigns. */
  readonly record: ThreadRecordDraft;
  /** Archive this record id in the same transaction (e.g. the previous active record of the key). */
  readonly archiveId?: string;
  /** Fail with `AlreadyExistsError` (nothing written) when `record.key` already has another active record. */
  readonly requireKeyAbsent?: boolean;
  /**
   * Session state to keep with `record` (only for a store with {@link ThreadStore.sessionState}),
   * written in the same transaction: both or neither. Over its `limitBytes` →
   * `SessionStateTooLargeError`, nothing written.
   */
  readonly sessionState?: SessionStateWrite;
  /**
   * Release every lease in `leases` in the same transaction, once everything else is written (a
   * finalize that fails releases none). Saves the separate `releaseLease` write after a healthy
   * turn. Optional for a store: one that ignores it leaves the leases held, so callers still call
   * `releaseLease` afterwards; that stays idempotent, and a store that released the lease here may
   * answer it without touching its backend. Default false.
   */
  readonly releaseLeases?: boolean;
}

/**
 * Where threads keep checkpoints, fingerprints and leases (never chat history). Implementations
 * run the public conformance kit `describeThreadStoreConformance` from `@adaptor/threadstore/testing`.
 *
 * Every method takes an optional `AbortSignal`. Backend failures reject with ordinary errors
 * (never `BusyError`), keeping the driver's error as `cause`.
 */
export interface ThreadStore {
  /** The record, or `undefined`. By key: the active one, else (with `includeArchived`) the newest archived. */
  resolve(query: ResolveQuery, signal?: AbortSignal): Promise<ThreadRecord | undefined>;
  /**
   * Takes the lease on `target` for `ttlMs` ms with a new, higher fencing token; it lapses at
   * now + `ttlMs`. An expired lease, or one `owner` already holds, can be taken (the held one's
   * expiry is replaced by now + `ttlMs`, later or earlier).
   *
   * Answers the lease exactly as granted: a lease is released only with its owner and token
   * (there is no release by owner), so a caller given no well-formed lease (`null`, a NaN token,
   * another target) cannot release one the store did grant, and the key stays busy until `ttlMs`
   * passes. The SDK releases such an answer only while it still names the caller's owner, the key
   * and a finite token; it never takes the key again to learn a token, since under an owner the
   * store shares (a fleet's workers) that would cut the lease of whoever holds it.
   * @throws BusyError while another owner's lease is live.
   */
  acquireLease(target: string, owner: string, ttlMs: number, signal?: AbortSignal): Promise<Lease>;
  /**
   * Extends a held lease by `ttlMs` from now; the token stays.
   * @throws LeaseLostError when the lease is expired, taken over, or the token is stale.
   */
  renewLease(lease: Lease, ttlMs: number, signal?: AbortSignal): Promise<Lease>;
  /** Releases a lease. Idempotent; releasing a stale or unknown lease is a no-op, not an error. */
  releaseLease(lease: Lease, signal?: AbortSignal): Promise<void>;
  /**
   * Atomically writes `record`, optionally archives `archiveId`, keeping at most one active
   * record per key — only while every lease in `leases` is valid. All or nothing. Resolves to the
   * record as stored, with its new `revision` (see {@link ThreadRecord.revision}).
   * @throws LeaseLostError when a lease is no longer valid; AlreadyExistsError for `requireKeyAbsent`.
   */
  finalize(request: FinalizeRequest, signal?: AbortSignal): Promise<ThreadRecord>;
  /**
   * The optional session-state capability: present when the store keeps the CLI's session files
   * with each checkpoint (see {@link SessionStateStore}). Absent: `finalize` must not be given a
   * `sessionState`, and conversations live only in each host's CLI home.
   */
  readonly sessionState?: SessionStateStore;
  /** Releases connections; idempotent. */
  close(): Promise<void>;
}
