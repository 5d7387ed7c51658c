import { randomUUID } from "node:crypto";
import pg from "pg";
import { PgBoss } from "pg-boss";
import { checkRunInput, type Prompt, type PromptPart, type RememberRule, type RunOptions } from "adaptor";
import { askFactsOf, decisionRefusal, DEFAULT_DENY_REASON, EDIT_UNSUPPORTED_REASON, rememberError } from "adaptor/internal";
import { AdaptorError, DriverError, ErrCode, InvalidOptionError } from "@adaptor/errors";
import { postgresErrorCode } from "@adaptor/errors/internal";
import { checkThreadKey, supportsPendingApprovals, type StoredApprovalDecision, type ThreadStore } from "@adaptor/threadstore";
import { toJsonEvent, type JsonValue } from "@adaptor/sessionrecorder";
import { ApprovalNotPendingError } from "@adaptor/threadstore";
import { dispatchTopic, HostDispatch } from "../dispatch/host-dispatch.js";
import { FleetClosedError, FleetQueueFullError, FleetRunExistsError } from "../errors/fleet-errors.js";
import { Notifier } from "../events/notifier.js";
import { formatQueue, formatQueues, promptFormat } from "../format/run-format.js";
import { RunHandle } from "../run/run-handle.js";
import { expiredVerdict } from "../verdict/verdict.js";
import { FLEET_SCHEMA_VERSION, FleetTables } from "../schema/fleet-tables.js";
import { databaseError, permissionDenied } from "../schema/connection-lost.js";
import { missingGrant } from "../schema/missing-grant.js";
import { FleetMetrics } from "../telemetry/fleet-metrics.js";
import { FleetWorker, type FleetWorkerOptions, type RunJobData, type WorkerAgent } from "../worker/fleet-worker.js";
import type { FleetCore } from "./fleet-core.js";
import type { FleetOptions } from "./fleet-options.js";
import { checkOpen, resolveOptions } from "./resolved-options.js";
import { checkPendingOptions } from "./check-pending.js";
import {
  checkDecisionShape,
  checkPayloadSize,
  checkRunId,
  checkSubmitOptions,
  jsonRunOptions,
  type FleetApprovalDecision,
} from "./check-submit.js";
import { checkApprovalId, checkDrainOptions, checkPruneAge, checkWorkerAgent, checkWorkerOptions, MAX_TIMER_MS } from "./check-calls.js";

/** The run options a submitted run may carry: JSON only (no signal, handlers, hooks, tools or schemas, which live on the worker's Agent). */
export type FleetRunOptions = Omit<RunOptions, "signal" | "onApproval" | "hooks" | "schema" | "spawn"> & { readonly spawn?: boolean };

/** Options of {@link Fleet.submit}. */
export interface SubmitOptions {
  /** Runs the prompt as the next turn of this thread: turns of one key run one at a time, in submission order. */
  readonly threadKey?: string;
  /** Run options for the worker's `stream(prompt, runOptions)`; must survive JSON. */
  readonly runOptions?: FleetRunOptions;
  /**
   * The run's id, a UUID. Default: a random one. Give one when a host must find the run again from
   * a key of its own (e.g. a UUID derived from a client's run id): any host then rebuilds the
   * handle with `fleet.handle(runId)`.
   */
  readonly runId?: string;
  /**
   * Resumes the thread's suspended turn instead of running a prompt (the prompt is then ignored:
   * the turn keeps its own): the worker answers the stored approval `approvalId` with `decision`
   * and runs the turn on from its checkpoint (`thread.streamAnswer`), in the thread's order.
   * Needs `threadKey`. Exactly once across the fleet: while one run resumes an approval, or once
   * one resolved a `Result` for it, submitting another resume of it is refused with
   * `ApprovalNotPendingError` (`"answered"`); a resume that settled otherwise (e.g. `thread_busy`)
   * lets a later one try (the thread store then decides).
   */
  readonly resume?: { readonly approvalId: string; readonly decision: StoredApprovalDecision };
  /**
   * How long (ms) this run may wait unstarted before its verdict is `FleetRunExpiredError`; see
   * `FleetOptions.queueDeadlineMs` (its default). An integer from 1,000 to 365 days.
   */
  readonly queueDeadlineMs?: number;
}

/** An approval a run asked, as {@link Fleet.approval} reads it. */
export interface FleetApproval {
  /** The approval's id. */
  readonly id: string;
  /** The run that asked it. */
  readonly runId: string;
  /** The SDK's `ApprovalRequest` fields as JSON (`kind`, `title`, `toolName`, `input`, `inputEditable`, `choices`, ...). */
  readonly request: JsonValue;
  /**
   * `pending` (its run waits for the answer), `answered` (the first answer was recorded), or
   * `closed` (unanswered, but its deadline passed on the worker, its run ended (closed on the
   * worker as the run ends, before its verdict: its own `timeoutMs`, the CLI gone) or
   * has its verdict, or the attempt that asked ended: its worker was lost or drained, or gave up
   * on an unreachable database, and pg-boss failed or re-queued its job (from that write on), so
   * an answer would reach nobody).
   */
  readonly status: "pending" | "answered" | "closed";
  /**
   * The answer recorded (the first one, as the worker applies it: an edited input the agent
   * cannot run recorded as the deny it became; with the `remember` rule it was given), when `status` is `answered`.
   */
  readonly decision?: FleetApprovalDecision;
}

/** A pending approval as {@link Fleet.pendingApprovals} lists it: what {@link Fleet.approval} reads, with its run's thread key and when it was asked. */
export interface FleetWaitingApproval extends FleetApproval {
  /** Always `pending` when listed (it may be answered or closed by the time it is read). */
  readonly status: "pending";
  /** The thread key of the run that asked it, if any. */
  readonly threadKey: string | undefined;
  /** When the worker stored it (PostgreSQL's clock), ISO 8601. */
  readonly askedAt: string;
}

/** Options of {@link Fleet.prune}. */
export interface FleetPruneOptions {
  /** Remove the runs finished more than this long ago (ms): any finite number >= 0. Default: the fleet's `retentionMs`. */
  readonly olderThanMs?: number;
}

