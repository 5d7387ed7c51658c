import { DriverError, ErrCode } from "@adaptor/errors";
import {
  AlreadyExistsError,
  BusyError,
  LeaseLostError,
  type FinalizeRequest,
  type FinalizeStep,
  type Lease,
  type ResolveQuery,
  SessionStateTooLargeError,
  checkSegmentIndex,
  sessionStateBytesAfter,
  type SegmentSummary,
  segmentTag,
  SEGMENT_CHECKSUM_MODULUS,
  type SessionStateStore,
  type StoredSessionState,
  type StoreFaults,
  type StoreOperation,
  type ThreadRecord,
  type ThreadStore,
  type ThreadCatalogStore,
  type ListThreadsQuery,
  type ThreadPage,
  type DeletedThread,
  checkListThreadsQuery,
  checkThreadKey,
} from "@adaptor/threadstore";
import Database from "better-sqlite3";
import { SCHEMA, migrateSchema, recordFromRow, rowFromRecord, type LeaseRow, type StoredThreadRow, type ThreadRow } from "./schema.js";
import { checkFinalizeRequest, checkLease, checkLeaseArgs, checkResolveQuery, checkTtl, ReleasedLeases } from "@adaptor/threadstore";
import type { PendingApproval, PendingApprovalDraft, PendingApprovalStore, StoredApprovalDecision } from "@adaptor/threadstore";
import { PENDING_APPROVALS_SCHEMA, SqlitePendingApprovals, isPendingApprovalError } from "./pending-approvals.js";
import { OpenedFile } from "./opened-file.js";

/** Options of {@link SqliteThreadStore}: exactly one of `path` and `database`. */
export interface SqliteThreadStoreOptions {
  /** The database file, created if missing. The store opens it and closes it on `close()`. */
  readonly path?: string;
  /** An open better-sqlite3 database the caller owns: `close()` leaves it open. */
  readonly database?: Database.Database;
  /**
   * How long, in ms, a transaction waits for another connection's write lock before failing with a
   * `DriverError` (`TIMEOUT`). Default 5000.
   */
  readonly busyTimeoutMs?: number;
  /** Test-only fault hooks (see `StoreFaults`); production code passes none. */
  readonly faults?: StoreFaults;
  /**
   * Whether the store offers the session-state capability (`sessionState`, tables
   * `adaptor_thread_sessions` and `adaptor_thread_session_segments`). Default true; false gives a
   * checkpoint-only store.
   */
  readonly sessionState?: boolean;
}

/** The device name in the `DriverError`s this store throws. */
const DEVICE = "threadstore-sqlite";

/** Operations that check, inside their transaction, that the path still names the opened file. */
const FILE_CHECKED: ReadonlySet<StoreOperation> = new Set<StoreOperation>([
  "acquireLease",
  "renewLease",
  "finalize",
  "deleteThread",
  "savePendingApproval",
  "answerPendingApproval",
  "closePendingApproval",
]);

/** Columns the store writes; `revision` is assigned by the store. */
const THREAD_COLUMNS =
  "id, key, status, driver_type, identity, fingerprint, codec, resume_id, display_id, data_json, created_at_ms, updated_at_ms";
/** Columns read back for a record. */
const STORED_COLUMNS = `${THREAD_COLUMNS}, revision`;

