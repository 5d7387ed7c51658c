import type { Meter } from "@opentelemetry/api";
import type { ThreadStore } from "@adaptor/threadstore";

/** Options of a {@link Fleet}; every host of one fleet passes the same `connectionString`, `schema` and `queue`. */
export interface FleetOptions {
  /**
   * PostgreSQL connection string (the database the thread store uses, or any other): a URL or a
   * socket path `pg` can parse, checked at construction (a malformed port or host is refused with
   * `TypeError`, the value not quoted). It may point
   * at a pooler in transaction mode (PgBouncer `pool_mode = transaction`) when
   * `listenConnectionString` is given: the fleet then runs no session-level statement on it.
   */
  readonly connectionString: string;
  /**
   * A direct (unpooled) connection string to the same database for the fleet's one LISTEN
   * connection per host, which a transaction pooler cannot carry. Default: `connectionString`.
   */
  readonly listenConnectionString?: string;
  /** Schema of the fleet's tables (runs, events, approvals). Default `"adaptor_fleet"`; pg-boss keeps its own in `<schema>_boss`. */
  readonly schema?: string;
  /**
   * pg-boss queue name. Default `"adaptor-fleet-runs"`. This host's submissions go to it and its
   * workers take runs from it only; hosts of one `schema` with other queues share the runs' tables,
   * so a run of any queue is read, followed, cancelled and its questions answered from every host.
   */
  readonly queue?: string;
  /**
   * The run format this host writes and runs (1 or 2; default 2, the newest). Format 1 is a text
   * prompt; format 2 adds prompts of parts with images. Runs of format n > 1 go to the pg-boss
   * queue `<queue>.format-<n>`, which workers of earlier versions never poll, so they cannot run
   * a prompt's text without its images; a worker polls its format's queue and the earlier ones.
   * Set 1 during a rolling upgrade while hosts of an earlier version still serve the fleet: this
   * host then submits to (and works from) `queue` alone, as they do, and refuses a prompt with an
   * image at `submit`. See the package README, "Rolling upgrades".
   */
  readonly runFormat?: number;
  /**
   * The thread store the workers' agents use (a `PostgresThreadStore` shared by every host). Needed
   * by workers that serve thread runs: a retried attempt reads the thread's record to tell whether
   * the lost attempt had already committed its turn. Default: none (workers then refuse thread runs).
   */
  readonly threadStore?: ThreadStore;
  /**
   * Unfinished runs (queued or running) from which `submit` refuses with `FleetQueueFullError`.
   * Default 10,000; an integer from 1 to 2^31 - 1. Submissions take no lock across hosts, so submissions in flight at the same
   * moment do not see each other: the fleet holds at most `maxQueued - 1` plus the number of
   * submissions concurrent with the last accepted one (on all hosts) unfinished runs; one
   * submission at a time keeps it exact.
   */
  readonly maxQueued?: number;
  /** Attempts of a run before the typed failure verdict `FleetAttemptsExhaustedError`. Default 3; from 1 to 1,000. */
  readonly maxAttempts?: number;
  /**
   * Seconds without a worker's heartbeat after which pg-boss takes its job back for another attempt
   * (pg-boss `heartbeatSeconds`): an integer from 10 to 86,400. Default 10. Workers refresh it every `heartbeatSeconds / 5`.
   */
  readonly heartbeatSeconds?: number;
  /** How often (s) pg-boss's supervisor looks for jobs whose heartbeat stopped: an integer from 1 to 86,400. Default 2. */
  readonly monitorIntervalSeconds?: number;
  /**
   * Runs without a thread key: attempt again after a lost worker (`true`), or settle with
   * `FleetAttemptsExhaustedError` at once (`false`, the default; a drained worker settles such a
   * run itself, `drained` true). A retried run starts over: tools it ran before its worker was lost
   * run again, with their side effects.
   */
  readonly retryRuns?: boolean;
  /**
   * What a retried attempt of a thread run does when its lost attempt's worker died while an
   * approval was waiting for an answer (that approval is closed: answering it fails with
   * `ApprovalNotPendingError` status `"closed"`):
   *
   * - `"ask-again"` (default): the retried attempt runs the turn again and asks again, through the
   *   fleet (a new `approval-request`, answered with `fleet.answer`);
   * - `"suspend"`: the retried attempt runs the turn with the `suspend` run option, so the question
   *   ends the turn suspended (the verdict is a `Result` with `status: "suspended"` and its
   *   `pendingApproval`, stored in the thread store); any host sharing the thread store answers it
   *   later with `agent.thread(key).answer(id, decision)` (docs/suspend.md). Needs a thread store
   *   with the pending-approvals capability. Runs without a thread key cannot suspend: they ask again.
   *
   * Either way an approval of a lost attempt that was answered is not asked again: the retried
   * attempt applies the recorded answer to the same request (same kind, tool name and input).
   */
  readonly onLostApproval?: "ask-again" | "suspend";
  /**
   * How long (ms) a run may wait unstarted, from its submission: in its queue, and behind its
   * thread's earlier turns. A run no worker has started by then (e.g. one of a run format no live
   * worker polls, or submitted while no worker is up) gets the verdict `FleetRunExpiredError`
   * (`ErrCode` `TIMEOUT`) and never starts; a run that started is not bound by it. Enforced in
   * PostgreSQL: a pg-boss job deferred to the deadline, sent with the run, is taken by any host of
   * the fleet (workers and front-ends alike poll for it every 5 s), and a worker never starts a
   * run past its deadline. Default 24 hours (86,400,000); from 1,000 to 365 days. `submit` may give
   * a run its own (`SubmitOptions.queueDeadlineMs`).
   */
  readonly queueDeadlineMs?: number;
  /**
   * The most bytes a submitted run's input may take (UTF-8): its prompt text, its parts, its run
   * options and its `resume` as JSON, counted before anything is sent to PostgreSQL. Past it
   * `submit` rejects with `DriverError` (device `fleet`, code `RESOURCE_EXHAUSTED`) and stores
   * nothing. Default 64 MiB (67,108,864); from 1 to 256 MiB (PostgreSQL keeps no longer string in
   * `jsonb`, and CLIs refuse far shorter inputs).
   */
  readonly maxPayloadBytes?: number;
  /**
   * How long (ms) a finished run, its events and approvals are kept before `prune()` removes them:
   * an integer from 1 to 2^31 - 1 seconds' worth (about 68 years; pg-boss keeps its jobs by it in
   * whole seconds). Default 7 days.
   */
  readonly retentionMs?: number;
  /**
   * Where the fleet's metrics go (queue depth, wait time, run duration, attempts; see the package
   * README). Default: the global meter provider's `@adaptor/fleet` meter, a no-op until the host
   * registers an OpenTelemetry SDK. pg-boss reports its own queue metrics the same way.
   */
  readonly meter?: Meter;
}
