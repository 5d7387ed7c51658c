import { hostname } from "node:os";
import pg from "pg";
import { InvalidOptionError } from "@adaptor/errors";
import { connectionStringProblem, postgresTransaction } from "@adaptor/errors/internal";
import {
  DEFAULT_MAX_RECORD_BYTES,
  EventLogCorruptError,
  EventLogLockedError,
  checkSessionKey,
  type BackendCallOptions,
  type EventBackend,
  type EventLogWriter,
  type RecordedEvent,
  type RepairReport,
} from "@adaptor/sessionrecorder";
import { closeWithin, closedError, throwIfAborted } from "@adaptor/sessionrecorder/internal";
import { backendError } from "./backend-error.js";
import { PostgresEventWriter, type WriterHost } from "./postgres-event-writer.js";
import { HOLDER_ALIVE, channelOf, quoteIdent, schemaDdl } from "./schema.js";
import { SessionChannel } from "./session-channel.js";

/** Options of {@link PostgresEventBackend}: exactly one of `pool` and `connectionString`. */
export interface PostgresEventBackendOptions {
  /** A pool the caller owns: `close()` leaves it open. The backend's one LISTEN connection is made with the pool's settings. */
  readonly pool?: pg.Pool;
  /** A connection string (`postgres://user:password@host:5432/db`); the backend makes its own pool and ends it on `close()`. */
  readonly connectionString?: string;
  /** The schema holding the backend's tables. Default `"public"`. Letters, digits and `_`, at most 40. */
  readonly schema?: string;
  /** Largest record (its JSON form), in bytes; a larger append fails with `RESOURCE_EXHAUSTED`. Default 16 MiB. */
  readonly maxRecordBytes?: number;
}

/** Options of {@link PostgresEventBackend.replay} and {@link PostgresEventBackend.follow}. */
export interface ReplayOptions extends BackendCallOptions {
  /** Yield only records with a sequence above this one. Default 0 (from the first record). */
  readonly after?: number;
}

/** Serialises concurrent `migrate()` calls from several processes (a transaction-scoped advisory lock). */
const MIGRATE_LOCK = "SELECT pg_advisory_xact_lock(hashtext('adaptor.sessionrecorder.migrate'))";
/** Records per replay query. */
const PAGE = 1000;
const KNOWN_OPTIONS = ["pool", "connectionString", "schema", "maxRecordBytes"];

interface LogRow {
  readonly holder_pid: number | null;
  readonly holder_host: string | null;
  readonly acquired_at: Date | null;
  readonly alive: boolean;
}

/**
 * An {@link EventBackend} in PostgreSQL (`pg`), for recorders on many hosts sharing one database:
 * every record of a session key is a row, written in the writer's call order.
 *
 * - Schema: created by {@link migrate} (explicit, idempotent, safe from several processes at once):
 *   tables `adaptor_session_logs` and `adaptor_session_events` in `schema`.
 * - One writer per key, fenced in the database (no lock files): `openWriter` is one statement that
 *   takes the key's row when it is free or its holder is gone, raising the row's token; every
 *   append is one statement that stores its records only while the row still carries that token,
 *   and the primary key `(key, sequence)` makes a sequence stored twice impossible. A holder is
 *   alive while its backend object's connection holds that object's advisory lock, so the keys of
 *   a process that died (or lost the server) are free at once, with no expiry to wait out.
 * - Live tails: {@link follow} replays from any sequence and then yields each record as it is
 *   committed, on any host, woken by `LISTEN/NOTIFY` (every append notifies the schema's channel).
 * - Retention: {@link prune} deletes the logs not written for a given time.
 *
 * Backend failures reject with a `DriverError` (device `sessionrecorder-postgres`, the `pg` error
 * as `cause`): `SERVICE_UNAVAILABLE` for connection loss (retryable), `NOT_FOUND` when the tables
 * are missing (run `migrate()`), `INTERNAL` otherwise. After `close()` every call fails with
 * `ErrJSONLEventBackendClosed`, like the other backends.
 *
 * @example
 * ```ts
 * await using backend = new PostgresEventBackend({ connectionString: process.env.DATABASE_URL!, schema: "recorder" });
 * await backend.migrate();
 * const recorder = new SessionRecorder({ backend });
 * for await (const { sequence, event } of backend.follow("ticket-42", { after: 0, signal })) console.log(sequence, event);
 * ```
 */