/** Options of {@link Fleet.pendingApprovals}. */
export interface FleetPendingApprovalsOptions {
  /** Only the approvals of runs of this thread key. */
  readonly threadKey?: string;
  /** At most this many, the oldest first: an integer from 1 to 1,000. Default 100. */
  readonly limit?: number;
}

/** How often (s) a worker looks for unannounced runs (retries) in an earlier run format's queue. */
const EARLIER_FORMAT_BACKSTOP_SECONDS = 30;

/**
 * How long (ms) after a drain's timeout pg-boss waits before it gives up the jobs still held: the
 * stopped runs' attempts end their CLI, write their last events and hand their jobs back meanwhile.
 */
const DRAIN_HANDBACK_MS = 10_000;

/** How often (s) each host looks for runs whose queue deadline came (their deadline jobs). */
const DEADLINE_POLL_SECONDS = 5;

/** The job data of a run's queue deadline. */
interface DeadlineJobData {
  readonly runId: string;
  /** The pg-boss queue the run's job is in. */
  readonly queue: string;
}

/** The run queue's retry timing (pg-boss, seconds): exponential backoff from 1 s, at most 30 s. */
const RETRY = { retryDelay: 1, retryBackoff: true, retryDelayMax: 30 } as const;

/**
 * adaptor across machines on PostgreSQL: `submit` on any host, `worker` on any number of hosts,
 * handles, events and approvals from anywhere. Dispatch, per-thread FIFO, heartbeats and retries
 * are pg-boss's (queue policy `key_strict_fifo`); events, verdicts and approvals are rows of the
 * fleet's own tables, pushed live with LISTEN/NOTIFY.
 *
 * @example
 * ```ts
 * const fleet = new Fleet({ connectionString: process.env.DATABASE_URL!, threadStore: store });
 * await fleet.start();
 * const handle = await fleet.submit("Fix the failing test", { threadKey: "ticket-42" });
 * for await (const { event } of handle.events()) if (event.type === "text-delta") process.stdout.write(String(event.text));
 * const result = await handle.result();
 * ```
 */
export class Fleet implements AsyncDisposable {
  readonly #core: FleetCore;
  readonly #pool: pg.Pool;
  readonly #stopping = new AbortController();
  readonly #closed = new AbortController();
  /** The close under way or done: what every `close()` returns. */
  #closing: Promise<void> | undefined;
  #state: "new" | "open" | "draining" | "closed" = "new";
  /** The start under way or done; cleared when it fails, so that a later `start()` tries again. */
  #started: Promise<void> | undefined;
  /** Whether a start was ever tried: what `close()` must stop then. */
  #startTried = false;
  /**
   * Whether `start()` found the role granted reads only (no INSERT or UPDATE on the runs table):
   * the host then reads runs and approvals, and starts neither pg-boss nor a worker.
   */
  #readOnly = false;
  /** Whether this host takes the queue deadline jobs already (a start retried after a failure does not register twice). */
  #deadlineWorking = false;
  readonly #dispatches: HostDispatch[] = [];
  readonly #unwatch: (() => void)[] = [];
  /** The workers this host started: `close()` closes the agents their factories made. */
  readonly #workers: FleetWorker[] = [];

  /**
   * Checks the options (no connection is made until {@link start}).
   * @throws TypeError (naming the field) for a `connectionString` or `listenConnectionString` that
   *   is not a connection URL or socket path `pg` can parse (the value is never quoted: it may hold
   *   a password), a bad `schema`, `queue` or `onLostApproval`; InvalidOptionError (subject
   *   `"Fleet options"`, field: the option) for a number out of its domain, a `retryRuns` that is
   *   not a boolean, or an unknown option (with the closest known name as `suggestion`).
   */
  constructor(options: FleetOptions) {
    const resolved = resolveOptions(options);
    this.#pool = new pg.Pool({ connectionString: resolved.connectionString, max: 5 });
    this.#pool.on("error", () => {});
    const tables = new FleetTables(this.#pool, resolved.schema, { schema: `${resolved.schema}_boss` });
    const boss = new PgBoss({
      connectionString: resolved.connectionString,
      schema: `${resolved.schema}_boss`,
      max: 4,
      supervise: true,
      monitorIntervalSeconds: resolved.monitorIntervalSeconds,
      superviseIntervalSeconds: resolved.monitorIntervalSeconds,
      // The fleet's own LISTEN connection (the Notifier) wakes the workers: pg-boss opens none, so
      // its pool runs no session-level statement and may go through a transaction pooler.
      useListenNotify: false,
    });
    boss.on("error", () => {});
    this.#core = {
      options: resolved,
      tables,
      notifier: new Notifier(resolved.listenConnectionString, tables.channel),
      boss,
      threadStore: options.threadStore as ThreadStore | undefined,
      metrics: new FleetMetrics(resolved.queue, () => tables.open(), options.meter),
      closed: this.#closed.signal,
    };
  }

