import { DriverError, ErrCode } from "@adaptor/errors";
import {
  AlreadyExistsError,
  BusyError,
  LeaseLostError,
  type FinalizeRequest,
  type FinalizeStep,
  type Lease,
  type LeaseHolder,
  type ResolveQuery,
  SessionStateTooLargeError,
  checkSegmentIndex,
  type SegmentSummary,
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
import { connectionStringProblem, postgresErrorCode, postgresTransaction } from "@adaptor/errors/internal";
import { createHash } from "node:crypto";
import pg from "pg";
import {
  ONE_ACTIVE_INDEX,
  THREAD_COLUMNS,
  quoteIdent,
  recordFromRow,
  recordParams,
  schemaDdl,
  segmentTagSql,
  type ThreadRow,
} from "./schema.js";
import { checkFinalizeRequest, checkLease, checkLeaseArgs, checkResolveQuery, checkTtl, ReleasedLeases } from "@adaptor/threadstore";
import type { PendingApproval, PendingApprovalDraft, PendingApprovalStore, StoredApprovalDecision } from "@adaptor/threadstore";
import { PostgresPendingApprovals, isPendingApprovalError, pendingApprovalsDdl } from "./pending-approvals.js";

/** Options of {@link PostgresThreadStore}: exactly one of `pool` and `connectionString`. */
export interface PostgresThreadStoreOptions {
  /** A pool the caller owns: `close()` leaves it open. */
  readonly pool?: pg.Pool;
  /** A connection string; the store makes its own pool and ends it on `close()`. */
  readonly connectionString?: string;
  /** The schema holding the store's tables. Default `"public"`. */
  readonly schema?: string;
  /**
   * Send the store's statements as named prepared statements (parsed and planned once per
   * connection, about half the cost of each lease statement). Default true. Set false behind a
   * pooler that cannot keep them, e.g. PgBouncer older than 1.21 in transaction mode.
   */
  readonly preparedStatements?: boolean;
  /** Test-only fault hooks (see `StoreFaults`); production code passes none. */
  readonly faults?: StoreFaults;
  /**
   * Whether the store offers the session-state capability (`sessionState`, tables
   * `adaptor_thread_sessions` and `adaptor_thread_session_segments`, made by {@link PostgresThreadStore.migrate}).
   * Default true; false gives a checkpoint-only store.
   */
  readonly sessionState?: boolean;
}

/** The device name in the `DriverError`s this store throws. */
const DEVICE = "threadstore-postgres";

/** Serialises concurrent `migrate()` calls from several processes (a transaction-scoped advisory lock). */
const MIGRATE_LOCK = "SELECT pg_advisory_xact_lock(hashtext('adaptor.threadstore.migrate'))";

/**
 * A durable {@link ThreadStore} in PostgreSQL (`pg`), for many workers on many hosts sharing one
 * database.
 *
 * - Schema: created by {@link migrate} (explicit, idempotent, safe to run from several processes
 *   at once), tables `adaptor_threads` and `adaptor_thread_leases` in `schema`.
 * - Lease expiry is judged by the database clock (`now()`, and `clock_timestamp()` inside
 *   `finalize`), never by the client's, so workers with skewed clocks agree.
 * - Fencing tokens come from the database: a per-target counter incremented by the same
 *   `INSERT … ON CONFLICT DO UPDATE … WHERE` statement that checks the current holder, so the
 *   check and the write are one statement.
 * - Every operation is one statement, one round trip (no BEGIN/COMMIT round trips). `finalize`'s
 *   statement locks the lease rows (`FOR UPDATE`, in target order) before checking them, so no
 *   takeover can slip in before it commits, and writes only when every check passed; a partial
 *   unique index keeps at most one active record per key.
 * - `signal` is checked on entry; a statement already sent is not cancelled.
 *
 * Backend failures reject with a `DriverError` (device `threadstore-postgres`, the `pg` error as
 * `cause`): `SERVICE_UNAVAILABLE` for connection loss, serialization failures and deadlocks
 * (retryable), `NOT_FOUND` when the tables are missing (run `migrate()`), `DEVICE_DISCONNECTED`
 * after `close()`, `INTERNAL` otherwise.
 *
 * @example
 * ```ts
 * const store = new PostgresThreadStore({ connectionString: process.env.DATABASE_URL });
 * await store.migrate();
 * const lease = await store.acquireLease("issue-42", "worker-1", 30_000);
 * await store.finalize({ leases: [lease], record });
 * await store.releaseLease(lease);
 * await store.close();
 * ```
 */
export class PostgresThreadStore implements ThreadStore, PendingApprovalStore, ThreadCatalogStore, AsyncDisposable {
  readonly #pool: pg.Pool;
  readonly #owned: boolean;
  readonly #schema: string;
  readonly #faults: StoreFaults | undefined;
  readonly #sql: Statements;
  /** The finalize statement of each request shape, by {@link finalizeShapeKey}. */
  readonly #finalize: Readonly<Record<string, Statement>>;
  /** Leases released by `finalize`, so their holder's `releaseLease` needs no round trip. */
  readonly #released = new ReleasedLeases();
  readonly #approvals: PostgresPendingApprovals;
  #closed = false;

  /**
   * Session state kept with each record (see `SessionStateStore`), written by `finalize`'s one
   * statement with the record: segments are rows of `adaptor_thread_session_segments`, so an
   * append inserts only the new rows.
   */
  readonly sessionState: SessionStateStore | undefined;

  /**
   * @throws TypeError unless exactly one of `pool` and `connectionString` is given; for a
   * `connectionString` that is not a connection URL or socket path `pg` can parse (a malformed
   * port or host; the value is never quoted); for an empty `schema`.
   */
  constructor(options: PostgresThreadStoreOptions) {
    if ((options.pool === undefined) === (options.connectionString === undefined)) {
      throw new TypeError("PostgresThreadStore: pass exactly one of `pool` and `connectionString`");
    }
    const problem = options.connectionString === undefined ? undefined : connectionStringProblem(options.connectionString);
    if (problem !== undefined) throw new TypeError(`PostgresThreadStore: connectionString ${problem}`);
    const schema = options.schema ?? "public";
    if (typeof schema !== "string" || schema === "") throw new TypeError("PostgresThreadStore: schema must be a non-empty string");
    this.#owned = options.pool === undefined;
    this.#pool = options.pool ?? new pg.Pool({ connectionString: options.connectionString });
    // An idle client of our own pool that loses its connection must not crash the process; the
    // next query reports the failure.
    if (this.#owned) this.#pool.on("error", () => {});
    this.#schema = schema;
    this.#faults = options.faults;
    this.#sql = statements(quoteIdent(schema), options.preparedStatements ?? true);
    this.#finalize = finalizeStatements(quoteIdent(schema), options.preparedStatements ?? true);
    this.#approvals = new PostgresPendingApprovals(quoteIdent(schema), async (operation, signal, body) => {
      signal?.throwIfAborted();
      this.#checkOpen(operation);
      let out: Awaited<ReturnType<typeof body>> | undefined;
      await this.#transaction(operation, signal, async (client) => {
        this.#faults?.beforeOperation?.(operation);
        out = await body(client);
      });
      return out as Awaited<ReturnType<typeof body>>;
    });
    this.sessionState =
      options.sessionState === false
        ? undefined
        : {
            read: async (recordId: string, signal?: AbortSignal): Promise<StoredSessionState | undefined> => {
              const rows = await this.#query<{ manifest: string; segments: string; bytes: string }>(
                "sessionState",
                signal,
                this.#sql.sessionOf,
                [recordId],
              );
              const row = rows[0];
              return row && { manifest: JSON.parse(row.manifest) as unknown, segments: Number(row.segments), bytes: Number(row.bytes) };
            },
            segments: async (recordId: string, signal?: AbortSignal): Promise<Uint8Array[]> => {
              const rows = await this.#query<{ data: Buffer }>("sessionState", signal, this.#sql.segments, [recordId]);
              return rows.map((row) => new Uint8Array(row.data.buffer, row.data.byteOffset, row.data.byteLength));
            },
            segmentsFrom: async (recordId: string, from: number, signal?: AbortSignal): Promise<Uint8Array[]> => {
              checkSegmentIndex(from);
              const rows = await this.#query<{ data: Buffer }>("sessionState", signal, this.#sql.segmentsFrom, [recordId, from]);
              return rows.map((row) => new Uint8Array(row.data.buffer, row.data.byteOffset, row.data.byteLength));
            },
            summary: async (recordId: string, signal?: AbortSignal): Promise<SegmentSummary> => {
              const rows = await this.#query<{ segments: string; bytes: string; checksum: string }>(
                "sessionState",
                signal,
                this.#sql.summaryOf,
                [recordId],
              );
              const row = rows[0]!;
              return { segments: Number(row.segments), bytes: Number(row.bytes), checksum: Number(row.checksum) };
            },
          };
  }

  /** The schema this store's tables live in. */
  get schema(): string {
    return this.#schema;
  }

  /**
   * Creates the schema, tables and indexes if missing. Idempotent, and safe to call from several
   * processes at once (serialised by an advisory lock). Call it once before first use.
   * @throws DriverError when the database refuses (e.g. no CREATE privilege).
   */
  async migrate(signal?: AbortSignal): Promise<void> {
    signal?.throwIfAborted();
    this.#checkOpen("migrate");
    await this.#transaction("migrate", signal, async (client) => {
      await client.query(MIGRATE_LOCK);
      for (const ddl of [...schemaDdl(quoteIdent(this.#schema)), ...pendingApprovalsDdl(quoteIdent(this.#schema))]) await client.query(ddl);
    });
  }

  /** See `ThreadStore.resolve`: by key, the active record, else (with `includeArchived`) the archived one created last. */
  async resolve(query: ResolveQuery, signal?: AbortSignal): Promise<ThreadRecord | undefined> {
    checkResolveQuery(query);
    const rows = await this.#query<ThreadRow>(
      "resolve",
      signal,
      "id" in query ? this.#sql.byId : this.#sql.byKey,
      "id" in query ? [query.id] : [query.key, query.includeArchived === true],
    );
    const row = rows[0];
    return row && recordFromRow(row);
  }

  /** See `ThreadStore.acquireLease`; the database clock judges expiry. @throws BusyError; TypeError / RangeError; DriverError. */
  async acquireLease(target: string, owner: string, ttlMs: number, signal?: AbortSignal): Promise<Lease> {
    checkLeaseArgs(target, owner, ttlMs);
    const rows = await this.#query<{ lease: string }>("acquireLease", signal, this.#sql.acquire, [target, owner, ttlMs]);
    const row = rows[0];
    // No row: the conflicting lease belongs to another owner and is live (the WHERE was false).
    if (!row) throw new BusyError(target, await this.#holder(target, owner, signal));
    const space = row.lease.indexOf(" ");
    return { target, owner, token: Number(row.lease.slice(0, space)), expiresAt: new Date(Number(row.lease.slice(space + 1))) };
  }

  /**
   * Who holds the live lease on `target` (another owner than `owner`), read after an acquire found
   * it busy; `undefined` if it let go in between.
   */
  async #holder(target: string, owner: string, signal: AbortSignal | undefined): Promise<LeaseHolder | undefined> {
    const rows = await this.#query<{ owner: string; expires_ms: string }>("acquireLease", signal, this.#sql.holder, [target, owner]);
    const row = rows[0];
    return row && { owner: row.owner, expiresAt: new Date(Number(row.expires_ms)) };
  }

  /** See `ThreadStore.renewLease`. @throws LeaseLostError; RangeError for a bad `ttlMs`; DriverError. */
  async renewLease(lease: Lease, ttlMs: number, signal?: AbortSignal): Promise<Lease> {
    checkLease(lease);
    checkTtl(ttlMs);
    const rows = await this.#query<{ expires_ms: string }>("renewLease", signal, this.#sql.renew, [
      lease.target,
      lease.owner,
      lease.token,
      ttlMs,
    ]);
    const row = rows[0];
    if (!row) throw new LeaseLostError(lease.target);
    return { target: lease.target, owner: lease.owner, token: lease.token, expiresAt: new Date(Number(row.expires_ms)) };
  }

  /**
   * See `ThreadStore.releaseLease`: a stale or unknown lease is a no-op, and so is a lease this
   * store's `finalize` just released (`releaseLeases`), answered without a round trip.
   * @throws DriverError.
   */
  async releaseLease(lease: Lease, signal?: AbortSignal): Promise<void> {
    checkLease(lease);
    signal?.throwIfAborted();
    this.#checkOpen("releaseLease");
    if (this.#released.take(lease)) return;
    await this.#query("releaseLease", signal, this.#sql.release, [lease.target, lease.owner, lease.token]);
  }

  /**
   * See `ThreadStore.finalize`: one statement (one round trip) locks and checks the leases
   * (`FOR UPDATE`, in target order, liveness by `clock_timestamp()`), checks `requireKeyAbsent`,
   * archives `archiveId`, upserts the record (and its session state) and, with `releaseLeases`,
   * releases the leases, writing nothing unless every check passed; a statement is atomic, so
   * there is no separate BEGIN/COMMIT. Each request shape (session state or not, releasing or not)
   * is a statement of its own that carries only its steps. Writing an active record while
   * another active record of the key remains fails with `AlreadyExistsError` (the partial unique
   * index). While a test fault hook is armed (`faults.afterFinalizeStep`, see
   * `StoreFaults.finalizeStepArmed`) the same statement runs inside BEGIN … COMMIT so the hook can
   * fail it after its steps and the rollback is observable.
   * @throws LeaseLostError; AlreadyExistsError; TypeError for a malformed request; DriverError.
   */
  async finalize(request: FinalizeRequest, signal?: AbortSignal): Promise<ThreadRecord> {
    checkFinalizeRequest(request);
    const { record } = request;
    const state = request.sessionState;
    if (state && !this.sessionState) throw new TypeError("finalize: this store was made without the session-state capability");
    const { leases } = request;
    const one = leases.length === 1 ? leases[0] : undefined;
    const values = recordParams(record);
    values.push(request.archiveId ?? null, request.requireKeyAbsent === true);
    if (one) values.push(one.target, one.owner, String(one.token));
    else
      values.push(
        leases.map((l) => l.target),
        leases.map((l) => l.owner),
        leases.map((l) => String(l.token)),
      );
    if (state) {
      const segments = state.segments.map((segment) => Buffer.from(segment.buffer, segment.byteOffset, segment.byteLength));
      values.push(
        state.mode,
        segments,
        JSON.stringify(state.manifest),
        String(state.limitBytes),
        String(segments.reduce((sum, segment) => sum + segment.byteLength, 0)),
      );
    }
    const release = request.releaseLeases === true;
    // A turn's usual request: no record to archive, no key check: a statement without those steps.
    const plain = one !== undefined && request.archiveId === undefined && request.requireKeyAbsent !== true;
    const statement = this.#finalize[finalizeShapeKey({ one: one !== undefined, session: state !== undefined, release, plain })]!;
    signal?.throwIfAborted();
    this.#checkOpen("finalize");
    let revision = 0;
    const faults = this.#faults;
    if (!faults?.afterFinalizeStep || faults.finalizeStepArmed?.() === false) {
      let row: FinalizeRow | undefined;
      try {
        faults?.beforeOperation?.("finalize");
        row = (await this.#pool.query<FinalizeRow>({ text: statement.text, name: statement.name, values })).rows[0];
      } catch (err) {
        if (alreadyExists(err)) throw new AlreadyExistsError(record.key);
        throw backendError("finalize", err);
      }
      revision = finalizeOutcome(row, record.key, state);
      if (release) this.#released.add(leases);
      return { ...record, revision };
    }
    await this.#transaction("finalize", signal, async (client) => {
      faults.beforeOperation?.("finalize");
      try {
        revision = finalizeOutcome((await client.query<FinalizeRow>({ ...statement, values })).rows[0], record.key, state);
      } catch (err) {
        if (alreadyExists(err)) throw new AlreadyExistsError(record.key);
        throw err;
      }
      this.#step("leases-checked");
      this.#step("archived");
      this.#step("record-written");
    });
    if (release) this.#released.add(leases);
    return { ...record, revision };
  }

  /**
   * See `ThreadCatalogStore.listThreads`: one statement reads the active records in key order
   * (`COLLATE "C"`: the keys' UTF-8 bytes), with each key's archived count and session-state size.
   * @throws RangeError / TypeError for a bad query; DriverError.
   */
  async listThreads(query?: ListThreadsQuery, signal?: AbortSignal): Promise<ThreadPage> {
    const { prefix, limit, cursor } = checkListThreadsQuery(query);
    const rows = await this.#query<CatalogRow>("listThreads", signal, this.#sql.listActive, [prefix, cursor ?? null, limit + 1]);
    const threads = rows.slice(0, limit).map((row) => ({
      key: row.key,
      recordId: row.id,
      driverType: row.driver_type,
      identity: row.identity,
      createdAt: row.created_at,
      updatedAt: row.updated_at,
      revision: Number(row.revision),
      archivedRecords: Number(row.archived),
      sessionStateBytes: Number(row.session_bytes),
    }));
    const last = threads.at(-1);
    return rows.length > limit && last ? { threads, nextCursor: last.key } : { threads };
  }

  /**
   * See `ThreadCatalogStore.deleteThread`: one transaction locks the key's lease row (creating an
   * unowned one if missing, so a racing `acquireLease` waits for the delete), refuses a live lease,
   * and deletes the key's records, session state and approvals. @throws BusyError; DriverError.
   */
  async deleteThread(key: string, signal?: AbortSignal): Promise<DeletedThread> {
    checkThreadKey(key, "deleteThread: key");
    signal?.throwIfAborted();
    this.#checkOpen("deleteThread");
    let deleted: DeletedThread = { records: 0, approvals: 0 };
    await this.#transaction("deleteThread", signal, async (client) => {
      this.#faults?.beforeOperation?.("deleteThread");
      const run = (statement: Statement): Promise<pg.QueryResult> => client.query({ ...statement, values: [key] });
      await run(this.#sql.touchLease);
      const lease = await run(this.#sql.lockLease);
      const held = lease.rows[0] as { live: boolean; owner: string; expires_ms: string } | undefined;
      if (held?.live) throw new BusyError(key, { owner: held.owner, expiresAt: new Date(Number(held.expires_ms)) });
      await run(this.#sql.dropKeySegments);
      await run(this.#sql.dropKeySessions);
      const records = (await run(this.#sql.dropKeyRecords)).rowCount ?? 0;
      deleted = { records, approvals: (await run(this.#sql.dropKeyApprovals)).rowCount ?? 0 };
    });
    return deleted;
  }

  /** See `PendingApprovalStore.savePendingApproval`: the lease row is locked and checked in the inserting transaction. */
  savePendingApproval(approval: PendingApprovalDraft, lease: Lease, signal?: AbortSignal): Promise<PendingApproval> {
    return this.#approvals.save(approval, lease, signal);
  }

  /** See `PendingApprovalStore.listPendingApprovals` (overdue approvals of the key expire first, judged by the database clock). */
  listPendingApprovals(key: string, signal?: AbortSignal): Promise<PendingApproval[]> {
    return this.#approvals.list(key, signal);
  }

  /** See `PendingApprovalStore.getPendingApproval`. */
  getPendingApproval(id: string, signal?: AbortSignal): Promise<PendingApproval | undefined> {
    return this.#approvals.get(id, signal);
  }

  /** See `PendingApprovalStore.answerPendingApproval`: a conditional update, so exactly one answer wins across workers. */
  answerPendingApproval(id: string, decision: StoredApprovalDecision, signal?: AbortSignal): Promise<PendingApproval> {
    return this.#approvals.answer(id, decision, signal);
  }

  /** See `PendingApprovalStore.closePendingApproval`. */
  closePendingApproval(id: string, lease: Lease, signal?: AbortSignal): Promise<PendingApproval> {
    return this.#approvals.close(id, lease, signal);
  }

  /** Ends the pool when the store made it (`connectionString`); later calls reject with `DEVICE_DISCONNECTED`. Idempotent. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    if (this.#owned) await this.#pool.end();
  }

  /** Same as {@link close}. */
  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }

  #checkOpen(operation: string): void {
    if (this.#closed) throw new DriverError({ op: operation, device: DEVICE, code: ErrCode.DeviceDisconnected, cause: "store closed" });
  }

  async #query<R extends pg.QueryResultRow>(
    operation: StoreOperation,
    signal: AbortSignal | undefined,
    statement: Statement,
    values: unknown[],
  ): Promise<R[]> {
    signal?.throwIfAborted();
    this.#checkOpen(operation);
    try {
      this.#faults?.beforeOperation?.(operation);
      return (await this.#pool.query<R>({ ...statement, values })).rows;
    } catch (err) {
      throw backendError(operation, err);
    }
  }

  /**
   * Runs `body` in BEGIN … COMMIT on one client (see `postgresTransaction`); rolls back on any
   * error; checks `signal` before COMMIT. Contract errors and the abort reason reject as they are,
   * anything else as the store's `DriverError`.
   */
  #transaction(operation: string, signal: AbortSignal | undefined, body: (client: pg.PoolClient) => Promise<void>): Promise<void> {
    return postgresTransaction(() => this.#pool.connect(), body, {
      signal,
      failure: (err) => (isContractError(err) || (signal?.aborted && err === signal.reason) ? err : backendError(operation, err)),
    });
  }

  #step(step: FinalizeStep): void {
    this.#faults?.afterFinalizeStep?.(step);
  }
}

/** A statement's text and, when prepared statements are on, its name (a hash of the text, so distinct per schema). */
interface Statement {
  readonly text: string;
  readonly name?: string;
}

type Statements = Record<
  | "byId"
  | "byKey"
  | "acquire"
  | "holder"
  | "renew"
  | "release"
  | "sessionOf"
  | "segments"
  | "segmentsFrom"
  | "summaryOf"
  | "listActive"
  | "touchLease"
  | "lockLease"
  | "dropKeySegments"
  | "dropKeySessions"
  | "dropKeyRecords"
  | "dropKeyApprovals",
  Statement
>;

/** A row of the `listActive` statement (counts and sizes as text: bigint). */
interface CatalogRow {
  id: string;
  key: string;
  driver_type: string;
  identity: string;
  created_at: Date;
  updated_at: Date;
  revision: string;
  archived: string;
  session_bytes: string;
}

/**
 * The one row of the finalize statement: one column, `outcome`, the first check that failed or the
 * revision written. `l<target>`: that lease (the first in request order) is not valid; `k`:
 * `requireKeyAbsent` found another active record under the key; `b<bytes>`: the session state would
 * exceed its limit, holding that many bytes; `r<revision>`: written, with that new revision; null:
 * nothing was written.
 */
interface FinalizeRow {
  outcome: string | null;
}

/**
 * A lease's `expires_at` as text of whole milliseconds since the epoch (what a `Date` holds), which
 * the client turns into a `Date` without parsing a timestamp.
 */
const EPOCH_MS = "floor(extract(epoch FROM expires_at) * 1000)::text";

function statements(s: string, prepared: boolean): Statements {
  const threads = `${s}.adaptor_threads`;
  const leases = `${s}.adaptor_thread_leases`;
  const sessions = `${s}.adaptor_thread_sessions`;
  const segments = `${s}.adaptor_thread_session_segments`;
  const texts = {
    byId: `SELECT ${THREAD_COLUMNS} FROM ${threads} WHERE id = $1`,
    byKey: `SELECT ${THREAD_COLUMNS} FROM ${threads} WHERE key = $1 AND (status = 'active' OR $2::boolean)
            ORDER BY (status = 'active') DESC, created_at DESC, id DESC LIMIT 1`,
    // A plain UPDATE of the existing row first (the usual case: no speculative insertion, no
    // separate tuple lock); the upsert runs only when that found no free row, so a missing row, a
    // row another transaction is inserting (deleteThread's) and a busy lease go exactly as before.
    acquire: `WITH u AS (
                UPDATE ${leases} AS l SET owner = $2::text, token = l.token + 1, expires_at = now() + $3::float8 * interval '1 millisecond'
                WHERE l.target = $1::text AND (l.owner IS NULL OR l.owner = $2::text OR l.expires_at <= now())
                RETURNING token, expires_at),
              i AS (
                INSERT INTO ${leases} AS l (target, owner, token, expires_at)
                SELECT $1::text, $2::text, 1, now() + $3::float8 * interval '1 millisecond' WHERE NOT EXISTS (SELECT 1 FROM u)
                ON CONFLICT (target) DO UPDATE
                  SET owner = excluded.owner, token = l.token + 1, expires_at = excluded.expires_at
                  WHERE l.owner IS NULL OR l.owner = excluded.owner OR l.expires_at <= now()
                RETURNING token, expires_at)
              SELECT token::text || ' ' || ${EPOCH_MS} AS lease FROM u UNION ALL SELECT token::text || ' ' || ${EPOCH_MS} FROM i`,
    holder: `SELECT owner, ${EPOCH_MS} AS expires_ms FROM ${leases} WHERE target = $1 AND owner IS NOT NULL AND owner <> $2 AND expires_at > now()`,
    renew: `UPDATE ${leases} SET expires_at = now() + $4::float8 * interval '1 millisecond'
            WHERE target = $1 AND owner = $2 AND token = $3::bigint AND expires_at > now()
            RETURNING ${EPOCH_MS} AS expires_ms`,
    release: `UPDATE ${leases} SET owner = NULL, expires_at = NULL WHERE target = $1 AND owner = $2 AND token = $3::bigint`,
    sessionOf: `SELECT manifest::text AS manifest, (next_seq - first_seq)::text AS segments, bytes::text AS bytes FROM ${sessions} WHERE record_id = $1`,
    segments: `SELECT data FROM ${segments} WHERE record_id = $1 ORDER BY seq`,
    // Segment i of a record is the row numbered first_seq + i.
    segmentsFrom: `SELECT s.data FROM ${segments} s JOIN ${sessions} h ON h.record_id = s.record_id
      WHERE s.record_id = $1 AND s.seq >= h.first_seq + $2::bigint ORDER BY s.seq`,
    // From the segment rows (octet_length of a bytea reads its header or TOAST pointer, not its
    // bytes; the tag stored with each), never from the counters of the session row; segment i is
    // the row first_seq + i. Segments of an earlier version get their tag here, once ("fill").
    summaryOf: `WITH fill AS (
        UPDATE ${segments} SET tag = ${segmentTagSql("data")} WHERE record_id = $1 AND tag IS NULL RETURNING seq, tag)
      SELECT count(*)::text AS segments, COALESCE(sum(octet_length(s.data)), 0)::text AS bytes,
        (COALESCE(sum(((s.seq - h.first_seq + 1) * COALESCE(s.tag, f.tag)) % ${SEGMENT_CHECKSUM_MODULUS}), 0) % ${SEGMENT_CHECKSUM_MODULUS})::text AS checksum
      FROM ${segments} s JOIN ${sessions} h ON h.record_id = s.record_id LEFT JOIN fill f ON f.seq = s.seq
      WHERE s.record_id = $1`,
    listActive: `SELECT t.id, t.key, t.driver_type, t.identity, t.created_at, t.updated_at, t.revision::text AS revision,
                   (SELECT count(*) FROM ${threads} a WHERE a.key = t.key AND a.status = 'archived')::text AS archived,
                   COALESCE((SELECT x.bytes FROM ${sessions} x WHERE x.record_id = t.id), 0)::text AS session_bytes
                 FROM ${threads} t
                 WHERE t.status = 'active' AND t.key COLLATE "C" >= $1 AND starts_with(t.key, $1)
                   AND ($2::text IS NULL OR t.key COLLATE "C" > $2::text)
                 ORDER BY t.key COLLATE "C" LIMIT $3`,
    touchLease: `INSERT INTO ${leases} (target, owner, token, expires_at) VALUES ($1, NULL, 0, NULL) ON CONFLICT (target) DO NOTHING`,
    lockLease: `SELECT (owner IS NOT NULL AND expires_at > clock_timestamp()) AS live, owner, ${EPOCH_MS} AS expires_ms FROM ${leases} WHERE target = $1 FOR UPDATE`,
    dropKeySegments: `DELETE FROM ${segments} WHERE record_id IN (SELECT id FROM ${threads} WHERE key = $1)`,
    dropKeySessions: `DELETE FROM ${sessions} WHERE record_id IN (SELECT id FROM ${threads} WHERE key = $1)`,
    dropKeyRecords: `DELETE FROM ${threads} WHERE key = $1`,
    dropKeyApprovals: `DELETE FROM ${s}.adaptor_pending_approvals WHERE key = $1`,
  };
  return Object.fromEntries(Object.entries(texts).map(([key, text]) => [key, named(text, prepared)])) as Statements;
}

/** A statement of `text`, named by a hash of it when `prepared` (so distinct per schema). */
function named(text: string, prepared: boolean): Statement {
  return prepared ? { text, name: `adaptor_ts_${createHash("sha1").update(text).digest("hex").slice(0, 20)}` } : { text };
}

/** A finalize request shape (see {@link finalizeText}). */
interface FinalizeShape {
  /** Exactly one lease (scalar lease parameters), else any number (arrays). */
  readonly one: boolean;
  readonly session: boolean;
  readonly release: boolean;
  /** One lease, no `archiveId`, no `requireKeyAbsent`: the statement has neither step. */
  readonly plain: boolean;
}

function finalizeShapeKey(shape: FinalizeShape): string {
  return `${+shape.one}${+shape.session}${+shape.release}${+shape.plain}`;
}

/** The finalize statement of every shape, by {@link finalizeShapeKey}. */
function finalizeStatements(s: string, prepared: boolean): Record<string, Statement> {
  const out: Record<string, Statement> = {};
  for (const one of [false, true])
    for (const session of [false, true])
      for (const release of [false, true])
        for (const plain of one ? [false, true] : [false]) {
          const shape = { one, session, release, plain };
          out[finalizeShapeKey(shape)] = named(finalizeText(s, shape), prepared);
        }
  return out;
}

/**
 * The finalize statement for one request shape (see {@link FinalizeShape}). Each shape is its own
 * prepared statement, so a request pays only for the steps it has. $1..$12 the record, $13
 * archiveId, $14 requireKeyAbsent; $15..$17 the lease's target, owner and token (for one lease),
 * else arrays of the leases' targets, owners and tokens; with session state $18 its mode, $19 its
 * segments, $20 its manifest, $21 its limit, $22 the segments' total bytes. Every write is gated on
 * `ok`; `arch` is read before the upsert so the old record is archived before the new one meets
 * the one-active-per-key index. New segments are numbered from the record's `next_seq`, so a
 * replace deletes only numbers below it. The lease rows are locked (`FOR UPDATE`, in target order)
 * and checked before anything else is locked; the release updates only rows found valid. For one
 * lease released without session state, one `UPDATE` locks, checks and releases the lease (when
 * no other check failed; else the lease is only locked and checked, to say which check failed).
 * A plain shape has no key check and no archive step; it still requires $13 null and $14 false,
 * and writes an existing record with a plain `UPDATE` (`upd`), upserting only when there is none.
 * The statement returns one text column, `outcome` (see {@link FinalizeRow}), so the client parses
 * one field.
 */
function finalizeText(s: string, shape: FinalizeShape): string {
  const threads = `${s}.adaptor_threads`;
  const leases = `${s}.adaptor_thread_leases`;
  const sessions = `${s}.adaptor_thread_sessions`;
  const segments = `${s}.adaptor_thread_session_segments`;
  const { one, plain } = shape;
  const valid = "target = $15::text AND owner = $16::text AND token = $17::bigint AND expires_at > clock_timestamp()";
  const takenStep = `taken AS (
       SELECT 1 FROM ${threads} WHERE $14::boolean AND key = $2::text AND status = 'active' AND id <> $1::text LIMIT 1)`;
  // What the checks other than the leases' ask, as a condition.
  const notTaken = plain ? "$13::text IS NULL AND NOT $14::boolean" : "NOT EXISTS (SELECT 1 FROM taken)";
  // One lease released, no session state: the release is the lock and the check.
  const merged = one && shape.release && !shape.session;
  const steps: string[] = [];
  /** When a lease is not valid, and which one. */
  let lost: string;
  let lostTarget = "$15::text";
  let go: string;
  if (merged) {
    if (!plain) steps.push(takenStep);
    steps.push(`rel AS (
         UPDATE ${leases} SET owner = NULL, expires_at = NULL
         WHERE ${valid} AND ${notTaken}
         RETURNING 1)`);
    if (plain) {
      lost = "NOT EXISTS (SELECT 1 FROM rel)";
    } else {
      steps.push(`chk AS (
         SELECT 1 FROM ${leases} WHERE ${valid} AND EXISTS (SELECT 1 FROM taken) FOR UPDATE)`);
      lost = "NOT EXISTS (SELECT 1 FROM rel) AND NOT EXISTS (SELECT 1 FROM chk)";
    }
    go = "EXISTS (SELECT 1 FROM rel)";
  } else if (one) {
    steps.push(`held AS (
         SELECT 1 FROM ${leases} WHERE ${valid} FOR UPDATE)`);
    if (!plain) steps.push(takenStep);
    lost = "NOT EXISTS (SELECT 1 FROM held)";
    go = `EXISTS (SELECT 1 FROM held) AND ${notTaken}`;
  } else {
    steps.push(
      `want AS (
         SELECT w.target, w.owner, w.token::bigint AS token, w.n
         FROM unnest($15::text[], $16::text[], $17::text[]) WITH ORDINALITY AS w(target, owner, token, n))`,
      `held AS (
         SELECT target, owner, token, expires_at > clock_timestamp() AS live
         FROM ${leases} WHERE target = ANY($15::text[]) ORDER BY target FOR UPDATE)`,
      `lost AS (
         SELECT want.target FROM want LEFT JOIN held ON held.target = want.target
         WHERE held.target IS NULL OR held.live IS NOT TRUE OR held.owner IS DISTINCT FROM want.owner OR held.token <> want.token
         ORDER BY want.n LIMIT 1)`,
      takenStep,
    );
    lost = "EXISTS (SELECT 1 FROM lost)";
    lostTarget = "(SELECT target FROM lost)";
    go = `NOT EXISTS (SELECT 1 FROM lost) AND ${notTaken}`;
  }
  if (shape.session) {
    steps.push(
      `cur AS (
         SELECT first_seq, next_seq, bytes FROM ${sessions} WHERE record_id = $1::text FOR UPDATE)`,
      `sz AS (
         SELECT (CASE WHEN $18::text = 'replace' THEN 0 ELSE coalesce((SELECT bytes FROM cur), 0) END) + $22::bigint AS total,
                coalesce((SELECT next_seq FROM cur), 0) AS base,
                coalesce((SELECT first_seq FROM cur), 0) AS first)`,
      `big AS (
         SELECT (SELECT total FROM sz) > $21::bigint AS over)`,
      `ok AS (
         SELECT ${go} AND NOT (SELECT over FROM big) AS go)`,
      `sdel AS (
         DELETE FROM ${segments} WHERE $18::text = 'replace' AND (SELECT go FROM ok)
           AND record_id = $1::text AND seq < (SELECT base FROM sz)
         RETURNING 1)`,
      `sins AS (
         INSERT INTO ${segments} (record_id, seq, tag, data)
         SELECT $1::text, (SELECT base FROM sz) + g.n - 1, ${segmentTagSql("g.data")}, g.data
         FROM unnest($19::bytea[]) WITH ORDINALITY AS g(data, n)
         WHERE (SELECT go FROM ok)
         RETURNING 1)`,
      `sup AS (
         INSERT INTO ${sessions} (record_id, manifest, first_seq, next_seq, bytes)
         SELECT $1::text, $20::json,
                CASE WHEN $18::text = 'replace' THEN (SELECT base FROM sz) ELSE (SELECT first FROM sz) END,
                (SELECT base FROM sz) + coalesce(cardinality($19::bytea[]), 0), (SELECT total FROM sz)
         WHERE (SELECT go FROM ok)
         ON CONFLICT (record_id) DO UPDATE SET manifest = excluded.manifest, first_seq = excluded.first_seq,
           next_seq = excluded.next_seq, bytes = excluded.bytes
         RETURNING 1)`,
    );
  } else {
    steps.push(`ok AS (
         SELECT ${go} AS go)`);
  }
  if (!plain)
    steps.push(`arch AS (
       UPDATE ${threads} SET status = 'archived', updated_at = now(), revision = revision + 1
       WHERE id = $13::text AND status = 'active' AND (SELECT go FROM ok)
       RETURNING id)`);
  if (plain)
    // The record of a later turn exists: a plain UPDATE writes it (no speculative insertion and no
    // separate tuple lock); the upsert below runs only when there was no row to update.
    steps.push(`upd AS (
       UPDATE ${threads} AS t SET key = $2::text, status = $3::text, driver_type = $4::text, identity = $5::text,
         fingerprint = $6::text, codec = $7::text, resume_id = $8::text, display_id = $9::text, data = $10::json,
         created_at = $11::timestamptz, updated_at = $12::timestamptz, revision = t.revision + 1
       WHERE t.id = $1::text AND (SELECT go FROM ok)
       RETURNING revision)`);
  steps.push(
    `up AS (
       INSERT INTO ${threads} AS t (id, key, status, driver_type, identity, fingerprint, codec, resume_id, display_id, data, created_at, updated_at)
       SELECT $1::text, $2::text, $3::text, $4::text, $5::text, $6::text, $7::text, $8::text, $9::text, $10::json, $11::timestamptz, $12::timestamptz
       WHERE (SELECT go FROM ok)${plain ? " AND NOT EXISTS (SELECT 1 FROM upd)" : " AND (SELECT count(*) FROM arch) >= 0"}
       ON CONFLICT (id) DO UPDATE SET key = excluded.key, status = excluded.status, driver_type = excluded.driver_type,
         identity = excluded.identity, fingerprint = excluded.fingerprint, codec = excluded.codec,
         resume_id = excluded.resume_id, display_id = excluded.display_id, data = excluded.data,
         created_at = excluded.created_at, updated_at = excluded.updated_at, revision = t.revision + 1
       RETURNING revision)`,
  );
  if (shape.release && !merged) {
    steps.push(`rel AS (
       UPDATE ${leases} SET owner = NULL, expires_at = NULL
       WHERE target = ${one ? "$15::text" : "ANY($15::text[])"} AND (SELECT go FROM ok)
       RETURNING 1)`);
  }
  const taken = plain ? "" : " WHEN EXISTS (SELECT 1 FROM taken) THEN 'k'";
  const big = shape.session ? " WHEN (SELECT over FROM big) THEN 'b' || (SELECT total FROM sz)" : "";
  return `WITH ${steps.join(",\n     ")}
     SELECT CASE WHEN ${lost} THEN 'l' || ${lostTarget}${taken}${big}
                 ELSE 'r' || ${plain ? "coalesce((SELECT revision FROM upd), (SELECT revision FROM up))" : "(SELECT revision FROM up)"} END AS outcome`;
}

/** The revision `finalize` wrote, from its statement's row. @throws LeaseLostError, AlreadyExistsError, SessionStateTooLargeError. */
function finalizeOutcome(row: FinalizeRow | undefined, key: string, state: FinalizeRequest["sessionState"]): number {
  if (!row) throw new Error("finalize returned no row");
  const { outcome } = row;
  if (outcome === null) throw new Error("finalize wrote no record");
  const value = outcome.slice(1);
  switch (outcome[0]) {
    case "r":
      return Number(value);
    case "l":
      throw new LeaseLostError(value);
    case "k":
      throw new AlreadyExistsError(key);
    case "b":
      throw new SessionStateTooLargeError(key, Number(value), state?.limitBytes ?? 0);
    default:
      throw new Error(`finalize: unexpected outcome ${outcome}`);
  }
}

/** The partial unique index refused a second active record under the key. */
function alreadyExists(err: unknown): boolean {
  return err instanceof pg.DatabaseError && err.code === "23505" && err.constraint === ONE_ACTIVE_INDEX;
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

function backendError(op: string, cause: unknown): DriverError {
  return new DriverError({ op, device: DEVICE, code: postgresErrorCode(cause), cause });
}