export class PostgresEventBackend implements EventBackend {
  readonly #pool: pg.Pool;
  readonly #owned: boolean;
  readonly #schema: string;
  readonly #s: string;
  readonly #maxRecordBytes: number;
  readonly #channel: SessionChannel;
  readonly #channelName: string;
  readonly #writers = new Set<PostgresEventWriter>();
  readonly #host: WriterHost;
  #closed = false;
  #closing: Promise<void> | undefined;

  /**
   * @throws InvalidOptionError naming the field: not exactly one of `pool` / `connectionString`, a
   * `connectionString` that is not a connection URL or socket path `pg` can parse (a malformed port
   * or host; the value is never quoted), a bad `schema` or `maxRecordBytes`, an unknown key.
   */
  constructor(options: PostgresEventBackendOptions) {
    const refuse = (field: string, reason: string): never => {
      throw new InvalidOptionError({ subject: "PostgresEventBackend options", field, reason });
    };
    if (typeof options !== "object" || options === null) refuse("options", "must be an object");
    for (const key of Object.keys(options)) if (!KNOWN_OPTIONS.includes(key)) refuse(key, "is not an option");
    if ((options.pool === undefined) === (options.connectionString === undefined)) {
      refuse("pool", "pass exactly one of `pool` and `connectionString`");
    }
    const problem = options.connectionString === undefined ? undefined : connectionStringProblem(options.connectionString);
    if (problem !== undefined) refuse("connectionString", problem);
    const schema = options.schema ?? "public";
    if (typeof schema !== "string" || !/^[A-Za-z_][A-Za-z0-9_]{0,39}$/.test(schema)) {
      refuse("schema", "must be 1 to 40 letters, digits or _, not starting with a digit");
    }
    const max = options.maxRecordBytes ?? DEFAULT_MAX_RECORD_BYTES;
    if (!Number.isSafeInteger(max) || max < 64) refuse("maxRecordBytes", "must be an integer >= 64");
    this.#owned = options.pool === undefined;
    this.#pool = options.pool ?? new pg.Pool({ connectionString: options.connectionString });
    // An idle client of our own pool that loses its connection must not crash the process; the
    // next query reports the failure.
    if (this.#owned) this.#pool.on("error", () => {});
    this.#schema = schema;
    this.#s = quoteIdent(schema);
    this.#maxRecordBytes = max;
    this.#channelName = channelOf(schema);
    this.#channel = new SessionChannel({ ...(this.#pool.options as pg.ClientConfig) }, this.#channelName);
    const s = this.#s;
    this.#host = {
      append: async (key, token, first, lines) => {
        // Each line is `{"sequence":…,"recordedAt":"…","event":<event>}` (encodeRecord's field
        // order); the event's text goes in as it is: `json` keeps it, \u0000 escapes included.
        const sequences: number[] = [];
        const times: string[] = [];
        const events: string[] = [];
        for (const line of lines) {
          const record = JSON.parse(line.slice(0, line.indexOf(',"event":')) + "}") as { sequence: number; recordedAt: string };
          sequences.push(record.sequence);
          times.push(record.recordedAt);
          events.push(line.slice(line.indexOf(',"event":') + 9, -1));
        }
        const { rows } = await this.#run("append", (pool) =>
          pool.query<{ n: string }>(
            `WITH l AS (
               UPDATE ${s}.adaptor_session_logs SET last_sequence = $3::bigint + $4::bigint, updated_at = now()
               WHERE key = $1 AND token = $2::bigint AND last_sequence = $3::bigint RETURNING key),
             ins AS (
               INSERT INTO ${s}.adaptor_session_events (key, sequence, recorded_at, event)
               SELECT l.key, e.sequence, e.recorded_at, e.event::json
               FROM l, unnest($5::bigint[], $6::timestamptz[], $7::text[]) AS e(sequence, recorded_at, event)
               RETURNING 1),
             n AS (SELECT count(*) AS n FROM ins)
             SELECT n.n::text AS n, CASE WHEN n.n > 0 THEN pg_notify($8, $1) END FROM n`,
            [key, token, first, lines.length, sequences, times, events, this.#channelName],
          ),
        );
        return Number(rows[0]?.n ?? 0) === lines.length;
      },
      lost: async (key) => {
        const row = await this.#holder(key).catch(() => undefined);
        return new EventLogLockedError(key, row && lockHolder(row), "the writer lost the key to another writer");
      },
      release: async (key, token) => {
        await this.#run("release", (pool) =>
          pool.query(
            `UPDATE ${s}.adaptor_session_logs SET holder_pid = NULL, holder_host = NULL, holder_lock_hi = NULL, holder_lock_lo = NULL, acquired_at = NULL
             WHERE key = $1 AND token = $2::bigint`,
            [key, token],
          ),
        );
      },
      closed: (writer) => this.#writers.delete(writer),
    };
  }

  /** The schema this backend's tables live in. */
  get schema(): string {
    return this.#schema;
  }

  /**
   * Creates the schema, tables and index if missing. Idempotent, and safe to call from several
   * processes at once (serialised by an advisory lock). Call it once before first use.
   * @throws DriverError when the database refuses (e.g. no CREATE privilege).
   */
  async migrate(options: BackendCallOptions = {}): Promise<void> {
    this.#check("migrate");
    throwIfAborted(options.signal);
    await postgresTransaction(
      () => this.#pool.connect(),
      async (client) => {
        await client.query(MIGRATE_LOCK);
        for (const ddl of schemaDdl(this.#s)) await client.query(ddl);
      },
      { failure: (error) => backendError("migrate", error) },
    );
  }

  /**
   * Takes the key's writer: one statement that claims the key's row when it is free or its holder
   * is gone. The sequence continues from the log's last record.
   * @throws EventLogLockedError (`ErrEventLogLocked`) while a live writer (in this backend object,
   * another one, another process or host) holds the key; InvalidSessionKeyError; DriverError.
   */
  async openWriter(key: string, options: BackendCallOptions = {}): Promise<EventLogWriter> {
    this.#check("openWriter");
    checkSessionKey(key);
    throwIfAborted(options.signal);
    for (let tries = 0; ; tries++) {
      const lock = await this.#channel.ready(options.signal).catch((error: unknown) => {
        throw backendError("openWriter", error);
      });
      this.#check("openWriter");
      const { rows } = await this.#run("openWriter", (pool) =>
        pool.query<{ token: string; last_sequence: string }>(
          `INSERT INTO ${this.#s}.adaptor_session_logs AS l (key, token, holder_pid, holder_host, holder_lock_hi, holder_lock_lo, acquired_at)
           VALUES ($1, 1, $2, $3, $4, $5, now())
           ON CONFLICT (key) DO UPDATE SET token = l.token + 1, holder_pid = EXCLUDED.holder_pid, holder_host = EXCLUDED.holder_host,
             holder_lock_hi = EXCLUDED.holder_lock_hi, holder_lock_lo = EXCLUDED.holder_lock_lo, acquired_at = now()
           WHERE l.holder_lock_hi IS NULL OR NOT ${HOLDER_ALIVE}
           RETURNING token::text AS token, last_sequence::text AS last_sequence`,
          [key, process.pid, hostname(), lock.hi, lock.lo],
        ),
      );
      const row = rows[0];
      if (row) {
        if (this.#closed) {
          await this.#host.release(key, row.token).catch(() => {});
          throw closedError("postgres event backend", "openWriter");
        }
        const writer = new PostgresEventWriter(key, row.token, Number(row.last_sequence), this.#maxRecordBytes, this.#host);
        this.#writers.add(writer);
        return writer;
      }
      const holder = await this.#holder(key);
      // Released (or its holder gone) between the two statements: claim it again.
      if (holder && !holder.alive && tries < 3) continue;
      throw new EventLogLockedError(key, holder ? lockHolder(holder) : undefined, "a writer that released the key meanwhile");
    }
  }

  /**
   * Yields the key's records in order, as present when the replay starts (a key with no log yields
   * nothing), from the one after `after`. Needs no lock: records a live writer commits meanwhile
   * are not part of this replay (use {@link follow} for them).
   * @throws EventLogCorruptError (kind `sequence-gap`) when a stored record is missing (rows deleted
   * by hand), after yielding the records before it; InvalidSessionKeyError; DriverError.
   */
  async *replay(key: string, options: ReplayOptions = {}): AsyncIterable<RecordedEvent> {
    this.#check("replay");
    checkSessionKey(key);
    const after = checkAfter(options.after);
    throwIfAborted(options.signal);
    const { rows } = await this.#run("replay", (pool) =>
      pool.query<{ last: string }>(`SELECT last_sequence::text AS last FROM ${this.#s}.adaptor_session_logs WHERE key = $1`, [key]),
    );
    const last = Number(rows[0]?.last ?? 0);
    yield* this.#page(key, after, last, options.signal);
  }

  /**
   * Replays the key's records after `after`, then yields each record as soon as it is committed,
   * by any writer on any host (woken by `LISTEN/NOTIFY`; a notification lost while the connection
   * was down is made up by reading again on reconnect). Never ends on its own: stop it with
   * `signal` (it then rejects with `signal.reason`) or by leaving the loop. A key with no log yet is
   * followed from its first record.
   * @throws InvalidSessionKeyError; EventLogCorruptError (see {@link replay}); DriverError when the
   * server cannot be reached again after a lost connection (follow again from the last sequence
   * seen); `ErrJSONLEventBackendClosed` once the backend is closed.
   */
  async *follow(key: string, options: ReplayOptions = {}): AsyncIterable<RecordedEvent> {
    this.#check("follow");
    checkSessionKey(key);
    let after = checkAfter(options.after);
    const { signal } = options;
    for (;;) {
      throwIfAborted(signal);
      await this.#channel.ready(signal).catch((error: unknown) => {
        this.#check("follow");
        throw backendError("follow", error);
      });
      this.#check("follow");
      // Taken before reading, so an append committed after the read still wakes it.
      const ticket = this.#channel.ticket(key);
      try {
        let seen = false;
        for await (const record of this.#page(key, after, Number.MAX_SAFE_INTEGER, signal)) {
          seen = true;
          after = record.sequence;
          yield record;
        }
        if (!seen) await ticket.wait(signal);
      } finally {
        ticket.drop();
      }
    }
  }

  /**
   * Checks that no live writer holds the key and reports its last sequence. A PostgreSQL log has
   * no torn lines (each append is one atomic statement), so nothing is ever cut:
   * `truncatedBytes` is always 0.
   * @throws EventLogLockedError while a live writer holds the key; InvalidSessionKeyError; DriverError.
   */
  async repair(key: string, options: BackendCallOptions = {}): Promise<RepairReport> {
    this.#check("repair");
    checkSessionKey(key);
    throwIfAborted(options.signal);
    const { rows } = await this.#run("repair", (pool) =>
      pool.query<LogRow & { last_sequence: string }>(
        `SELECT last_sequence::text AS last_sequence, holder_pid, holder_host, acquired_at, holder_lock_hi IS NOT NULL AND ${HOLDER_ALIVE} AS alive
         FROM ${this.#s}.adaptor_session_logs l WHERE key = $1`,
        [key],
      ),
    );
    const row = rows[0];
    if (row?.alive) throw new EventLogLockedError(key, lockHolder(row));
    return { key, truncatedBytes: 0, lastSequence: Number(row?.last_sequence ?? 0) };
  }

  /**
   * Retention: deletes every log (with its records) not appended to for `olderThanMs` (by the
   * database clock) and held by no live writer. Returns how many logs were deleted.
   * @throws RangeError for a negative or non-finite `olderThanMs`; DriverError.
   */
  async prune(olderThanMs: number, options: BackendCallOptions = {}): Promise<number> {
    this.#check("prune");
    if (typeof olderThanMs !== "number" || !Number.isFinite(olderThanMs) || olderThanMs < 0) {
      throw new RangeError(`prune: olderThanMs must be a finite number >= 0, got ${String(olderThanMs)}`);
    }
    throwIfAborted(options.signal);
    const { rowCount } = await this.#run("prune", (pool) =>
      pool.query(
        `DELETE FROM ${this.#s}.adaptor_session_logs l
         WHERE l.updated_at < now() - $1::float8 * interval '1 millisecond' AND (l.holder_lock_hi IS NULL OR NOT ${HOLDER_ALIVE})`,
        [olderThanMs],
      ),
    );
    return rowCount ?? 0;
  }

  /**
   * Closes every open writer (their pending appends complete first), ends the LISTEN connection,
   * and the pool when the backend made it. Idempotent: a later call waits for the same close.
   * @throws AppendsPendingError naming the appends that had not answered when `options.signal`
   * aborted first (see `EventBackend.close`): the close goes on, the LISTEN connection and the
   * pool end once they answer.
   */
  close(options: BackendCallOptions = {}): Promise<void> {
    this.#closed = true;
    this.#closing ??= (async () => {
      await Promise.all([...this.#writers].map((w) => w.close()));
      await this.#channel.close();
      if (this.#owned) await this.#pool.end().catch(() => {});
    })();
    return closeWithin(this.#closing, options.signal, () => [...this.#writers].flatMap((w) => w.pendingAppends() ?? []));
  }

  /** Same as {@link close}. */
  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }

  async *#page(key: string, after: number, last: number, signal: AbortSignal | undefined): AsyncIterable<RecordedEvent> {
    let expected = after + 1;
    while (expected <= last) {
      throwIfAborted(signal);
      this.#check("replay");
      const { rows } = await this.#run("replay", (pool) =>
        pool.query<{ seq: string; recorded_at: Date; event: string }>(
          `SELECT sequence::text AS seq, recorded_at, event::text AS event FROM ${this.#s}.adaptor_session_events
           WHERE key = $1 AND sequence >= $2::bigint AND sequence <= $3::bigint ORDER BY sequence LIMIT ${PAGE}`,
          [key, expected, last],
        ),
      );
      for (const row of rows) {
        const sequence = Number(row.seq);
        if (sequence !== expected) throw sequenceGap(key, expected, sequence);
        expected += 1;
        throwIfAborted(signal);
        yield { sequence, recordedAt: row.recorded_at.toISOString(), event: JSON.parse(row.event) as RecordedEvent["event"] };
      }
      if (rows.length < PAGE) {
        // A replay knows the last sequence stored when it started: fewer rows means missing ones.
        if (last !== Number.MAX_SAFE_INTEGER && expected <= last) throw sequenceGap(key, expected, undefined);
        return;
      }
    }
  }

  async #holder(key: string): Promise<LogRow | undefined> {
    const { rows } = await this.#run("openWriter", (pool) =>
      pool.query<LogRow>(
        `SELECT holder_pid, holder_host, acquired_at, holder_lock_hi IS NOT NULL AND ${HOLDER_ALIVE} AS alive FROM ${this.#s}.adaptor_session_logs l WHERE key = $1`,
        [key],
      ),
    );
    return rows[0];
  }

  async #run<T>(op: string, body: (pool: pg.Pool) => Promise<T>): Promise<T> {
    try {
      return await body(this.#pool);
    } catch (error) {
      if (this.#closed) throw closedError("postgres event backend", op);
      throw backendError(op, error);
    }
  }

  #check(op: string): void {
    if (this.#closed) throw closedError("postgres event backend", op);
  }
}

function lockHolder(row: LogRow): { pid: number; hostname: string; acquiredAt: string } | undefined {
  if (row.holder_pid === null || row.holder_host === null || row.acquired_at === null) return undefined;
  return { pid: row.holder_pid, hostname: row.holder_host, acquiredAt: row.acquired_at.toISOString() };
}

/** A stored record is missing (rows deleted by hand): `expected` was not found (`found` instead, if any). */
function sequenceGap(key: string, expected: number, found: number | undefined): EventLogCorruptError {
  return new EventLogCorruptError({
    key,
    kind: "sequence-gap",
    line: 0,
    offset: 0,
    expectedSequence: expected,
    foundSequence: found,
    ...(found === undefined ? { detail: "records missing" } : {}),
  });
}

function checkAfter(after: number | undefined): number {
  if (after === undefined) return 0;
  if (!Number.isSafeInteger(after) || after < 0) throw new RangeError(`replay: after must be an integer >= 0, got ${String(after)}`);
  return after;
}