/**
 * A durable {@link ThreadStore} in one SQLite file (better-sqlite3): the embedded default.
 *
 * Several processes may share the file: it runs in WAL mode with a busy timeout, and every
 * read-check-write runs in a `BEGIN IMMEDIATE` transaction, which takes the file's write lock
 * first, so two processes never interleave between a check and its write. Lease expiry is judged
 * by the clock of the process making the call (`Date.now()`), so every process sharing a file must
 * run on one host (SQLite over a network filesystem is not supported anyway). Fencing tokens are
 * a per-target counter in the file that never resets.
 *
 * On open it sets `journal_mode = WAL` and `busy_timeout`, and creates its tables if missing
 * (`adaptor_threads`, `adaptor_thread_leases`). Backend failures reject with a `DriverError`
 * (device `threadstore-sqlite`, the better-sqlite3 error as `cause`): `TIMEOUT` when the write
 * lock stayed busy, `DEVICE_DISCONNECTED` after `close()` or on a closed database, `INTERNAL` else.
 *
 * Every write that decides ownership first checks, in its transaction, that the path still names
 * the file the store opened (device and inode), by that name only (no hard link), with the `-wal`
 * and `-shm` it had at open: a file deleted, replaced or given a second name under a running host,
 * or its WAL deleted, would take its commits while other processes use another. If not, `renewLease`, `finalize`
 * and the lease-checked approval writes fail with `LeaseLostError`, the other writes with
 * `DriverError` `DEVICE_DISCONNECTED` (its `cause` says what happened), and every later call fails:
 * open a new store. `close()` then leaves that connection open: closing it would checkpoint its
 * stale WAL into the file and delete the WAL at the path. better-sqlite3 still closes every open
 * database when the process (or worker) ends naturally, which does that checkpoint: after such an
 * error, end the process with `process.exit()` (which closes nothing), or never open that path
 * again. A file that already has a second name is refused at open.
 *
 * @example
 * ```ts
 * const store = new SqliteThreadStore({ path: "threads.db" });
 * const lease = await store.acquireLease("issue-42", "worker-1", 30_000);
 * await store.finalize({ leases: [lease], record });
 * await store.releaseLease(lease);
 * await store.close();
 * ```
 */
export class SqliteThreadStore implements ThreadStore, PendingApprovalStore, ThreadCatalogStore, AsyncDisposable {
  readonly #db: Database.Database;
  readonly #owned: boolean;
  readonly #faults: StoreFaults | undefined;
  readonly #sql: ReturnType<typeof prepare>;
  readonly #acquire: (target: string, owner: string, ttlMs: number) => Lease;
  readonly #renew: (lease: Lease, ttlMs: number) => Lease;
  readonly #finalize: (request: FinalizeRequest, row: ThreadRow) => number;
  readonly #delete: (key: string) => DeletedThread;
  /** Leases released by `finalize`, so their holder's `releaseLease` needs no write. */
  readonly #released = new ReleasedLeases();
  readonly #approvals: SqlitePendingApprovals;
  /** The file opened, watched before every write that decides ownership (`undefined`: in-memory). */
  readonly #file: OpenedFile | undefined;
  /** Why the store stopped: its path no longer names the file it opened. */
  #fileGone: Error | undefined;
  #closed = false;

  /**
   * Session state kept with each record (see `SessionStateStore`), written in `finalize`'s
   * transaction: one row per segment, so an append inserts only the new ones.
   */
  readonly sessionState: SessionStateStore | undefined;