  /**
   * Connects, first creating or updating the tables when they are not at this version (see
   * {@link migrate}; with them current it runs no DDL) and the run queues (one per run format up
   * to `runFormat`) when missing; idempotent. Every other method awaits it. A role granted reads
   * only (no INSERT or UPDATE on the runs table) starts as a reader: the LISTEN connection only,
   * no pg-boss; its handles, {@link approval} and {@link pendingApprovals} read, and the calls that
   * write reject with `DriverError` `PERMISSION`.
   * @throws DriverError (device `fleet`, the pg error as `cause`): code `PERMISSION` when the
   *   tables need a migration this role may not run (run `migrate()` as their owner) or when the
   *   role lacks a grant on tables that exist (the cause names the grant PostgreSQL refused),
   *   `SERVICE_UNAVAILABLE` when PostgreSQL is unreachable, refuses connections (starting up,
   *   shutting down) or the connection was lost, at any step. A failed start is not kept: the next
   *   call (or any method that awaits it) tries again.
   */
  start(): Promise<void> {
    if (!this.#started) {
      this.#startTried = true;
      const started = this.#start().catch((error: unknown) => {
        if (this.#started === started) this.#started = undefined;
        throw startError(error);
      });
      this.#started = started;
    }
    return this.#started;
  }

  get #pruneQueue(): string {
    return `${this.#core.options.queue}-prune`;
  }

  /** The queue of the runs' deadline jobs (each deferred to its run's queue deadline). */
  get #deadlineQueue(): string {
    return `${this.#core.options.queue}-deadline`;
  }

  /**
   * Creates or updates what the fleet keeps in PostgreSQL: its schema and tables, pg-boss's schema
   * (`<schema>_boss`) and the run queues, as the role of `connectionString`, which needs the rights
   * to (the owner: CREATE on the database, or on both schemas once they exist). Idempotent, safe
   * from several processes at once, and then starts the fleet as {@link start} does.
   *
   * `start()` runs it itself unless the tables are at this version already, which it checks with
   * one read and no DDL: hosts that connect as a role without DDL rights (see the package README
   * for its grants) start once `migrate()` ran as the owner, once per deployment and per upgrade.
   * @throws DriverError (device `fleet`, code `PERMISSION`, the pg error as `cause`) when the role
   *   lacks a right the DDL needs; SERVICE_UNAVAILABLE when PostgreSQL is unreachable.
   */
  async migrate(): Promise<void> {
    if (this.#state === "closed") throw new FleetClosedError("migrate", "closed");
    try {
      await this.#core.tables.migrate();
    } catch (error) {
      throw migrationError(error, "fleet migrate");
    }
    await this.start();
  }

  async #start(): Promise<void> {
    const { tables, boss, notifier, options } = this.#core;
    // Tables at this version (or a later one) take no DDL: a role without DDL rights starts.
    // A refused read of the version is a grant missing on tables that exist (see startError).
    const version = await tables.schemaVersion();
    if ((version ?? 0) < FLEET_SCHEMA_VERSION) {
      try {
        await tables.migrate();
      } catch (error) {
        throw migrationError(error, "fleet start", version);
      }
    }
    // A role granted reads only reads runs and approvals: no pg-boss (its start and the deadline
    // jobs write), only the LISTEN connection that wakes the readers.
    this.#readOnly = !(await tables.writable());
    if (this.#readOnly) {
      await notifier.start();
      if (this.#state === "new") this.#state = "open";
      return;
    }
    await boss.start();
    for (const name of formatQueues(options.queue, options.runFormat)) await this.#createRunQueue(name);
    // Retention: pg-boss's scheduler sends one prune job every 15 minutes for the whole fleet;
    // whichever worker takes it deletes the finished runs past `retentionMs`.
    if (!(await boss.getQueue(this.#pruneQueue))) {
      await boss.createQueue(this.#pruneQueue, { policy: "singleton", retryLimit: 1 }).catch(async (error: unknown) => {
        if (!(await boss.getQueue(this.#pruneQueue))) throw error;
      });
    }
    await boss.schedule(this.#pruneQueue, "*/15 * * * *");
    // Queue deadlines: every host, workers and front-ends alike, takes the deadline jobs that
    // came due, so a run expires while any host of the fleet is up, whoever submitted it.
    if (!(await boss.getQueue(this.#deadlineQueue))) {
      await boss
        .createQueue(this.#deadlineQueue, { policy: "standard", ...RETRY, retryLimit: 10, deleteAfterSeconds: 3_600, notify: false })
        .catch(async (error: unknown) => {
          if (!(await boss.getQueue(this.#deadlineQueue))) throw error;
        });
    }
    if (!this.#deadlineWorking) {
      await boss.work<DeadlineJobData>(
        this.#deadlineQueue,
        { pollingIntervalSeconds: DEADLINE_POLL_SECONDS, batchSize: 20 },
        async (jobs) => {
          for (const job of jobs) await this.#expire(job.data);
        },
      );
      this.#deadlineWorking = true;
    }
    await notifier.start();
    if (this.#state === "new") this.#state = "open";
  }

  /**
   * A run's queue deadline came: settles it with `FleetRunExpiredError` if no attempt started, and
   * takes its job out of the run queue (a worker that fetched it meanwhile finds the verdict).
   */
  async #expire({ runId, queue }: DeadlineJobData): Promise<void> {
    const { tables, boss } = this.#core;
    const outcome = await tables.expire(runId, (ms) => expiredVerdict(runId, ms));
    // Taken before the deadline on PostgreSQL's clock (pg-boss defers by its own): pg-boss tries again after its retry delay.
    if (outcome === "early") throw new Error(`fleet run ${runId}: its queue deadline has not come yet`);
    if (outcome === "expired") await boss.cancel(queue, runId).catch(() => {});
  }

  /** Creates the run queue `name` if missing, or gives one made by an earlier version the retry backoff. */
  async #createRunQueue(name: string): Promise<void> {
    const { boss, options } = this.#core;
    const queue = await boss.getQueue(name);
    // A queue created before retries backed off gets the backoff (for jobs sent from now on).
    if (queue && !queue.retryBackoff) await boss.updateQueue(name, RETRY);
    if (!queue) {
      await boss
        .createQueue(name, {
          policy: "key_strict_fifo",
          // One more than the attempts: the extra one only writes the attempts-exhausted verdict,
          // so the key is never left blocked by a failed job.
          retryLimit: options.maxAttempts,
          // A retry (a lost worker, a database that went away) waits 1-2 s, then about twice as
          // long each time, up to 30 s: a failing database is not hammered.
          ...RETRY,
          heartbeatSeconds: options.heartbeatSeconds,
          expireInSeconds: 24 * 3600,
          deleteAfterSeconds: Math.max(1, Math.floor(options.retentionMs / 1000)),
          // Submissions announce themselves on the fleet's channel (see submit).
          notify: false,
        })
        .catch(async (error: unknown) => {
          if (!(await boss.getQueue(name))) throw error;
        });
    }
  }

  /**
   * Submits a run from any host and returns its durable handle at once (the run is queued in
   * PostgreSQL, in the same transaction as its row).
   *
   * The prompt and the options are checked first, as `agent.run` checks them before launch, so bad
   * input is refused here and nothing is written to PostgreSQL (not even the fleet's tables).
   * `prompt` is text, or parts as `agent.run` takes them limited to what JSON carries to another
   * host: text parts and images as base64 `data:` URLs (`{ type: "image", url }`); the parts are
   * stored as JSON and the worker's agent gets them as they were given.
   * @throws InvalidOptionError (subject `run`, field `prompt`) for an empty or whitespace-only
   *   prompt (a `resume` runs its stored one: its prompt is ignored); InvalidOptionError (subject
   *   `"fleet submit"`, field `prompt[i]`) for an image given as bytes or a path (send a `data:` URL); InvalidOptionError (subject
   *   `"run options"`) naming an unknown or mistyped run option; InvalidPolicyError naming an
   *   unknown policy field or a value out of its domain; MalformedStringError for text with a lone
   *   surrogate; InvalidOptionError (field `suspend` or `checkpointFiles`) for those thread-only
   *   options without a `threadKey`; InvalidThreadKeyError for a bad key;
   *   InvalidOptionError (subject `"fleet submit"`) naming an unknown submit option, an unknown
   *   `resume` field, or a `resume.decision` the thread store would refuse (not an approve, a deny
   *   with a string reason or an answer with a string choice; an `updatedInput` that is not a
   *   plain object); InvalidOptionError (subject `"run options"`) naming a run option JSON cannot
   *   carry (a function such as `onApproval`: handlers belong on the worker's Agent; a bigint, a
   *   symbol, a cyclic value, a class instance); InvalidOptionError (subject `"fleet submit"`,
   *   field `runId`) for a `runId` that is not a UUID, (field `queueDeadlineMs`) a queue deadline
   *   that is not an integer from 1,000 to 365 days, or (field `resume.decision.<key>`) a key the
   *   decision's outcome does not have; TypeError for a `resume` without `threadKey` (all: nothing stored); FleetQueueFullError past `maxQueued` unfinished runs (nothing stored);
   *   DriverError (device `fleet`, code `RESOURCE_EXHAUSTED`) for an input past `maxPayloadBytes` (nothing sent to PostgreSQL);
   *   FleetClosedError after `drain()`/`close()`; FleetRunExistsError for a `runId` a run has
   *   already (nothing stored); ApprovalNotPendingError (`"answered"`) for a `resume` of an
   *   approval another run of the fleet resumes or resumed (nothing stored); DriverError (device
   *   `fleet`, code `SERVICE_UNAVAILABLE`, the `pg` error as `cause`) when PostgreSQL is unreachable
   *   or the connection was lost (submit again; with a `runId`, a run the lost commit stored is
   *   then refused `FleetRunExistsError`), and for a `threadKey` whose lock another submission of
   *   the key (on any host) held past the lock timeout (the connection's `lock_timeout`, else 30 s;
   *   SQLSTATE 55P03 as `cause`; nothing stored: submit again); DriverError (device `fleet`, code `PERMISSION`, the
   *   `pg` error as `cause`) when the role may not write the run (a grant missing or revoked; nothing stored), or (its cause
   *   saying so) on a host started as a reader.
   */
  async submit(prompt: Prompt, options: SubmitOptions = {}): Promise<RunHandle> {
    try {
      return await this.#submit(prompt, options);
    } catch (error) {
      throw databaseError("fleet submit", error);
    }
  }

  async #submit(prompt: Prompt, options: SubmitOptions): Promise<RunHandle> {
    if (typeof prompt !== "string" && !Array.isArray(prompt))
      throw new TypeError("fleet submit: prompt must be a string or an array of parts");
    checkSubmitOptions(options);
    if (options.threadKey !== undefined) checkThreadKey(options.threadKey);
    const runOptions = jsonRunOptions(options.runOptions);
    // What the worker's agent.run would refuse before launch is refused here, before anything is stored.
    checkRunInput(prompt, runOptions, { threadTurn: options.threadKey !== undefined, resume: options.resume !== undefined });
    const parts = typeof prompt === "string" ? undefined : jsonPromptParts(prompt);
    const format = promptFormat(parts);
    if (format > this.#core.options.runFormat)
      throw new InvalidOptionError({
        subject: "fleet submit",
        field: `prompt[${parts!.findIndex((part) => (part as { type?: unknown }).type === "image")}]`,
        reason: `an image needs run format ${format}; this fleet writes run format ${this.#core.options.runFormat} (the runFormat option), which workers of that format would run as its text alone`,
      });
    const resume = options.resume;
    if (resume !== undefined) {
      if (options.threadKey === undefined) throw new TypeError("fleet submit: a resume needs the threadKey of the suspended turn");
    }
    const text = resume ? "" : typeof prompt === "string" ? prompt : promptText(prompt);
    checkPayloadSize(this.#core.options.maxPayloadBytes, text, resume ? undefined : parts, runOptions, resume?.decision);
    await this.start();
    checkOpen(this.#state as "open", "submit");
    this.#refuseReader("submit");
    const { tables, boss, options: o } = this.#core;
    const id = options.runId?.toLowerCase() ?? randomUUID();
    // Every run of this host goes to the queue of its run format, text runs too: a thread's turns
    // then share one queue, and pg-boss keeps them in order.
    const queue = formatQueue(o.queue, o.runFormat);
    await tables.transaction(async (client) => {
      // The count takes no lock: submissions in flight at once do not see each other's rows, so the
      // bound is maxQueued plus the submissions concurrent with this one (see `maxQueued`).
      // The submissions of one thread key are taken one at a time (a lock held until this commits),
      // each stamped with the database's clock once it holds the lock: the stamp (`submittedAt`) is
      // the order they commit in and the order pg-boss hands their turns out in.
      const open = await tables.open(client, dispatchTopic(queue), options.threadKey);
      if (open >= o.maxQueued) throw new FleetQueueFullError(open, o.maxQueued);
      const stored = resume ? { approvalId: resume.approvalId, decision: toJsonEvent(resume.decision) } : undefined;
      const deadlineMs = options.queueDeadlineMs ?? o.queueDeadlineMs;
      const inserted = await tables.insertRun(
        client,
        id,
        options.threadKey,
        text,
        runOptions,
        stored,
        resume ? undefined : parts,
        deadlineMs,
      );
      if (inserted === "exists") throw new FleetRunExistsError(id);
      if (inserted === "claimed")
        throw new ApprovalNotPendingError(resume!.approvalId, "answered", "another run of the fleet resumes it (first answer wins)");
      const data: RunJobData = { runId: id, threadKey: options.threadKey ?? null, format: o.runFormat };
      const db = { executeSql: (text: string, values?: unknown[]) => client.query(text, values) };
      await boss.send(queue, data as unknown as object, {
        id,
        singletonKey: options.threadKey !== undefined ? `thread:${options.threadKey}` : `run:${id}`,
        db,
      });
      if (options.threadKey !== undefined) await tables.orderJob(client, id, queue);
      // The queue deadline is a pg-boss job deferred to it (whole seconds, rounded up), in this
      // transaction: it outlives this host, and any host of the fleet takes it when it is due.
      const deadline: DeadlineJobData = { runId: id, queue };
      await boss.send(this.#deadlineQueue, deadline as unknown as object, { startAfter: Math.ceil(deadlineMs / 1000), db });
    });
    return new RunHandle(this.#core, id);
  }

  /**
   * Refuses call `op` (`worker`, `submit`, `answer`) on a host started as a reader (its role lacks
   * INSERT or UPDATE on the runs table), before it touches the database.
   * @throws DriverError (device `fleet`, code `PERMISSION`) on such a host.
   */
  #refuseReader(op: "worker" | "submit" | "answer"): void {
    if (!this.#readOnly) return;
    throw new DriverError({
      op: `fleet ${op}`,
      device: "fleet",
      code: ErrCode.Permission,
      cause: new Error(
        `this role may only read the fleet's tables (no INSERT or UPDATE on ${this.#core.options.schema}.adaptor_fleet_runs): fleet ${op} needs the rights the fleet README lists under "Database roles"`,
      ),
    });
  }

  /**
   * The handle of a run submitted on any host (no query is made until it is used).
   * @throws InvalidOptionError (subject `"fleet handle"`, field `runId`) for a `runId` that is not
   *   a UUID: no run has one.
   */
  handle(runId: string): RunHandle {
    checkRunId(runId, "fleet handle");
    return new RunHandle(this.#core, runId.toLowerCase());
  }

  /**
   * Serves runs on this host: `concurrency` at once, runs of one thread key never at once anywhere.
   * Resolves once the worker is polling. Stopped by `drain()` or `close()`.
   * @throws InvalidOptionError (subject `"fleet worker"`) for a `concurrency` that is not an integer
   *   from 1 to 1,000, a `name` that is not a non-empty string, or an unknown option, before the
   *   fleet connects; TypeError for an `agent` that is neither an `Agent` nor a function making
   *   one, before the fleet connects; DriverError (device `fleet`, code `PERMISSION`) on a host whose role is granted reads only.
   */
  async worker(agent: WorkerAgent, options: FleetWorkerOptions = {}): Promise<void> {
    checkWorkerAgent(agent);
    const checked = checkWorkerOptions(options);
    await this.start();
    checkOpen(this.#state as "open", "worker");
    this.#refuseReader("worker");
    const concurrency = checked.concurrency ?? 1;
    const { boss, notifier, options: o } = this.#core;
    const worker = new FleetWorker(this.#core, checked.name ?? FleetWorker.defaultName(), this.#stopping);
    this.#workers.push(worker);
    await worker.init(agent);
    // Closed while the factory made the agent: the close found none to close.
    if (this.#state !== "open") {
      await worker.close();
      checkOpen(this.#state as "closed" | "draining", "worker");
    }
    // The queue of this host's run format with `concurrency` slots; each earlier format's queue
    // (runs submitted by hosts of an earlier version, announced on its topic as ever) with one,
    // looking for unannounced ones (retries) every EARLIER_FORMAT_BACKSTOP_SECONDS.
    for (const queue of formatQueues(o.queue, o.runFormat)) {
      const dispatch = new HostDispatch(boss);
      this.#dispatches.push(dispatch);
      const current = queue === formatQueue(o.queue, o.runFormat);
      await dispatch.start<RunJobData>(
        queue,
        current ? concurrency : 1,
        Math.max(1, Math.floor(o.heartbeatSeconds / 5)),
        (job) => worker.handle(job),
        current ? undefined : EARLIER_FORMAT_BACKSTOP_SECONDS,
      );
      this.#unwatch.push(notifier.watch(dispatchTopic(queue), () => dispatch.wake()));
      // Runs submitted before this worker started were announced to nobody.
      dispatch.wake();
    }
    await boss.work(this.#pruneQueue, { pollingIntervalSeconds: 30 }, async () => {
      await this.#core.tables.prune(o.retentionMs);
    });
  }

  /**
   * Answers an approval a run waits on, from any host, exactly once: the worker waiting on it
   * receives the decision and applies it.
   * Refused exactly when {@link approval} does not read `pending`, in one statement, so a verdict
   * written meanwhile is never answered after the fact. The approval's deadline
   * (`policy.approvals.timeoutMs`) closes it on the worker with the same conditional write before
   * its `onTimeout` fallback acts: of an answer and the deadline, exactly one wins (an answer that
   * won is applied, one that lost is refused `"closed"`).
   *
   * The decision is checked as the request's own methods check it, before anything is recorded; a
   * deny without `reason` is recorded and applied with the reason `request.deny()` gives one,
   * `"denied by host"`.
   *
   * `remember` (an approve's or a deny's): a rule the worker's run remembers with the answer, as
   * `request.approve({ remember })` / `request.deny(reason, { remember })` take it (one of the
   * stored request's `suggestions`): recorded in the answer's JSON, applied by the worker, whose
   * run then answers its later asks the rule matches itself for the rest of the run. A rule the
   * worker's request refuses though this host took it is dropped there (the answer is applied
   * without it).
   * @throws InvalidOptionError (subject `"fleet answer"`, field `approvalId`) for an id that is not
   *   a non-empty string or holds U+0000 (no approval has one), before any query;
   *   ApprovalNotPendingError (`status` `"answered"` when already answered, `"closed"` when its
   *   deadline passed on the worker, its run ended without it (its own timeout, the CLI gone:
   *   closed on the worker before the verdict) or has its verdict (cancelled, attempts exhausted, ...) or
   *   its attempt ended before an answer (its worker lost, drained, or past `heartbeatSeconds`
   *   without the database: closed in the write that fails or re-queues its job), `"unknown"` for an id
   *   no run asked: a suspended turn's approval is the thread store's, answered with a `resume` run
   *   (`submit("", { threadKey, resume })`), which the message says when the fleet's `threadStore`
   *   holds it pending); TypeError for a decision of another shape (not an approve, a deny (its reason,
   *   when given, a string) or an answer with a string choice); InvalidOptionError (subject
   *   `"fleet answer"`, field `decision.<key>`) for a key its outcome does not have, or (field
   *   `updatedInput`) an edited input that is not a plain object, or (field `choice`) an answer
   *   the request's `choices` do not list (a `permission`'s), or (field `remember` or
   *   `remember.<field>`) a rule that is malformed, does not match the stored request, is given on
   *   a `question` or `plan_review` or with `updatedInput`, or allows in a run submitted with
   *   `policy.sandbox` `"read_only"` (`decision.remember` on an answer); `ErrApprovalKindMismatch` for an
   *   outcome that does not fit the request's kind (an answer on a `permission` without `choices`)
   *   (all these record nothing: the approval stays pending); `ErrApprovalEditUnsupported` for an edited input on a request whose
   *   `inputEditable` is false (the approval is answered with a deny, as `approve()` denies it);
   *   DriverError (device `fleet`, code `SERVICE_UNAVAILABLE`, the `pg` error as `cause`) when
   *   PostgreSQL is unreachable or the connection was lost (answer again: an answer the lost
   *   statement recorded is then refused `"answered"`); DriverError (device `fleet`, code
   *   `PERMISSION`, the `pg` error as `cause`) when the role may not record it (nothing recorded), or (its cause
   *   saying so) on a host started as a reader.
   */
  async answer(
    approvalId: string,
    decision: FleetApprovalDecision | { readonly outcome: "deny"; readonly reason?: string; readonly remember?: RememberRule },
  ): Promise<void> {
    try {
      await this.#answer(approvalId, withDenyReason(decision));
    } catch (error) {
      throw databaseError("fleet answer", error);
    }
  }

  async #answer(approvalId: string, decision: FleetApprovalDecision): Promise<void> {
    checkApprovalId(approvalId, "fleet answer");
    checkDecisionShape(decision, "fleet answer");
    if (this.#state === "closed") throw new FleetClosedError("answer", "closed");
    await this.start();
    this.#refuseReader("answer");
    const { tables } = this.#core;
    const found = await tables.approval(approvalId);
    if (!found) throw new ApprovalNotPendingError(approvalId, "unknown", await this.#unknownApproval(approvalId));
    // What the request's own methods would refuse is refused before anything is recorded.
    const { remember, ...rest } = decision as FleetApprovalDecision & { readonly remember?: RememberRule };
    const answered = rest as StoredApprovalDecision;
    if (remember !== undefined) await this.#checkRemember(approvalId, found, decision);
    const refused = decisionRefusal(askFactsOf(approvalId, found.request), answered, "fleet answer");
    if (refused && !refused.denies) throw refused.error;
    // An edit the agent cannot run denies the request, as approve() does on the worker.
    const recorded: FleetApprovalDecision = refused ? { outcome: "deny", reason: EDIT_UNSUPPORTED_REASON } : decision;
    const outcome = await tables.answerApproval(approvalId, toJsonEvent(recorded));
    if (!("runId" in outcome)) throw new ApprovalNotPendingError(approvalId, outcome.status);
    if (refused) throw refused.error;
  }

  /**
   * Why no run of the fleet waits on approval `approvalId`: for one a suspended thread turn left in
   * the fleet's thread store (pending there), that store and the resume that answers it; else that
   * no run asked it, and where a suspended turn's approvals are.
   */
  async #unknownApproval(approvalId: string): Promise<string> {
    const store = this.#core.threadStore;
    const stored = store && supportsPendingApprovals(store) ? await store.getPendingApproval(approvalId).catch(() => undefined) : undefined;
    if (stored?.status === "pending")
      return `no run of the fleet waits on it: a suspended turn of thread ${JSON.stringify(stored.key)} left it in the thread store; answer it with fleet.submit("", { threadKey, resume: { approvalId, decision } })`;
    return 'no run of the fleet asked it (a suspended turn\'s approval is in the thread store: thread.pendingApprovals(), answered with fleet.submit("", { threadKey, resume: { approvalId, decision } }))';
  }

  /**
   * Refuses the rule of `decision` (an answer to approval `approvalId`, whose stored request and
   * run are `found`) as the worker's `request.approve({ remember })` / `deny(reason, { remember })`
   * would: a malformed rule, one that does not match the request, one on a `question` or
   * `plan_review`, an allow with an edited input or in a run whose `policy.sandbox` is `read_only`.
   * @throws InvalidOptionError (subject `"fleet answer"`, field `remember` or `remember.<field>`).
   */
  async #checkRemember(
    approvalId: string,
    found: { readonly runId: string; readonly request: JsonValue },
    decision: { readonly outcome: string; readonly updatedInput?: unknown; readonly remember?: unknown },
  ): Promise<void> {
    const remember = (decision as { remember?: unknown }).remember;
    const request = (typeof found.request === "object" && found.request !== null ? found.request : {}) as Record<string, unknown>;
    const ask = {
      id: approvalId,
      kind: String(request["kind"]),
      toolName: typeof request["toolName"] === "string" ? request["toolName"] : undefined,
      input: request["input"],
    };
    const invalid = rememberError(remember, ask, "fleet answer");
    if (invalid) throw invalid;
    if (decision.outcome !== "approve") return;
    const refuse = (reason: string): InvalidOptionError => new InvalidOptionError({ subject: "fleet answer", field: "remember", reason });
    if (decision.updatedInput !== undefined)
      throw refuse("cannot be given with updatedInput (a remembered rule approves later calls as the CLI proposes them)");
    const run = await this.#core.tables.run(found.runId);
    const policy = run?.options["policy"];
    const sandbox = typeof policy === "object" && policy !== null ? (policy as Record<string, unknown>)["sandbox"] : undefined;
    if (sandbox === "read_only")
      throw refuse(
        'an allow cannot be remembered in this run: policy.sandbox is "read_only" (approve without remember, or remember a deny)',
      );
  }

  /**
   * The approval `approvalId` with its state, or undefined when no run asked it (or its run was
   * pruned). A suspended turn's approval is the thread store's (no run waits on it): read it with
   * `thread.pendingApprovals()`, answer it with `submit("", { threadKey, resume })`.
   * @throws InvalidOptionError (subject `"fleet approval"`, field `approvalId`) for an id that is not
   *   a non-empty string or holds U+0000, before any query; FleetClosedError after `close()`; DriverError (device `fleet`, the `pg` error as
   *   `cause`) code `PERMISSION` when the role may not read the tables, `SERVICE_UNAVAILABLE` when
   *   PostgreSQL is unreachable.
   */
  async approval(approvalId: string): Promise<FleetApproval | undefined> {
    checkApprovalId(approvalId, "fleet approval");
    if (this.#state === "closed") throw new FleetClosedError("approval", "closed");
    await this.start();
    const found = await this.#core.tables.approval(approvalId).catch((error: unknown) => {
      throw databaseError("fleet approval", error);
    });
    if (!found) return undefined;
    const { decision, ...rest } = found;
    return { id: approvalId, ...rest, ...(decision !== undefined ? { decision: decision as unknown as FleetApprovalDecision } : {}) };
  }

  /**
   * The approvals waiting for an answer across the fleet (or on one thread key), oldest first: each
   * one {@link approval} reads `pending` and {@link answer} would take when the list was read, for
   * an operator's queue of questions. A question its run ended unanswered (its verdict, its own
   * timeout, a cancel, its deadline, a retried attempt taking over) is not listed, nor is a
   * suspended turn's approval: that one is the thread store's (`thread.pendingApprovals()`),
   * answered with `submit("", { threadKey, resume })`.
   * @throws InvalidOptionError (subject `"fleet pendingApprovals"`) for options that are not an
   *   object, an unknown key (field: the key, with the closest known name as `suggestion`), or a
   *   `limit` (field `limit`) that is not an integer from 1 to 1,000; InvalidThreadKeyError for a `threadKey` that breaks
   *   a key rule (TypeError for an empty one); FleetClosedError after `close()`; DriverError as
   *   {@link approval} says.
   */
  async pendingApprovals(options?: FleetPendingApprovalsOptions): Promise<FleetWaitingApproval[]> {
    const { threadKey, limit } = checkPendingOptions(options);
    if (this.#state === "closed") throw new FleetClosedError("pendingApprovals", "closed");
    await this.start();
    const rows = await this.#core.tables.fleetPendingApprovals(threadKey, limit).catch((error: unknown) => {
      throw databaseError("fleet pendingApprovals", error);
    });
    return rows.map((row) => ({
      id: row.id,
      runId: row.run_id,
      request: row.request,
      status: "pending",
      threadKey: row.thread_key ?? undefined,
      askedAt: row.created_at.toISOString(),
    }));
  }

  /**
   * Removes finished runs older than `retentionMs` (or `olderThanMs`) with their events; returns how many.
   * `olderThanMs`, given as it is or as `{ olderThanMs }` (as `drain` takes its options): any finite
   * number of milliseconds >= 0 (a fraction, a huge one), counted in whole microseconds; an age past
   * 1,000 years counts as 1,000 years (older than any run).
   * @throws InvalidOptionError (subject `"fleet prune"`, field `olderThanMs`) for a negative, NaN,
   *   infinite or non-number age, or an unknown option, before any query; FleetClosedError after
   *   `close()`; DriverError (device `fleet`, the `pg` error as `cause`) code `PERMISSION` when the
   *   role may not delete runs.
   */
  async prune(olderThanMs?: number | FleetPruneOptions): Promise<number> {
    const age = checkPruneAge(olderThanMs);
    if (this.#state === "closed") throw new FleetClosedError("prune", "closed");
    await this.start();
    return this.#core.tables.prune(age ?? this.#core.options.retentionMs).catch((error: unknown) => {
      throw databaseError("fleet prune", error);
    });
  }

  /**
   * Stops taking work and lets runs in flight on this host finish (up to `timeoutMs`, default
   * 30,000); runs still going then are stopped and left to other workers: each attempt writes its
   * last events and hands its job back (pg-boss gives up a job whose attempt has not ended 10 s
   * after `timeoutMs`); a run that is not retried (no thread key, no `retryRuns`) is settled here
   * instead, with `FleetAttemptsExhaustedError` (`drained` true). `submit` and `worker` refuse from the
   * call on. For SIGTERM: `process.on("SIGTERM", () => void fleet.drain().then(() => fleet.close()))` (`on`, not
   * `once`: while a CLI runs, the driver kit ends the process on a SIGTERM nobody else listens to).
   * @throws InvalidOptionError (subject `"fleet drain"`) for a `timeoutMs` that is not a number
   *   from 0 to 2^31 - 1 (the longest timer), or an unknown option.
   */
  async drain(options: { readonly timeoutMs?: number } = {}): Promise<void> {
    const { timeoutMs } = checkDrainOptions(options);
    if (this.#state === "closed") return;
    if (this.#state !== "draining") this.#state = "draining";
    if (!this.#started) return;
    await this.#started.catch(() => {});
    if (this.#readOnly) return;
    const timeout = timeoutMs ?? 30_000;
    this.#stopDispatch();
    const timer = setTimeout(() => this.#stopping.abort(new Error("fleet drain timed out")), timeout);
    try {
      // pg-boss fails the jobs still held at its own timeout: later than ours, so a stopped run's
      // attempt writes its last events and hands its job back itself while its claim still holds.
      await this.#core.boss.stop({ graceful: true, close: false, timeout: Math.min(timeout + DRAIN_HANDBACK_MS, MAX_TIMER_MS) });
    } finally {
      clearTimeout(timer);
    }
  }

  /**
   * Drains (briefly) and closes every connection. Idempotent. Runs in flight on this host are
   * stopped as a drain's timeout stops them, and `close()` waits for their attempts to end (up to
   * 10 s) before it closes the connections: each writes its last events and hands its job back to
   * another worker, and a run that is not retried (no thread key, no `retryRuns`) is settled here,
   * with `FleetAttemptsExhaustedError` (`drained` true), so it needs no worker afterwards; a job a
   * fetch already under way hands over after the call goes back to the queue unstarted. Then the
   * Agents the workers' factories made are closed (awaiting their `close()`: the CLI processes
   * their thread turns keep parked end); an Agent given to `worker()` itself stays the host's.
   * A call while an earlier one is under way returns that one's promise: it settles when the
   * close is done.
   * @throws what such an Agent's `close()` rejected with (the first), once every connection is closed.
   */
  close(): Promise<void> {
    this.#closing ??= this.#close();
    return this.#closing;
  }

  async #close(): Promise<void> {
    const started = this.#started;
    this.#state = "closed";
    this.#closed.abort(new Error("fleet closed"));
    // A drain that stopped its runs already keeps its reason: those runs were the drain's.
    if (!this.#stopping.signal.aborted) this.#stopping.abort(new Error("fleet closed"));
    this.#stopDispatch();
    if (this.#startTried) {
      await started?.catch(() => {});
      // The stopped runs' attempts settle or hand their jobs back while the connections are open
      // (what a drain waits for); pg-boss gives up the jobs still held after the timeout.
      if (this.#workers.length > 0)
        await this.#core.boss.stop({ graceful: true, close: false, timeout: DRAIN_HANDBACK_MS }).catch(() => {});
      await this.#core.boss.stop({ graceful: false, close: true, timeout: 5_000 }).catch(() => {});
      await this.#core.notifier.close();
    }
    const agents = await Promise.allSettled(this.#workers.splice(0).map((worker) => worker.close()));
    await this.#pool.end().catch(() => {});
    const failed = agents.find((outcome) => outcome.status === "rejected");
    if (failed) throw failed.reason;
  }

  #stopDispatch(): void {
    for (const unwatch of this.#unwatch.splice(0)) unwatch();
    for (const dispatch of this.#dispatches.splice(0)) dispatch.stop();
  }

  /** Same as {@link close}. */
  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }
}

/**
 * A prompt of parts as JSON: strings and text parts as text parts, images as `{ type: "image", url }`.
 * @throws InvalidOptionError (subject `"fleet submit"`, field `prompt[i]`) for an image given as bytes or a path.
 */
function jsonPromptParts(prompt: readonly PromptPart[]): JsonValue[] {
  return prompt.map((part, index): JsonValue => {
    if (typeof part === "string") return { type: "text", text: part };
    if (part.type === "text") return { type: "text", text: part.text };
    if (part.url === undefined)
      throw new InvalidOptionError({
        subject: "fleet submit",
        field: `prompt[${index}]`,
        reason: 'an image reaches another host as a base64 data: URL ({ type: "image", url }), not as bytes or a path',
      });
    return { type: "image", url: part.url, ...(part.mimeType !== undefined ? { mimeType: part.mimeType } : {}) };
  });
}

/**
 * What a failed `start()` rejects with, whichever step failed (pg-boss's start, its queues and
 * schedule, the LISTEN connection, the read of the tables' version): a typed error as it is (a
 * migration's, see {@link migrationError}); a right the role lacks (SQLSTATE 42501) on what
 * exists already as a DriverError (code `PERMISSION`) naming the grant that is missing; a
 * connection refused or lost (also as the cause of a wrapping error) as {@link databaseError} says.
 */
function startError(error: unknown): unknown {
  if (error instanceof AdaptorError) return error;
  let cause = error;
  for (let depth = 0; depth < 5 && cause instanceof Error && postgresErrorCode(cause) === ErrCode.Internal; depth++) {
    if (permissionDenied(cause) || cause.cause === undefined) break;
    cause = cause.cause;
  }
  if (permissionDenied(cause)) {
    const grant = missingGrant(cause);
    const detail = new Error(
      `this role lacks a right the fleet needs on its tables, which exist (${(cause as Error).message}): ${grant ? `${grant} TO the role, and ` : ""}grant it every right the fleet README lists under "Database roles", on both of the fleet's schemas`,
      { cause },
    );
    return new DriverError({ op: "fleet start", device: "fleet", code: ErrCode.Permission, cause: detail });
  }
  const mapped = databaseError("fleet start", cause);
  return mapped === cause ? error : mapped;
}

/**
 * What a failed migration rejects with: a right the role lacks (SQLSTATE 42501) as a DriverError
 * (code `PERMISSION`) naming what to do (run `migrate()` as the owner); an unreachable database
 * as {@link databaseError} says. `found`: the tables' version the migration was to bring up to
 * date (undefined: missing), when known.
 */
function migrationError(error: unknown, op: string, found?: number): unknown {
  if (!permissionDenied(error)) return databaseError(op, error);
  const state =
    found === undefined
      ? `the fleet's tables are missing or older than this version (${FLEET_SCHEMA_VERSION})`
      : `the fleet's tables are at version ${found}, older than this version (${FLEET_SCHEMA_VERSION})`;
  const detail = new Error(
    `${state}, and this role may not create or alter them (${(error as Error).message}): run fleet.migrate() once as their owner, then grant this role the rights the fleet README lists`,
    { cause: error },
  );
  return new DriverError({ op, device: "fleet", code: ErrCode.Permission, cause: detail });
}

/** The text of a prompt of parts, its text parts joined by a blank line (as the run joins them). */
function promptText(prompt: readonly PromptPart[]): string {
  return prompt
    .map((part) => (typeof part === "string" ? part : part.type === "text" ? part.text : undefined))
    .filter((text) => text !== undefined)
    .join("\n\n");
}

/** `decision`, a deny without `reason` given the one `request.deny()` gives (anything else as it is, for the checks). */
function withDenyReason(decision: FleetApprovalDecision | { readonly outcome: "deny"; readonly reason?: string }): FleetApprovalDecision {
  const given = decision as { outcome?: unknown; reason?: unknown } | null;
  if (typeof given === "object" && given !== null && given.outcome === "deny" && given.reason === undefined)
    return { ...(decision as object), outcome: "deny", reason: DEFAULT_DENY_REASON };
  return decision as FleetApprovalDecision;
}
