import type pg from "pg";
import { postgresTransaction } from "@adaptor/errors/internal";
import type { JsonValue } from "@adaptor/sessionrecorder";
import { verdictEventBody, type StoredVerdict } from "../verdict/verdict.js";
import { escapeNul, NUL_ESCAPED_KEY, readInput, readJson, writtenInput, writtenJson } from "./nul-escape.js";

/** Quotes a SQL identifier. */
export function quoteIdent(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

/**
 * The notification topic of a run's verdict (besides the run's own topic, which every append
 * notifies): a host waiting only for the verdict wakes once, not on every event.
 */
export function verdictTopic(runId: string): string {
  return `verdict:${runId}`;
}

/** The notification topic that asks the worker of a run to cancel it. */
export function cancelTopic(runId: string): string {
  return `cancel:${runId}`;
}

/**
 * The `approval.resolved` notice that closes approval row `a` in its run's stream when the attempt
 * that asked it could not say so itself (its worker was lost, or the run was settled without it):
 * the request's id, kind, tool name and approval attempt, as the SDK writes them, and the SDK run
 * id of the attempt in `meta`. Its outcome is the SDK's for the answer recorded (`approved`,
 * `denied`, or `answered` with the `choice`), or `expired` (the SDK's for a question that ended
 * unanswered) when none was.
 */
function closingNotice(a: string): string {
  const outcome = `CASE ${a}.decision->>'outcome' WHEN 'approve' THEN 'approved' WHEN 'deny' THEN 'denied' WHEN 'answer' THEN 'answered'
    ELSE 'expired' END`;
  return `jsonb_build_object('type', 'notice', 'kind', 'approval.resolved',
    'message', 'approval ' || ${a}.id || CASE WHEN ${a}.decision IS NULL THEN ' closed unanswered' ELSE ' closed with its recorded answer' END
      || ': the attempt that asked it ended',
    'data', jsonb_strip_nulls(jsonb_build_object('id', ${a}.id, 'kind', ${a}.request->'kind', 'toolName', ${a}.request->'toolName',
      'outcome', ${outcome}, 'choice', ${a}.decision->'choice', 'attempt', ${a}.request->'attempt')),
    'meta', jsonb_strip_nulls(jsonb_build_object('runId', ${a}.request->'runId', 'time', to_jsonb(now()))))`;
}

/**
 * Whether the attempt a worker runs still holds its pg-boss job, asked in the transaction of
 * `client` (which keeps the job's row until it ends).
 */
export type ClaimCheck = (client: pg.ClientBase) => Promise<boolean>;

/** One stored event row. */
export interface EventRow {
  readonly seq: number;
  readonly attempt: number;
  readonly recordedAt: string;
  readonly event: JsonValue;
}

/** One stored run row. */
export interface RunRow {
  readonly id: string;
  readonly threadKey: string | null;
  readonly prompt: string;
  /** A prompt of parts (text and images as base64 `data:` URLs), stored as JSON; null for a text prompt (then `prompt`). */
  readonly promptParts: JsonValue[] | null;
  readonly options: Record<string, JsonValue>;
  readonly attempt: number;
  readonly base: JsonValue;
  readonly verdict: StoredVerdict | null;
  /** Set when an attempt committed the run's thread turn. */
  readonly committed: boolean;
  /** The thread record the run's latest attempt to commit its turn was about to write, or null. */
  readonly commitIntent: CommitIntent | null;
  /** For a run that resumes a suspended turn: the stored approval it answers and the decision. */
  readonly resume: RunResume | null;
  /**
   * Milliseconds since the run's first attempt started (PostgreSQL's clock), when read; null for a
   * run no attempt started. The run's `timeoutMs` counts from there across its attempts.
   */
  readonly elapsedMs?: number | null;
  /** The cancel asked of the run (`reason` null when none was given), when read; null when none was asked. */
  readonly cancel?: { readonly reason: string | null } | null;
}

/**
 * The thread record an attempt is about to commit, stored before the commit (which a lost worker
 * may finish without the fleet learning of it): the record's `id` and its `updatedAt` (ISO 8601,
 * which every thread store keeps exactly as written; the SDK sets it to the time of the write). A
 * record that reads back with both is the one this attempt wrote; another turn's write of it
 * carries that turn's own time.
 */
export interface CommitIntent {
  /** The attempt that committed (or meant to). */
  readonly attempt: number;
  readonly recordId: string;
  readonly updatedAt: string;
}

/** What a run resuming a suspended thread turn answers: the stored approval's id and the decision (JSON). */
export interface RunResume {
  readonly approvalId: string;
  readonly decision: JsonValue;
}

/**
 * The version of the fleet's tables this version of the fleet needs: `migrate()` writes it into
 * `adaptor_fleet_version`, and a host whose tables are at it (or a later one) starts without any DDL.
 * Bumped with every change to the tables' DDL.
 */
export const FLEET_SCHEMA_VERSION = 2;

/**
 * How long a submission with a thread key waits for the key's lock (another host's submission of
 * that key holds it until it commits) when the connection sets no `lock_timeout` of its own.
 */
export const SUBMIT_LOCK_TIMEOUT = "30s";

/** The fleet's own tables (runs, events, approvals) and the statements on them. */
export class FleetTables {
  readonly #pool: pg.Pool;
  readonly #s: string;
  /** pg-boss's schema, quoted. */
  readonly #boss: string;
  /**
   * The SQL condition on an approval `a` joined with its run `r` that holds while the approval is
   * pending: unanswered, not closed, asked by the run's current attempt, its run without a verdict,
   * and that attempt's pg-boss job still active (`retry_count` one less than the attempt). What
   * `approval()` reads, `answer()` requires and the listings list. The last part makes an attempt's
   * end close its approvals in the very write that ends it: pg-boss failing the job of a lost
   * worker (its heartbeat stopped) or of one that gave up re-queues or fails the job in one
   * statement, and from its commit on the approvals of that attempt read `closed` (their rows'
   * `closed_at` is written by the next attempt or the verdict).
   */
  readonly #pending: string;
  /**
   * The SQL condition that holds while attempt `attempt` (a SQL expression) of run `run` (one too)
   * still has its pg-boss job active: the job not failed, retried or settled since that attempt
   * fetched it (`retry_count` one less than the attempt).
   */
  readonly #jobActive: (run: string, attempt: string) => string;
  /** The LISTEN/NOTIFY channel of this schema's events. */
  readonly channel: string;

  /**
   * @param schema the fleet's schema.
   * @param boss pg-boss's schema (`<schema>_boss`), whose queues hold the runs' jobs (those of every
   *   host's `queue` option and run format).
   */
  constructor(pool: pg.Pool, schema: string, boss: { readonly schema: string }) {
    this.#pool = pool;
    this.#s = quoteIdent(schema);
    this.channel = `adaptor_fleet_${schema}`.slice(0, 63);
    // The job is looked up by its primary key (name, id) in every queue of pg-boss's schema: the
    // run's own queue, whichever host's `queue` option and run format sent it there (a run's job
    // id is the run's id, in one queue only), so hosts of every queue of the schema read the same.
    const job = quoteIdent(boss.schema);
    this.#boss = job;
    this.#jobActive = (run, attempt) =>
      `EXISTS (SELECT 1 FROM ${job}.job j
        WHERE j.name = ANY (ARRAY(SELECT q.name FROM ${job}.queue q)) AND j.id = ${run} AND j.state = 'active' AND j.retry_count = ${attempt} - 1)`;
    this.#pending = `a.decision IS NULL AND a.closed_at IS NULL AND r.verdict IS NULL AND r.attempt = a.attempt
      AND ${this.#jobActive("r.id", "a.attempt")}`;
  }

  /**
   * Runs `body` in BEGIN … COMMIT on one client of the pool (see `postgresTransaction`); rolls back
   * when it throws, and rejects with its error as it is.
   */
  transaction<T>(body: (client: pg.PoolClient) => Promise<T>): Promise<T> {
    return postgresTransaction(() => this.#pool.connect(), body);
  }

  /**
   * The SQL condition on a run's row true for a run that may start: one started already, or one unstarted within its queue deadline
   * (PostgreSQL's clock; a run of an earlier version has none).
   */
  get #notExpired(): string {
    return "(attempt > 0 OR queue_deadline_ms IS NULL OR now() < submitted_at + queue_deadline_ms * interval '1 millisecond')";
  }

  /**
   * The version of the fleet's tables as `migrate()` recorded it, or undefined when the schema, the
   * version table or its row is missing (tables of versions before it, or none). One read, no DDL.
   */
  async schemaVersion(): Promise<number | undefined> {
    try {
      const { rows } = await this.#pool.query<{ version: number }>(`SELECT version FROM ${this.#s}.adaptor_fleet_version`);
      return rows[0]?.version;
    } catch (error) {
      const code = (error as { code?: unknown }).code;
      if (code === "42P01" || code === "3F000") return undefined;
      throw error;
    }
  }

  /**
   * Whether the connecting role may write runs (INSERT and UPDATE on the runs table): false for a
   * role granted only reads. One read, no write.
   */
  async writable(): Promise<boolean> {
    const { rows } = await this.#pool.query<{ ok: boolean }>(
      `SELECT has_table_privilege($1, 'INSERT') AND has_table_privilege($1, 'UPDATE') AS ok`,
      [`${this.#s}.adaptor_fleet_runs`],
    );
    return rows[0]?.ok === true;
  }

  /**
   * Creates the schema and tables if missing and brings tables of earlier versions up to
   * {@link FLEET_SCHEMA_VERSION}, which it records (serialized across hosts by an advisory lock).
   */
  async migrate(): Promise<void> {
    const s = this.#s;
    await this.transaction(async (client) => {
      await client.query("SELECT pg_advisory_xact_lock(hashtext($1))", [`adaptor_fleet:${s}`]);
      await client.query(`CREATE SCHEMA IF NOT EXISTS ${s}`);
      await client.query(`CREATE TABLE IF NOT EXISTS ${s}.adaptor_fleet_runs (
        id uuid PRIMARY KEY,
        thread_key text,
        prompt text NOT NULL,
        options jsonb NOT NULL,
        submitted_at timestamptz NOT NULL DEFAULT now(),
        attempt int NOT NULL DEFAULT 0,
        last_seq bigint NOT NULL DEFAULT 0,
        base jsonb,
        verdict jsonb,
        verdict_attempt int,
        started_at timestamptz,
        committed_at timestamptz,
        finished_at timestamptz)`);
      await client.query(
        `CREATE INDEX IF NOT EXISTS adaptor_fleet_runs_open ON ${s}.adaptor_fleet_runs (submitted_at) WHERE verdict IS NULL`,
      );
      await client.query(
        `CREATE INDEX IF NOT EXISTS adaptor_fleet_runs_finished ON ${s}.adaptor_fleet_runs (finished_at) WHERE verdict IS NOT NULL`,
      );
      await client.query(`CREATE TABLE IF NOT EXISTS ${s}.adaptor_fleet_events (
        run_id uuid NOT NULL REFERENCES ${s}.adaptor_fleet_runs (id) ON DELETE CASCADE,
        seq bigint NOT NULL,
        attempt int NOT NULL,
        recorded_at timestamptz NOT NULL DEFAULT now(),
        event jsonb NOT NULL,
        PRIMARY KEY (run_id, seq))`);
      await client.query(`CREATE TABLE IF NOT EXISTS ${s}.adaptor_fleet_approvals (
        id text PRIMARY KEY,
        run_id uuid NOT NULL REFERENCES ${s}.adaptor_fleet_runs (id) ON DELETE CASCADE,
        attempt int NOT NULL,
        request jsonb NOT NULL,
        decision jsonb,
        created_at timestamptz NOT NULL DEFAULT now(),
        answered_at timestamptz)`);
      // Tables of earlier versions: an approval closed by a retried attempt (its attempt was lost
      // before anyone answered), and the approval whose recorded answer a retried attempt replayed.
      await client.query(
        `ALTER TABLE ${s}.adaptor_fleet_approvals ADD COLUMN IF NOT EXISTS closed_at timestamptz, ADD COLUMN IF NOT EXISTS replayed_from text`,
      );
      // A run resuming a suspended turn: what it answers, and its claim on that approval. One run
      // of a thread holds the claim of an approval at a time (the unique index); a run that settles
      // without a Result gives it up, so a later resume can try again (the thread store decides).
      await client.query(
        `ALTER TABLE ${s}.adaptor_fleet_runs ADD COLUMN IF NOT EXISTS resume jsonb, ADD COLUMN IF NOT EXISTS resume_claim text`,
      );
      // The thread record an attempt is about to commit (see `CommitIntent`).
      await client.query(`ALTER TABLE ${s}.adaptor_fleet_runs ADD COLUMN IF NOT EXISTS commit_intent jsonb`);
      // A prompt of parts (text and images): the JSON parts; `prompt` then holds their text.
      await client.query(`ALTER TABLE ${s}.adaptor_fleet_runs ADD COLUMN IF NOT EXISTS prompt_parts jsonb`);
      // The queue deadline (ms after submission) past which an unstarted run expires; null in runs
      // submitted by earlier versions (no deadline).
      await client.query(`ALTER TABLE ${s}.adaptor_fleet_runs ADD COLUMN IF NOT EXISTS queue_deadline_ms bigint`);
      // A cancel of a running run, asked of its worker: it ends the CLI, then writes the verdict.
      await client.query(
        `ALTER TABLE ${s}.adaptor_fleet_runs ADD COLUMN IF NOT EXISTS cancel_requested_at timestamptz, ADD COLUMN IF NOT EXISTS cancel_reason text`,
      );
      // The approvals still open to answers, by run: what a verdict closes, and what the fleet-wide
      // listing reads (every ending of a run closes its own, so this stays small).
      await client.query(
        `CREATE INDEX IF NOT EXISTS adaptor_fleet_approvals_open ON ${s}.adaptor_fleet_approvals (run_id) WHERE decision IS NULL AND closed_at IS NULL`,
      );
      await client.query(
        `CREATE UNIQUE INDEX IF NOT EXISTS adaptor_fleet_runs_resume_claim ON ${s}.adaptor_fleet_runs (thread_key, resume_claim) WHERE resume_claim IS NOT NULL`,
      );
      // The version the tables are at: a host that reads it current starts without DDL.
      await client.query(`CREATE TABLE IF NOT EXISTS ${s}.adaptor_fleet_version (
        one boolean PRIMARY KEY DEFAULT true CHECK (one),
        version int NOT NULL)`);
      await client.query(
        `INSERT INTO ${s}.adaptor_fleet_version (version) VALUES ($1)
         ON CONFLICT (one) DO UPDATE SET version = GREATEST(${s}.adaptor_fleet_version.version, EXCLUDED.version)`,
        [FLEET_SCHEMA_VERSION],
      );
    });
  }

  /**
   * Unfinished runs (no verdict yet). With `announce`, also notifies that topic on the fleet's
   * channel in the same statement (delivered when the caller's transaction commits, if it does).
   * With `threadKey`, also takes the transaction's lock on submitting to that key (see
   * {@link insertRun}): the submissions of one key are taken one at a time, fleet-wide.
   */
  async open(client: pg.ClientBase | pg.Pool = this.#pool, announce?: string, threadKey?: string): Promise<number> {
    const count = `SELECT count(*)::text AS n FROM ${this.#s}.adaptor_fleet_runs WHERE verdict IS NULL`;
    const params: string[] = [];
    const extra: string[] = [];
    if (announce !== undefined) {
      params.push(this.channel, announce);
      extra.push("pg_notify($1, $2)");
    }
    if (threadKey !== undefined) {
      // The lock is waited for at most the connection's `lock_timeout`, else SUBMIT_LOCK_TIMEOUT: a
      // host frozen while holding it does not hold every other submission of the key (each on a
      // pool connection) without bound. Set first: the select list is evaluated in order.
      extra.push(
        `set_config('lock_timeout', CASE WHEN current_setting('lock_timeout') IN ('0', '0ms') THEN '${SUBMIT_LOCK_TIMEOUT}' ELSE current_setting('lock_timeout') END, true)`,
      );
      params.push(`adaptor_fleet:${this.#s}:thread:${threadKey}`);
      extra.push(`pg_advisory_xact_lock(hashtextextended($${params.length}, 0))`);
    }
    const { rows } = await client.query<{ n: string }>(extra.length === 0 ? count : `SELECT (${count}) AS n, ${extra.join(", ")}`, params);
    return Number(rows[0]?.n ?? 0);
  }

  /**
   * Inserts a submitted run: `inserted`, or what refused it: `exists` (a run has this id) or, for a
   * resume, `claimed` (another run of the thread holds the approval's claim). A resume submitted
   * while another transaction inserts one for the same approval waits for it and is refused if it
   * commits.
   */
  async insertRun(
    client: pg.ClientBase,
    id: string,
    threadKey: string | undefined,
    prompt: string,
    options: JsonValue,
    resume: RunResume | undefined,
    promptParts: readonly JsonValue[] | undefined,
    queueDeadlineMs: number,
  ): Promise<"inserted" | "exists" | "claimed"> {
    // U+0000, which text and jsonb cannot hold, is escaped (and unescaped as the row is read).
    const written = writtenInput({
      prompt,
      promptParts: promptParts ?? null,
      options: options as Record<string, JsonValue>,
      resume: resume ?? null,
    });
    const { rowCount } = await client.query(
      `INSERT INTO ${this.#s}.adaptor_fleet_runs (id, thread_key, prompt, options, resume, resume_claim, prompt_parts, queue_deadline_ms, submitted_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, clock_timestamp())
       ON CONFLICT DO NOTHING`,
      [
        id,
        threadKey ?? null,
        written.prompt,
        JSON.stringify(written.options),
        written.resume ? JSON.stringify(written.resume) : null,
        resume?.approvalId ?? null,
        written.promptParts ? JSON.stringify(written.promptParts) : null,
        queueDeadlineMs,
      ],
    );
    if (rowCount === 1) return "inserted";
    if (!resume) return "exists";
    const { rowCount: found } = await client.query(`SELECT 1 FROM ${this.#s}.adaptor_fleet_runs WHERE id = $1`, [id]);
    return found ? "exists" : "claimed";
  }

  /**
   * Gives run `id`'s job (in pg-boss queue `queue`, sent in this transaction) the run's
   * `submitted_at` as its creation time, the order pg-boss fetches a thread key's jobs in: the
   * time the database took the submission (under its key's lock, see {@link open}) rather than
   * when its transaction began, so that a thread's turns run in the order of their `submittedAt`.
   */
  async orderJob(client: pg.ClientBase, id: string, queue: string): Promise<void> {
    await client.query(
      `UPDATE ${this.#boss}.job j SET created_on = r.submitted_at
       FROM ${this.#s}.adaptor_fleet_runs r WHERE j.name = $2 AND j.id = $1 AND r.id = $1`,
      [id, queue],
    );
  }

  /**
   * Gives run `id`'s job (in pg-boss queue `queue`), fetched at `retryCount` and not started, back
   * to the queue as pg-boss's own restore of an undelivered job does: `created` again, its next
   * claim at the same `retryCount` (the same attempt). Fenced to that claim: a job no longer active
   * under it (failed, retried, claimed again) is left as it is.
   */
  async handBack(id: string, queue: string, retryCount: number): Promise<void> {
    await this.#pool.query(
      `UPDATE ${this.#boss}.job SET state = 'created', started_on = NULL, heartbeat_on = NULL
       WHERE name = $2 AND id = $1 AND state = 'active' AND retry_count = $3`,
      [id, queue, retryCount],
    );
  }

  /** What a run was submitted with, or undefined. */
  async runInfo(
    id: string,
  ): Promise<{ threadKey: string | null; submittedAt: string; settled: boolean; lastSequence: number } | undefined> {
    const { rows } = await this.#pool.query<{ thread_key: string | null; submitted_at: Date; settled: boolean; last_seq: string }>(
      `SELECT thread_key, submitted_at, verdict IS NOT NULL AS settled, last_seq::text AS last_seq FROM ${this.#s}.adaptor_fleet_runs WHERE id = $1`,
      [id],
    );
    const row = rows[0];
    return row
      ? { threadKey: row.thread_key, submittedAt: row.submitted_at.toISOString(), settled: row.settled, lastSequence: Number(row.last_seq) }
      : undefined;
  }

  /**
   * An approval as stored, with its state: `pending` (unanswered, not closed, its attempt current
   * and its job active, its run unsettled), `answered`, or `closed` (unanswered, but closed by its
   * deadline, its run settled, or its attempt ended: lost, failed or given up); an answered one
   * with the decision recorded.
   */
  async approval(
    id: string,
  ): Promise<{ runId: string; request: JsonValue; status: "pending" | "answered" | "closed"; decision?: JsonValue } | undefined> {
    const { rows } = await this.#pool.query<{ run_id: string; request: JsonValue; decision: JsonValue | null; open: boolean }>(
      `SELECT a.run_id, a.request, a.decision, (${this.#pending}) AS open
       FROM ${this.#s}.adaptor_fleet_approvals a JOIN ${this.#s}.adaptor_fleet_runs r ON r.id = a.run_id WHERE a.id = $1`,
      [id],
    );
    const row = rows[0];
    if (!row) return undefined;
    if (row.decision !== null)
      return { runId: row.run_id, request: readJson(row.request), status: "answered", decision: readJson(row.decision) };
    return { runId: row.run_id, request: readJson(row.request), status: row.open ? "pending" : "closed" };
  }

  /** The run, or undefined. */
  async run(id: string): Promise<RunRow | undefined> {
    const { rows } = await this.#pool.query<{
      id: string;
      thread_key: string | null;
      prompt: string;
      prompt_parts: JsonValue[] | null;
      options: Record<string, JsonValue>;
      attempt: number;
      base: JsonValue;
      verdict: StoredVerdict | null;
      committed: boolean;
      commit_intent: CommitIntent | null;
      resume: RunResume | null;
      elapsed_ms: number | null;
      cancel_requested: boolean;
      cancel_reason: string | null;
    }>(
      `SELECT id, thread_key, prompt, prompt_parts, options, attempt, base, verdict, committed_at IS NOT NULL AS committed, commit_intent, resume,
         (extract(epoch FROM now() - started_at) * 1000)::float8 AS elapsed_ms, cancel_requested_at IS NOT NULL AS cancel_requested, cancel_reason
       FROM ${this.#s}.adaptor_fleet_runs WHERE id = $1`,
      [id],
    );
    const row = rows[0];
    return row
      ? readInput({
          id: row.id,
          threadKey: row.thread_key,
          prompt: row.prompt,
          promptParts: row.prompt_parts,
          options: row.options,
          attempt: row.attempt,
          base: row.base,
          verdict: readJson(row.verdict),
          committed: row.committed,
          commitIntent: row.commit_intent,
          resume: row.resume,
          elapsedMs: row.elapsed_ms,
          cancel: row.cancel_requested ? { reason: row.cancel_reason } : null,
        })
      : undefined;
  }

  /**
   * Starts attempt `attempt` of a run: fences every earlier attempt out (their appends and verdicts
   * no longer land) and records `base` on the first. Returns the run's row as it was before, or
   * undefined when the run has a verdict already, a later attempt started or a cancel was asked of
   * it (a cancelled run starts no further attempt). `waitMs`: submission to the first attempt's
   * start (PostgreSQL's clock).
   */
  async startAttempt(id: string, attempt: number, base: JsonValue): Promise<{ base: JsonValue; waitMs: number } | undefined> {
    const { rows } = await this.#pool.query<{ base: JsonValue; wait_ms: number }>(
      `UPDATE ${this.#s}.adaptor_fleet_runs SET attempt = $2, base = COALESCE(base, $3::jsonb), started_at = COALESCE(started_at, now())
       WHERE id = $1 AND verdict IS NULL AND attempt < $2 AND cancel_requested_at IS NULL AND ${this.#notExpired}
       RETURNING base, (extract(epoch FROM started_at - submitted_at) * 1000)::float8 AS wait_ms`,
      [id, attempt, JSON.stringify(base)],
    );
    const row = rows[0];
    return row ? { base: row.base, waitMs: row.wait_ms } : undefined;
  }

  /**
   * Starts a run's first attempt in one statement: what {@link run}, {@link startAttempt} and
   * {@link append} of `started` (its `attempt-started` event) do one after another, for an attempt
   * that has nothing to recover (no earlier attempt, so no committed turn and no lost approvals).
   * Returns the run's row, its base as stored and the wait (ms, submission to start), or undefined
   * when the run has a verdict already (a cancel) or an attempt started (nothing is written then).
   */
  async startFirstAttempt(
    id: string,
    base: JsonValue,
    started: JsonValue,
  ): Promise<{ run: RunRow; base: JsonValue; waitMs: number } | undefined> {
    const { rows } = await this.#pool.query<{
      thread_key: string | null;
      prompt: string;
      prompt_parts: JsonValue[] | null;
      options: Record<string, JsonValue>;
      base: JsonValue;
      resume: RunResume | null;
      wait_ms: number;
    }>(
      `WITH r AS (
         UPDATE ${this.#s}.adaptor_fleet_runs SET attempt = 1, base = COALESCE(base, $2::jsonb), started_at = COALESCE(started_at, now()),
           last_seq = last_seq + 1
         WHERE id = $1 AND verdict IS NULL AND attempt < 1 AND ${this.#notExpired}
         RETURNING thread_key, prompt, prompt_parts, options, base, resume, last_seq, (extract(epoch FROM started_at - submitted_at) * 1000)::float8 AS wait_ms),
       ins AS (
         INSERT INTO ${this.#s}.adaptor_fleet_events (run_id, seq, attempt, event) SELECT $1, r.last_seq, 1, $3::jsonb FROM r)
       SELECT thread_key, prompt, prompt_parts, options, base, resume, wait_ms, pg_notify($4, $1::text) FROM r`,
      [id, JSON.stringify(base), JSON.stringify(writtenJson(started)), this.channel],
    );
    const row = rows[0];
    if (!row) return undefined;
    const run: RunRow = readInput({
      id,
      threadKey: row.thread_key,
      prompt: row.prompt,
      promptParts: row.prompt_parts,
      options: row.options,
      attempt: 1,
      base: row.base,
      verdict: null,
      committed: false,
      commitIntent: null,
      resume: row.resume,
    });
    return { run, base: row.base, waitMs: row.wait_ms };
  }

  /**
   * Runs `commit` (the thread store's finalize of the run's turn) while holding the run's row, and
   * marks the run committed in the same transaction: a cancellation (`settle` with attempt 0) then
   * either happened before (nothing is committed: this throws) or waits and finds the turn committed
   * (it settles nothing, and the worker's verdict follows). First, in a write of its own, stores
   * `intent` (the record the commit writes): a worker lost after the thread store committed and
   * before this transaction did leaves the run unmarked, and a retried attempt then recognises the
   * record as this attempt's by it.
   * With `claim`, the attempt's pg-boss job must also still be this worker's (see {@link settle}).
   * @throws Error when the run already has a verdict, a later attempt started, or the claim lapsed.
   */
  async guardCommit<T>(id: string, attempt: number, intent: CommitIntent, commit: () => Promise<T>, claim?: ClaimCheck): Promise<T> {
    const recorded = await this.#pool.query(
      `UPDATE ${this.#s}.adaptor_fleet_runs SET commit_intent = $3 WHERE id = $1 AND attempt = $2 AND verdict IS NULL`,
      [id, attempt, JSON.stringify(intent)],
    );
    if (!recorded.rowCount) throw new Error(`fleet run ${id}: settled or superseded before attempt ${attempt} committed its turn`);
    return this.transaction(async (client) => {
      if (claim && !(await claim(client)))
        throw new Error(`fleet run ${id}: attempt ${attempt} lost its job's claim before it committed its turn`);
      const marked = await client.query(
        `UPDATE ${this.#s}.adaptor_fleet_runs SET committed_at = now() WHERE id = $1 AND attempt = $2 AND verdict IS NULL RETURNING 1`,
        [id, attempt],
      );
      if (!marked.rowCount) throw new Error(`fleet run ${id}: settled or superseded before attempt ${attempt} committed its turn`);
      return commit();
    });
  }

  /**
   * Appends events of attempt `attempt` in order, in one statement, and notifies listeners.
   * Returns false when the attempt was fenced out (a later attempt started, a verdict exists, or
   * the attempt's pg-boss job is no longer active: its worker lost the claim).
   */
  async append(id: string, attempt: number, events: readonly JsonValue[]): Promise<boolean> {
    if (events.length === 0) return true;
    const { rows } = await this.#pool.query<{ n: string }>(
      `WITH r AS (
         UPDATE ${this.#s}.adaptor_fleet_runs SET last_seq = last_seq + $3
         WHERE id = $1 AND attempt = $2 AND verdict IS NULL AND ${this.#jobActive("$1::uuid", "$2::int")}
         RETURNING last_seq - $3 AS first),
       ins AS (
         INSERT INTO ${this.#s}.adaptor_fleet_events (run_id, seq, attempt, event)
         SELECT $1, r.first + e.ord, $2, e.value FROM r, jsonb_array_elements($4::jsonb) WITH ORDINALITY AS e(value, ord)
         RETURNING seq)
       SELECT (SELECT count(*) FROM ins)::text AS n, pg_notify($5, $1::text)`,
      [id, attempt, events.length, JSON.stringify(events.map(writtenJson)), this.channel],
    );
    return Number(rows[0]?.n ?? 0) > 0;
  }

  /**
   * Writes the run's verdict, once: with its last events (`tail`, e.g. the SDK's `run-finished`)
   * and a final `{ type: "verdict" }` event, in one statement. `attempt` 0 writes whatever attempt
   * is current (a cancellation, the attempts budget) unless a turn was committed; otherwise only
   * that attempt may. A resume run settled without a Result gives up its claim on the approval.
   * The run's approvals left unanswered are closed in the same statement, so the verdict and their
   * `closed` state commit together (an answer holding the run's row either came first or is refused).
   * Notifies the run's topic and its {@link verdictTopic}. Returns whether this call wrote it.
   * The run's row is locked before the statement runs, in its transaction: an `approval.resolved`
   * notice an attempt appended first is then seen, so the stream holds at most one per approval.
   *
   * With `options.claim` (a worker settling the attempt it runs), the verdict is written in a
   * transaction that first asks `claim` whether the attempt's pg-boss job is still this worker's
   * (holding the job's row until the verdict commits); nothing is written when it is not.
   */
  async settle(
    id: string,
    attempt: number,
    verdict: StoredVerdict,
    tail: readonly JsonValue[] = [],
    options: { readonly unstarted?: boolean; readonly claim?: ClaimCheck } = {},
  ): Promise<boolean> {
    const { claim } = options;
    return this.transaction(async (client) => {
      if (claim && !(await claim(client))) return false;
      // The run's row first, as every write of its events takes it: the statement below then reads
      // the stream after any write of it that came first (its snapshot is taken once the row is
      // this transaction's), so it closes no question whose notice an attempt wrote meanwhile.
      await client.query(`SELECT 1 FROM ${this.#s}.adaptor_fleet_runs WHERE id = $1 FOR NO KEY UPDATE`, [id]);
      return this.#settle(client, id, attempt, verdict, tail, options);
    });
  }

  async #settle(
    client: pg.ClientBase,
    id: string,
    attempt: number,
    verdict: StoredVerdict,
    tail: readonly JsonValue[],
    options: { readonly unstarted?: boolean },
  ): Promise<boolean> {
    // The row keeps the whole verdict; the event leaves its bulky members to it (readers join them back).
    const events = [...tail, verdictEventBody(verdict) as unknown as JsonValue];
    // Questions the run's stream never closed (their attempt's worker was lost, or the run is
    // settled without it), unanswered or answered, are closed in it first, before the tail and the
    // verdict: an answered one with its recorded answer's outcome.
    const { rows } = await client.query<{ n: string }>(
      `WITH lost AS (
         SELECT ${closingNotice("a")} AS event, row_number() OVER (ORDER BY a.created_at, a.id) AS ord
         FROM ${this.#s}.adaptor_fleet_approvals a
         WHERE a.run_id = $1 AND (a.decision IS NOT NULL OR a.closed_at IS NULL) AND NOT (a.id = ANY ($9::text[])) AND ${this.#unclosedInStream("a")}),
       n AS (SELECT count(*)::int AS n FROM lost),
       r AS (
         UPDATE ${this.#s}.adaptor_fleet_runs
         SET last_seq = last_seq + $3 + n.n, verdict = $4::jsonb, verdict_attempt = attempt, finished_at = now(),
           resume_claim = CASE WHEN $4::jsonb->>'kind' = 'result' THEN resume_claim END
         FROM n
         WHERE id = $1 AND verdict IS NULL AND ($2 = 0 AND committed_at IS NULL OR attempt = $2) AND (NOT $8::boolean OR attempt = 0)
         RETURNING last_seq - $3 - n.n AS first, n.n AS lost, attempt),
       closing AS (
         INSERT INTO ${this.#s}.adaptor_fleet_events (run_id, seq, attempt, event)
         SELECT $1, r.first + lost.ord, r.attempt, lost.event FROM r, lost),
       ins AS (
         INSERT INTO ${this.#s}.adaptor_fleet_events (run_id, seq, attempt, event)
         SELECT $1, r.first + r.lost + e.ord, r.attempt, e.value FROM r, jsonb_array_elements($5::jsonb) WITH ORDINALITY AS e(value, ord)
         RETURNING seq),
       closed AS (
         UPDATE ${this.#s}.adaptor_fleet_approvals SET closed_at = now()
         WHERE run_id = $1 AND decision IS NULL AND closed_at IS NULL AND EXISTS (SELECT 1 FROM r))
       SELECT (SELECT count(*) FROM ins)::text AS n, pg_notify($6, $1::text), pg_notify($6, $7)`,
      [
        id,
        attempt,
        events.length,
        JSON.stringify(writtenJson(verdict)),
        JSON.stringify(events.map(writtenJson)),
        this.channel,
        verdictTopic(id),
        options.unstarted === true,
        resolvedIn(tail),
      ],
    );
    return Number(rows[0]?.n ?? 0) > 0;
  }

  /**
   * Settles run `id` with `verdict(queueDeadlineMs)` when no attempt of it started and its queue
   * deadline has passed (PostgreSQL's clock); an attempt that starts meanwhile wins (one of the two
   * statements waits for the other's row lock, then finds it changed). Returns `expired` when this
   * call wrote the verdict, `early` for an unstarted run whose deadline has not come yet, else
   * `no` (started, settled, unknown, or without a deadline).
   */
  async expire(id: string, verdict: (queueDeadlineMs: number) => StoredVerdict): Promise<"expired" | "early" | "no"> {
    const { rows } = await this.#pool.query<{ ms: string; due: boolean }>(
      `SELECT queue_deadline_ms::text AS ms, now() >= submitted_at + queue_deadline_ms * interval '1 millisecond' AS due
       FROM ${this.#s}.adaptor_fleet_runs WHERE id = $1 AND verdict IS NULL AND attempt = 0 AND queue_deadline_ms IS NOT NULL`,
      [id],
    );
    const row = rows[0];
    if (!row) return "no";
    if (!row.due) return "early";
    return (await this.settle(id, 0, verdict(Number(row.ms)), [], { unstarted: true })) ? "expired" : "no";
  }

  /**
   * Asks the worker of a started run to cancel it: records the request once (a run with a verdict,
   * a committed turn, an unstarted run or one already asked is left alone) and notifies
   * {@link cancelTopic}. A commit under way holds the run's row: this waits for it, then finds the
   * turn committed. Returns whether this call recorded the request.
   */
  async requestCancel(id: string, reason: string | undefined): Promise<boolean> {
    const { rows } = await this.#pool.query(
      `WITH r AS (
         UPDATE ${this.#s}.adaptor_fleet_runs SET cancel_requested_at = now(), cancel_reason = $2
         WHERE id = $1 AND verdict IS NULL AND attempt > 0 AND committed_at IS NULL AND cancel_requested_at IS NULL RETURNING id)
       SELECT pg_notify($3, $4) FROM r`,
      [id, reason ?? null, this.channel, cancelTopic(id)],
    );
    return rows.length > 0;
  }

  /**
   * The name of the pg-boss queue that holds run `id`'s job: whichever host's `queue` option and
   * run format sent it there (a run's job id is the run's id, in one queue only), looked up in
   * every queue of pg-boss's schema; undefined when pg-boss holds no job of that id.
   */
  async jobQueue(id: string): Promise<string | undefined> {
    const { rows } = await this.#pool.query<{ name: string }>(
      `SELECT j.name FROM ${this.#boss}.job j
       WHERE j.name = ANY (ARRAY(SELECT q.name FROM ${this.#boss}.queue q)) AND j.id = $1 LIMIT 1`,
      [id],
    );
    return rows[0]?.name;
  }

  /** The cancel asked of a run's worker (`reason` null when none was given), or undefined when none was asked. */
  async cancelRequest(id: string): Promise<{ reason: string | null } | undefined> {
    const { rows } = await this.#pool.query<{ reason: string | null }>(
      `SELECT cancel_reason AS reason FROM ${this.#s}.adaptor_fleet_runs WHERE id = $1 AND cancel_requested_at IS NOT NULL`,
      [id],
    );
    return rows[0];
  }

  /** The run's verdict, or null while it has none (undefined for an unknown run). */
  async verdict(id: string): Promise<StoredVerdict | null | undefined> {
    const { rows } = await this.#pool.query<{ verdict: StoredVerdict | null }>(
      `SELECT verdict FROM ${this.#s}.adaptor_fleet_runs WHERE id = $1`,
      [id],
    );
    return readJson(rows[0]?.verdict);
  }

  /** The run's events with `seq > after`, in order, at most `limit`. */
  async events(id: string, after: number, limit: number): Promise<EventRow[]> {
    const { rows } = await this.#pool.query<{ seq: string; attempt: number; recorded_at: Date; event: JsonValue }>(
      `SELECT e.seq::text AS seq, e.attempt, e.recorded_at, e.event FROM ${this.#s}.adaptor_fleet_events e WHERE e.run_id = $1 AND e.seq > $2 ORDER BY e.seq LIMIT $3`,
      [id, after, limit],
    );
    return rows.map((r) => ({ seq: Number(r.seq), attempt: r.attempt, recordedAt: r.recorded_at.toISOString(), event: readJson(r.event) }));
  }

  /** Stores an approval a worker waits on. */
  async insertApproval(id: string, runId: string, attempt: number, request: JsonValue): Promise<void> {
    await this.#pool.query(
      `INSERT INTO ${this.#s}.adaptor_fleet_approvals (id, run_id, attempt, request) VALUES ($1, $2, $3, $4) ON CONFLICT (id) DO NOTHING`,
      [id, runId, attempt, JSON.stringify(writtenJson(request))],
    );
  }

  /**
   * Records a decision once, while the approval is pending as {@link approval} reads it: unanswered,
   * not closed, its attempt the run's current one and its run without a verdict. One statement that
   * holds the run's row (`FOR SHARE`) while it writes: a verdict or a later attempt committed
   * meanwhile is seen (PostgreSQL re-reads the row once its writer commits), and one that comes
   * after waits for this answer. Returns the run id when this call recorded it, else the status
   * that refused it (`answered`, `closed`, or `unknown` for an id no run asked).
   */
  async answerApproval(id: string, decision: JsonValue): Promise<{ runId: string } | { status: "answered" | "closed" | "unknown" }> {
    const s = this.#s;
    const { rows } = await this.#pool.query<{ run_id: string }>(
      `WITH open AS (
         SELECT a.id FROM ${s}.adaptor_fleet_approvals a JOIN ${s}.adaptor_fleet_runs r ON r.id = a.run_id
         WHERE a.id = $1 AND ${this.#pending}
         FOR SHARE OF r),
       a AS (UPDATE ${s}.adaptor_fleet_approvals SET decision = $2::jsonb, answered_at = now()
             WHERE id = (SELECT id FROM open) AND decision IS NULL AND closed_at IS NULL RETURNING run_id)
       SELECT run_id, pg_notify($3, 'approval:' || $1) FROM a`,
      [id, JSON.stringify(writtenJson(decision)), this.channel],
    );
    if (rows[0]) return { runId: rows[0].run_id };
    // Refused: an approval is never pending again once it is not, so what it is now is why.
    const known = await this.#pool.query<{ answered: boolean }>(
      `SELECT decision IS NOT NULL AS answered FROM ${s}.adaptor_fleet_approvals WHERE id = $1`,
      [id],
    );
    const row = known.rows[0];
    return { status: !row ? "unknown" : row.answered ? "answered" : "closed" };
  }

  /**
   * Closes an approval to answers when its deadline passed on the worker, unless an answer was
   * recorded first: one conditional write on the approval's row, which {@link answerApproval}
   * writes under the same condition (unanswered, not closed), so exactly one of the two wins
   * whatever their order (the later one waits for the earlier one's row and finds it changed).
   * Returns `closed` when this call closed it, else the decision recorded first (`null` when the
   * row is missing, or was closed already).
   */
  async closeApproval(id: string): Promise<{ closed: true } | { closed: false; decision: JsonValue | null }> {
    const { rowCount } = await this.#pool.query(
      `UPDATE ${this.#s}.adaptor_fleet_approvals SET closed_at = now() WHERE id = $1 AND decision IS NULL AND closed_at IS NULL`,
      [id],
    );
    if ((rowCount ?? 0) > 0) return { closed: true };
    // Lost: read in a statement of its own (the update's snapshot may predate the answer's commit).
    return { closed: false, decision: await this.decision(id) };
  }

  /**
   * Closes the approvals earlier attempts of a run left unanswered (their worker was lost while
   * asking): from now on answering one fails. Conditional on `decision IS NULL`, so an answer and
   * this close never both win. In the same statement, each closed approval whose close the run's
   * stream does not hold yet (an `approval.resolved` notice of its id) gets one, written as an event
   * of attempt `attempt` (the run's current one): a client that saw the question sees it end. So
   * does each question of an earlier attempt answered before its worker was lost without saying
   * so, with its recorded answer's outcome (`approved`, `denied`, `answered`). Returns how many
   * were closed to answers.
   */
  async closeLostApprovals(runId: string, attempt: number): Promise<number> {
    const s = this.#s;
    const { rows } = await this.#pool.query<{ closed: number }>(
      `WITH closed AS (
         UPDATE ${s}.adaptor_fleet_approvals SET closed_at = now()
         WHERE run_id = $1 AND attempt < $2 AND decision IS NULL AND closed_at IS NULL
         RETURNING id, request, decision, created_at),
       answered AS (
         SELECT a.id, a.request, a.decision, a.created_at FROM ${s}.adaptor_fleet_approvals a
         WHERE a.run_id = $1 AND a.attempt < $2 AND a.decision IS NOT NULL),
       lost AS (
         SELECT ${closingNotice("c")} AS event, row_number() OVER (ORDER BY c.created_at, c.id) AS ord
         FROM (SELECT * FROM closed UNION ALL SELECT * FROM answered) c
         WHERE ${this.#unclosedInStream("c")}),
       n AS (SELECT count(*)::int AS n FROM lost),
       r AS (
         UPDATE ${s}.adaptor_fleet_runs SET last_seq = last_seq + n.n FROM n
         WHERE id = $1 AND attempt = $2 AND verdict IS NULL AND n.n > 0
         RETURNING last_seq - n.n AS first),
       ins AS (
         INSERT INTO ${s}.adaptor_fleet_events (run_id, seq, attempt, event)
         SELECT $1, r.first + lost.ord, $2, lost.event FROM r, lost)
       SELECT (SELECT count(*) FROM closed)::int AS closed`,
      [runId, attempt],
    );
    return rows[0]?.closed ?? 0;
  }

  /**
   * The SQL condition on an approval row `a` of run `$1` that holds while the run's stream has no
   * `approval.resolved` notice of it (the SDK writes one whenever a question it asked ends).
   */
  #unclosedInStream(a: string): string {
    return `NOT EXISTS (SELECT 1 FROM ${this.#s}.adaptor_fleet_events e
      WHERE e.run_id = $1 AND e.event->>'type' = 'notice' AND e.event->>'kind' = 'approval.resolved' AND e.event->'data'->>'id' = ${a}.id)`;
  }

  /**
   * The answers people gave to earlier attempts of a run (not replays of them), oldest first, for
   * asks of `kind` with this tool name and input (compared as `jsonb`: key order does not matter).
   */
  async recordedAnswers(
    runId: string,
    attempt: number,
    ask: { kind: string; toolName: string | null; input: JsonValue | null },
  ): Promise<{ id: string; decision: JsonValue }[]> {
    const { rows } = await this.#pool.query<{ id: string; decision: JsonValue }>(
      `SELECT id, decision FROM ${this.#s}.adaptor_fleet_approvals
       WHERE run_id = $1 AND attempt < $2 AND decision IS NOT NULL AND replayed_from IS NULL
         AND request->>'kind' = $3 AND (request->>'toolName') IS NOT DISTINCT FROM $4
         AND (request->'input') IS NOT DISTINCT FROM (CASE WHEN request ? '${NUL_ESCAPED_KEY}' THEN $6 ELSE $5 END)::jsonb
       ORDER BY attempt, created_at, id`,
      [
        runId,
        attempt,
        ask.kind,
        ask.toolName,
        ask.input === null ? null : JSON.stringify(ask.input),
        // A request holding U+0000 was stored escaped (see writtenJson), its input with it.
        ask.input === null ? null : JSON.stringify(escapeNul(ask.input)),
      ],
    );
    return rows.map((row) => ({ ...row, decision: readJson(row.decision) }));
  }

  /** Stores an approval of attempt `attempt` that a recorded answer (`from`) decided at once. */
  async insertReplayedApproval(
    id: string,
    runId: string,
    attempt: number,
    request: JsonValue,
    decision: JsonValue,
    from: string,
  ): Promise<void> {
    await this.#pool.query(
      `INSERT INTO ${this.#s}.adaptor_fleet_approvals (id, run_id, attempt, request, decision, answered_at, replayed_from)
       VALUES ($1, $2, $3, $4, $5, now(), $6) ON CONFLICT (id) DO NOTHING`,
      [id, runId, attempt, JSON.stringify(writtenJson(request)), JSON.stringify(writtenJson(decision)), from],
    );
  }

  /** The approval's decision, or null while unanswered. */
  async decision(id: string): Promise<JsonValue | null> {
    const { rows } = await this.#pool.query<{ decision: JsonValue | null }>(
      `SELECT decision FROM ${this.#s}.adaptor_fleet_approvals WHERE id = $1`,
      [id],
    );
    return readJson(rows[0]?.decision ?? null);
  }

  /** The pending approvals of a run (as {@link approval} reads them), oldest first. */
  async pendingApprovals(runId: string): Promise<{ id: string; request: JsonValue }[]> {
    const { rows } = await this.#pool.query<{ id: string; request: JsonValue }>(
      `SELECT a.id, a.request FROM ${this.#s}.adaptor_fleet_approvals a JOIN ${this.#s}.adaptor_fleet_runs r ON r.id = a.run_id
       WHERE a.run_id = $1 AND ${this.#pending}
       ORDER BY a.created_at, a.id`,
      [runId],
    );
    return rows.map((row) => ({ ...row, request: readJson(row.request) }));
  }

  /**
   * The pending approvals of every run (as {@link approval} reads them), or of the runs of
   * `threadKey`, oldest first, at most `limit`, with their run's thread key and when they were asked.
   */
  async fleetPendingApprovals(
    threadKey: string | undefined,
    limit: number,
  ): Promise<{ id: string; run_id: string; request: JsonValue; thread_key: string | null; created_at: Date }[]> {
    const { rows } = await this.#pool.query<{
      id: string;
      run_id: string;
      request: JsonValue;
      thread_key: string | null;
      created_at: Date;
    }>(
      `SELECT a.id, a.run_id, a.request, r.thread_key, a.created_at
       FROM ${this.#s}.adaptor_fleet_approvals a JOIN ${this.#s}.adaptor_fleet_runs r ON r.id = a.run_id
       WHERE ${this.#pending} AND ($1::text IS NULL OR r.thread_key = $1)
       ORDER BY a.created_at, a.id LIMIT $2`,
      [threadKey ?? null, limit],
    );
    return rows.map((row) => ({ ...row, request: readJson(row.request) }));
  }

  /**
   * Deletes runs (with their events and approvals) finished more than `olderThanMs` ago (a finite
   * number >= 0; in whole microseconds, PostgreSQL's resolution, and at most {@link PRUNE_AGE_CAP_MS},
   * older than any run: a longer age would take the cutoff out of `timestamptz`'s range); returns how many.
   */
  async prune(olderThanMs: number): Promise<number> {
    const microseconds = Math.round(Math.min(olderThanMs, PRUNE_AGE_CAP_MS) * 1000);
    const { rowCount } = await this.#pool.query(
      `DELETE FROM ${this.#s}.adaptor_fleet_runs WHERE verdict IS NOT NULL AND finished_at < now() - $1::bigint * interval '1 microsecond'`,
      [microseconds],
    );
    return rowCount ?? 0;
  }
}

/** The longest age (ms) `prune` puts in its cutoff: 1,000 years, before any run was finished and well within `timestamptz`. */
const PRUNE_AGE_CAP_MS = 1_000 * 365.25 * 24 * 3_600_000;

/** The ids of the approvals whose `approval.resolved` notice is among `events`. */
function resolvedIn(events: readonly JsonValue[]): string[] {
  const ids: string[] = [];
  for (const json of events) {
    const event = json as { type?: unknown; kind?: unknown; data?: { id?: unknown } | null };
    if (event.type === "notice" && event.kind === "approval.resolved" && typeof event.data?.id === "string") ids.push(event.data.id);
  }
  return ids;
}