  /**
   * Opens (or adopts) the database, sets WAL and the busy timeout, and creates the tables.
   * @throws TypeError unless exactly one of `path` and `database` is given; `DriverError` when the
   * file cannot be opened or migrated, and `DEVICE_DISCONNECTED` when it has more than one name (a
   * hard link), which it must not have.
   */
  constructor(options: SqliteThreadStoreOptions) {
    if ((options.path === undefined) === (options.database === undefined)) {
      throw new TypeError("SqliteThreadStore: pass exactly one of `path` and `database`");
    }
    this.#faults = options.faults;
    this.#owned = options.database === undefined;
    let file: OpenedFile | undefined;
    try {
      this.#db = options.database ?? new Database(options.path as string);
    } catch (cause) {
      throw backendError("open", cause);
    }
    try {
      file = OpenedFile.of(this.#db);
    } catch (cause) {
      if (this.#owned) this.#db.close();
      throw new DriverError({ op: "open", device: DEVICE, code: ErrCode.DeviceDisconnected, cause });
    }
    try {
      this.#db.pragma(`busy_timeout = ${Math.max(0, Math.floor(options.busyTimeoutMs ?? 5_000))}`);
      this.#db.pragma("journal_mode = WAL");
      this.#db
        .transaction(() => {
          this.#db.exec(SCHEMA);
          this.#db.exec(PENDING_APPROVALS_SCHEMA);
          migrateSchema(this.#db);
        })
        .immediate();
      this.#sql = prepare(this.#db);
      file?.watchJournal();
      this.#file = file;
      this.#approvals = new SqlitePendingApprovals(
        this.#db,
        (operation, signal, body) => this.#run(operation, signal, body),
        (operation, lease) => this.#checkFile(operation, lease),
      );
    } catch (cause) {
      if (this.#owned) this.#db.close();
      throw backendError("open", cause);
    }
    const sql = this.#sql;
    this.sessionState =
      options.sessionState === false
        ? undefined
        : {
            read: async (recordId: string, signal?: AbortSignal): Promise<StoredSessionState | undefined> =>
              this.#run("sessionState", signal, () => {
                const found = sql.sessionOf.get(recordId);
                return found && { manifest: parseManifest(found.manifest_json), segments: found.segments, bytes: found.bytes };
              }),
            segments: async (recordId: string, signal?: AbortSignal): Promise<Uint8Array[]> =>
              this.#run("sessionState", signal, () =>
                sql.segmentsOf
                  .all(recordId)
                  .map((found) => new Uint8Array(found.data.buffer, found.data.byteOffset, found.data.byteLength)),
              ),
            segmentsFrom: async (recordId: string, from: number, signal?: AbortSignal): Promise<Uint8Array[]> => {
              checkSegmentIndex(from);
              return this.#run("sessionState", signal, () =>
                sql.segmentsFrom
                  .all(recordId, from)
                  .map((found) => new Uint8Array(found.data.buffer, found.data.byteOffset, found.data.byteLength)),
              );
            },
            // From the segment rows (LENGTH of a BLOB reads its header, not its bytes; the tag
            // stored with each), never from the counters of the session row. Segments written by an
            // earlier version get their tag here, once.
            summary: async (recordId: string, signal?: AbortSignal): Promise<SegmentSummary> =>
              this.#run("sessionState", signal, () => this.#summary(recordId)),
          };

    this.#acquire = this.#db.transaction((target: string, owner: string, ttlMs: number): Lease => {
      this.#checkFile("acquireLease");
      const now = Date.now();
      const row = sql.getLease.get(target);
      if (row && row.owner !== null && row.owner !== owner && now < row.expires_at_ms)
        throw new BusyError(target, { owner: row.owner, expiresAt: new Date(row.expires_at_ms) });
      const token = (row?.token ?? 0) + 1;
      const expiresAtMs = now + Math.ceil(ttlMs);
      sql.putLease.run(target, owner, token, expiresAtMs);
      return { target, owner, token, expiresAt: new Date(expiresAtMs) };
    }).immediate;

    this.#renew = this.#db.transaction((lease: Lease, ttlMs: number): Lease => {
      this.#checkFile("renewLease", lease);
      const now = Date.now();
      const expiresAtMs = now + Math.ceil(ttlMs);
      const changed = sql.renewLease.run(expiresAtMs, lease.target, lease.owner, lease.token, now).changes;
      if (changed !== 1) throw new LeaseLostError(lease.target);
      return { target: lease.target, owner: lease.owner, token: lease.token, expiresAt: new Date(expiresAtMs) };
    }).immediate;

    this.#finalize = this.#db.transaction((request: FinalizeRequest, row: ThreadRow): number => {
      this.#checkFile("finalize", request.leases[0]);
      const now = Date.now();
      for (const lease of request.leases) {
        const held = sql.getLease.get(lease.target);
        if (!held || held.owner !== lease.owner || held.token !== lease.token || now >= held.expires_at_ms) {
          throw new LeaseLostError(lease.target);
        }
      }
      this.#step("leases-checked");
      if (request.requireKeyAbsent && sql.otherActive.get(row.key, row.id)) throw new AlreadyExistsError(row.key);
      if (request.archiveId !== undefined) sql.archive.run(now, request.archiveId);
      this.#step("archived");
      if (row.status === "active" && sql.otherActive.get(row.key, row.id)) throw new AlreadyExistsError(row.key);
      const written = sql.upsert.get(row) as { revision: number };
      const state = request.sessionState;
      if (state) {
        const stored = sql.sessionOf.get(row.id);
        const bytes = sessionStateBytesAfter(stored?.bytes ?? 0, state);
        if (bytes > state.limitBytes) throw new SessionStateTooLargeError(row.key, bytes, state.limitBytes);
        let seq = state.mode === "append" ? (stored?.segments ?? 0) : 0;
        if (state.mode === "replace") sql.dropSegments.run(row.id);
        for (const segment of state.segments)
          sql.putSegment.run(row.id, seq++, segmentTag(segment), Buffer.from(segment.buffer, segment.byteOffset, segment.byteLength));
        sql.putSession.run(row.id, JSON.stringify(state.manifest), seq, bytes);
      }
      this.#step("record-written");
      if (request.releaseLeases) for (const lease of request.leases) sql.releaseLease.run(lease.target, lease.owner, lease.token);
      return written.revision;
    }).immediate;

    this.#delete = this.#db.transaction((key: string): DeletedThread => {
      this.#checkFile("deleteThread");
      const lease = sql.getLease.get(key);
      if (lease && lease.owner !== null && Date.now() < lease.expires_at_ms)
        throw new BusyError(key, { owner: lease.owner, expiresAt: new Date(lease.expires_at_ms) });
      sql.dropKeySegments.run(key);
      sql.dropKeySessions.run(key);
      const records = sql.dropKeyRecords.run(key).changes;
      return { records, approvals: sql.dropKeyApprovals.run(key).changes };
    }).immediate;
  }

  /**
   * See `ThreadCatalogStore.listThreads`: one read of the active records in key order (SQLite's
   * BINARY collation: UTF-8 bytes), with each key's archived count and session-state size.
   * @throws RangeError / TypeError for a bad query; DriverError.
   */
  async listThreads(query?: ListThreadsQuery, signal?: AbortSignal): Promise<ThreadPage> {
    const { prefix, limit, cursor } = checkListThreadsQuery(query);
    return this.#run("listThreads", signal, () => {
      const rows = this.#sql.listActive.all(prefix, prefix, prefix, cursor ?? null, cursor ?? null, limit + 1);
      const threads = rows.slice(0, limit).map((row) => ({
        key: row.key,
        recordId: row.id,
        driverType: row.driver_type,
        identity: row.identity,
        createdAt: new Date(row.created_at_ms),
        updatedAt: new Date(row.updated_at_ms),
        revision: row.revision,
        archivedRecords: row.archived,
        sessionStateBytes: row.session_bytes,
      }));
      const last = threads.at(-1);
      return rows.length > limit && last ? { threads, nextCursor: last.key } : { threads };
    });
  }

  /**
   * See `ThreadCatalogStore.deleteThread`: one `BEGIN IMMEDIATE` transaction checks the key's
   * lease and deletes its records, session state and approvals. @throws BusyError; DriverError.
   */
  async deleteThread(key: string, signal?: AbortSignal): Promise<DeletedThread> {
    checkThreadKey(key, "deleteThread: key");
    return this.#run("deleteThread", signal, () => this.#delete(key));
  }

  /** See `ThreadStore.resolve`: by key, the active record, else (with `includeArchived`) the archived one created last. */
  async resolve(query: ResolveQuery, signal?: AbortSignal): Promise<ThreadRecord | undefined> {
    checkResolveQuery(query);
    return this.#run("resolve", signal, () => {
      const row =
        "id" in query
          ? this.#sql.byId.get(query.id)
          : (this.#sql.activeByKey.get(query.key) ?? (query.includeArchived ? this.#sql.newestArchivedByKey.get(query.key) : undefined));
      return row && recordFromRow(row);
    });
  }

  /** See `ThreadStore.acquireLease`. @throws BusyError; TypeError / RangeError for a bad argument; DriverError. */
  async acquireLease(target: string, owner: string, ttlMs: number, signal?: AbortSignal): Promise<Lease> {
    checkLeaseArgs(target, owner, ttlMs);
    return this.#run("acquireLease", signal, () => this.#acquire(target, owner, ttlMs));
  }

  /** See `ThreadStore.renewLease`. @throws LeaseLostError; RangeError for a bad `ttlMs`; DriverError. */
  async renewLease(lease: Lease, ttlMs: number, signal?: AbortSignal): Promise<Lease> {
    checkLease(lease);
    checkTtl(ttlMs);
    return this.#run("renewLease", signal, () => this.#renew(lease, ttlMs));
  }

  /**
   * See `ThreadStore.releaseLease`: a stale or unknown lease is a no-op, and so is a lease this
   * store's `finalize` just released (`releaseLeases`), answered without a write. @throws DriverError.
   */
  async releaseLease(lease: Lease, signal?: AbortSignal): Promise<void> {
    checkLease(lease);
    return this.#run("releaseLease", signal, () => {
      if (this.#released.take(lease)) return;
      this.#sql.releaseLease.run(lease.target, lease.owner, lease.token);
    });
  }

  /**
   * See `ThreadStore.finalize`: one `BEGIN IMMEDIATE` transaction validates the leases, checks
   * `requireKeyAbsent`, archives `archiveId`, writes the record (and its session state) and, with
   * `releaseLeases`, releases the leases. Writing an active record while another active record of
   * the key remains fails with `AlreadyExistsError` (nothing written).
   * @throws LeaseLostError; AlreadyExistsError; TypeError for a malformed request; DriverError.
   */
  async finalize(request: FinalizeRequest, signal?: AbortSignal): Promise<ThreadRecord> {
    checkFinalizeRequest(request);
    if (request.sessionState && !this.sessionState)
      throw new TypeError("finalize: this store was made without the session-state capability");
    const row = rowFromRecord(request.record);
    return this.#run("finalize", signal, () => {
      let revision: number;
      try {
        revision = this.#finalize(request, row);
      } catch (err) {
        if (isUniqueViolation(err)) throw new AlreadyExistsError(row.key);
        throw err;
      }
      if (request.releaseLeases) this.#released.add(request.leases);
      return { ...request.record, revision };
    });
  }

  /** See `PendingApprovalStore.savePendingApproval`: the lease check and the insert are one `BEGIN IMMEDIATE` transaction. */
  savePendingApproval(approval: PendingApprovalDraft, lease: Lease, signal?: AbortSignal): Promise<PendingApproval> {
    return this.#approvals.save(approval, lease, signal);
  }

  /** See `PendingApprovalStore.listPendingApprovals` (overdue approvals of the key expire first, judged by `Date.now()`). */
  listPendingApprovals(key: string, signal?: AbortSignal): Promise<PendingApproval[]> {
    return this.#approvals.list(key, signal);
  }

  /** See `PendingApprovalStore.getPendingApproval`. */
  getPendingApproval(id: string, signal?: AbortSignal): Promise<PendingApproval | undefined> {
    return this.#approvals.get(id, signal);
  }

  /** See `PendingApprovalStore.answerPendingApproval`: one conditional update, so exactly one answer wins across processes. */
  answerPendingApproval(id: string, decision: StoredApprovalDecision, signal?: AbortSignal): Promise<PendingApproval> {
    return this.#approvals.answer(id, decision, signal);
  }

  /** See `PendingApprovalStore.closePendingApproval`. */
  closePendingApproval(id: string, lease: Lease, signal?: AbortSignal): Promise<PendingApproval> {
    return this.#approvals.close(id, lease, signal);
  }

  /**
   * Closes the database when the store opened it (`path`), unless its file changed under it (see the
   * class: that connection stays open, and the process should end with `process.exit()`); later calls reject with
   * `DEVICE_DISCONNECTED`. Idempotent.
   */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    if (!this.#owned) return;
    // Closing the last connection checkpoints its WAL into the database file and deletes the WAL
    // at the path: once the file, its -wal or -shm is not the one opened, that would write this
    // connection's stale pages over other processes' commits, or delete their live WAL. Such a
    // connection is left open (one file handle). better-sqlite3 closes it, checkpointing, when the
    // process or worker ends naturally; `process.exit()` skips that (the class says so).
    if (this.#fileGone ?? this.#fileChange()) {
      STRANDED.add(this.#db);
      return;
    }
    this.#db.close();
  }

  /** What changed about the opened file (see {@link OpenedFile.change}), `undefined` also when it cannot be told. */
  #fileChange(): string | undefined {
    try {
      return this.#file?.change();
    } catch {
      return undefined;
    }
  }

  /** Same as {@link close}. */
  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }

  /** Runs one synchronous database step with the signal, closed and fault checks, mapping backend errors. */
  /** `sessionState.summary`: tags the record's untagged segments (written by an earlier version), then sums its rows. */
  #summary(recordId: string): SegmentSummary {
    const sql = this.#sql;
    const untagged = sql.untagged.all(recordId);
    if (untagged.length > 0)
      this.#db
        .transaction(() => {
          for (const found of untagged) sql.putTag.run(segmentTag(found.data), recordId, found.seq);
        })
        .immediate();
    const found = sql.summaryOf.get(recordId)!;
    return { segments: found.segments, bytes: found.bytes, checksum: found.checksum };
  }

  #run<T>(operation: StoreOperation, signal: AbortSignal | undefined, body: () => T): Promise<T> {
    signal?.throwIfAborted();
    if (this.#closed) throw new DriverError({ op: operation, device: DEVICE, code: ErrCode.DeviceDisconnected, cause: "store closed" });
    if (this.#fileGone && !FILE_CHECKED.has(operation)) throw this.#disconnected(operation, this.#fileGone);
    try {
      this.#faults?.beforeOperation?.(operation);
      return Promise.resolve(body());
    } catch (err) {
      if (isContractError(err) || (err instanceof DriverError && err.device === DEVICE)) throw err;
      throw backendError(operation, err);
    }
  }

  /**
   * Inside a write transaction that decides ownership: throws unless the path still names the file
   * this store opened (one `stat`). SQLite would commit into the deleted or replaced file, which no
   * other process sees, while another process takes the lease in the new one. With the `lease`
   * being renewed, used or checked it is a `LeaseLostError` (cause: the `DriverError`), else a
   * `DriverError` (`DEVICE_DISCONNECTED`). Once seen, every later call fails: open a new store.
   */
  #checkFile(operation: StoreOperation, lease?: Lease): void {
    if (!this.#file) return;
    if (!this.#fileGone) {
      const change = this.#file.change();
      if (change === undefined) return;
      this.#fileGone = new Error(
        `the database file ${this.#file.path} ${change} after this store opened it: nothing more is read from or written to the old file; open a new store`,
      );
    }
    const error = this.#disconnected(operation, this.#fileGone);
    throw lease ? new LeaseLostError(lease.target, { cause: error }) : error;
  }

  #disconnected(operation: StoreOperation, cause: Error): DriverError {
    return new DriverError({ op: operation, device: DEVICE, code: ErrCode.DeviceDisconnected, cause });
  }

  #step(step: FinalizeStep): void {
    this.#faults?.afterFinalizeStep?.(step);
  }
}

function prepare(db: Database.Database) {
  return {
    getLease: db.prepare<[string], LeaseRow>("SELECT owner, token, expires_at_ms FROM adaptor_thread_leases WHERE target = ?"),
    putLease: db.prepare<[string, string, number, number]>(
      `INSERT INTO adaptor_thread_leases (target, owner, token, expires_at_ms) VALUES (?, ?, ?, ?)
       ON CONFLICT (target) DO UPDATE SET owner = excluded.owner, token = excluded.token, expires_at_ms = excluded.expires_at_ms`,
    ),
    renewLease: db.prepare<[number, string, string, number, number]>(
      `UPDATE adaptor_thread_leases SET expires_at_ms = ?
       WHERE target = ? AND owner = ? AND token = ? AND expires_at_ms > ?`,
    ),
    releaseLease: db.prepare<[string, string, number]>(
      "UPDATE adaptor_thread_leases SET owner = NULL, expires_at_ms = 0 WHERE target = ? AND owner = ? AND token = ?",
    ),
    byId: db.prepare<[string], StoredThreadRow>(`SELECT ${STORED_COLUMNS} FROM adaptor_threads WHERE id = ?`),
    activeByKey: db.prepare<[string], StoredThreadRow>(`SELECT ${STORED_COLUMNS} FROM adaptor_threads WHERE key = ? AND status = 'active'`),
    newestArchivedByKey: db.prepare<[string], StoredThreadRow>(
      `SELECT ${STORED_COLUMNS} FROM adaptor_threads WHERE key = ? AND status = 'archived'
       ORDER BY created_at_ms DESC, id DESC LIMIT 1`,
    ),
    otherActive: db.prepare<[string, string], { id: string }>(
      "SELECT id FROM adaptor_threads WHERE key = ? AND status = 'active' AND id <> ? LIMIT 1",
    ),
    archive: db.prepare<[number, string]>(
      "UPDATE adaptor_threads SET status = 'archived', updated_at_ms = ?, revision = revision + 1 WHERE id = ? AND status = 'active'",
    ),
    sessionOf: db.prepare<[string], { manifest_json: string; segments: number; bytes: number }>(
      "SELECT manifest_json, segments, bytes FROM adaptor_thread_sessions WHERE record_id = ?",
    ),
    segmentsOf: db.prepare<[string], { data: Buffer }>("SELECT data FROM adaptor_thread_session_segments WHERE record_id = ? ORDER BY seq"),
    // A replace renumbers from 0, so a segment's seq is its index.
    segmentsFrom: db.prepare<[string, number], { data: Buffer }>(
      "SELECT data FROM adaptor_thread_session_segments WHERE record_id = ? AND seq >= ? ORDER BY seq",
    ),
    // A replace renumbers from 0, so seq + 1 is a segment's position + 1. Every term is below 2^62.
    summaryOf: db.prepare<[string], { segments: number; bytes: number; checksum: number }>(
      `SELECT COUNT(*) AS segments, COALESCE(SUM(LENGTH(data)), 0) AS bytes,
         COALESCE(SUM(((seq + 1) * tag) % ${SEGMENT_CHECKSUM_MODULUS}), 0) % ${SEGMENT_CHECKSUM_MODULUS} AS checksum
       FROM adaptor_thread_session_segments WHERE record_id = ?`,
    ),
    dropSegments: db.prepare<[string]>("DELETE FROM adaptor_thread_session_segments WHERE record_id = ?"),
    putSegment: db.prepare<[string, number, number, Buffer]>(
      "INSERT INTO adaptor_thread_session_segments (record_id, seq, tag, data) VALUES (?, ?, ?, ?)",
    ),
    untagged: db.prepare<[string], { seq: number; data: Buffer }>(
      "SELECT seq, data FROM adaptor_thread_session_segments WHERE record_id = ? AND tag IS NULL",
    ),
    putTag: db.prepare<[number, string, number]>("UPDATE adaptor_thread_session_segments SET tag = ? WHERE record_id = ? AND seq = ?"),
    putSession: db.prepare<[string, string, number, number]>(
      `INSERT INTO adaptor_thread_sessions (record_id, manifest_json, segments, bytes) VALUES (?, ?, ?, ?)
       ON CONFLICT (record_id) DO UPDATE SET manifest_json = excluded.manifest_json, segments = excluded.segments, bytes = excluded.bytes`,
    ),
    listActive: db.prepare<
      [string, string, string, string | null, string | null, number],
      Omit<StoredThreadRow, "status" | "fingerprint" | "codec" | "resume_id" | "display_id" | "data_json"> & {
        archived: number;
        session_bytes: number;
      }
    >(
      `SELECT t.id, t.key, t.driver_type, t.identity, t.created_at_ms, t.updated_at_ms, t.revision,
         (SELECT count(*) FROM adaptor_threads a WHERE a.key = t.key AND a.status = 'archived') AS archived,
         COALESCE((SELECT s.bytes FROM adaptor_thread_sessions s WHERE s.record_id = t.id), 0) AS session_bytes
       FROM adaptor_threads t
       WHERE t.status = 'active' AND t.key >= ? AND substr(t.key, 1, length(?)) = ? AND (? IS NULL OR t.key > ?)
       ORDER BY t.key LIMIT ?`,
    ),
    dropKeySegments: db.prepare<[string]>(
      "DELETE FROM adaptor_thread_session_segments WHERE record_id IN (SELECT id FROM adaptor_threads WHERE key = ?)",
    ),
    dropKeySessions: db.prepare<[string]>(
      "DELETE FROM adaptor_thread_sessions WHERE record_id IN (SELECT id FROM adaptor_threads WHERE key = ?)",
    ),
    dropKeyRecords: db.prepare<[string]>("DELETE FROM adaptor_threads WHERE key = ?"),
    dropKeyApprovals: db.prepare<[string]>("DELETE FROM adaptor_pending_approvals WHERE key = ?"),
    upsert: db.prepare<[ThreadRow], { revision: number }>(
      `INSERT INTO adaptor_threads (${THREAD_COLUMNS})
       VALUES (@id, @key, @status, @driver_type, @identity, @fingerprint, @codec, @resume_id, @display_id, @data_json, @created_at_ms, @updated_at_ms)
       ON CONFLICT (id) DO UPDATE SET key = excluded.key, status = excluded.status, driver_type = excluded.driver_type,
         identity = excluded.identity, fingerprint = excluded.fingerprint, codec = excluded.codec, resume_id = excluded.resume_id,
         display_id = excluded.display_id, data_json = excluded.data_json, created_at_ms = excluded.created_at_ms,
         updated_at_ms = excluded.updated_at_ms, revision = adaptor_threads.revision + 1
       RETURNING revision`,
    ),
  };
}

function isContractError(err: unknown): boolean {
  return (
    err instanceof BusyError ||
    err instanceof LeaseLostError ||
    err instanceof AlreadyExistsError ||
    err instanceof SessionStateTooLargeError ||
    isPendingApprovalError(err)
  );
}

function isUniqueViolation(err: unknown): boolean {
  return err instanceof Database.SqliteError && err.code.startsWith("SQLITE_CONSTRAINT_UNIQUE");
}

/**
 * Connections the store never closes: the file they opened changed under them (see
 * `SqliteThreadStore.close`). Held here so that garbage collection does not close them either;
 * better-sqlite3 still closes them when the process or worker ends naturally (not on `process.exit()`).
 */
const STRANDED = new Set<Database.Database>();

function backendError(op: string, cause: unknown): DriverError {
  const code =
    cause instanceof Database.SqliteError && (cause.code.startsWith("SQLITE_BUSY") || cause.code.startsWith("SQLITE_LOCKED"))
      ? ErrCode.Timeout
      : cause instanceof TypeError && /not open/i.test(cause.message)
        ? ErrCode.DeviceDisconnected
        : ErrCode.Internal;
  return new DriverError({ op, device: DEVICE, code, cause });
}

/** A stored manifest; text that is not JSON (a damaged row) comes back as the text, for the caller to judge. */
function parseManifest(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}
