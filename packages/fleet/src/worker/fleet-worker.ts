import { hostname } from "node:os";
import type { Job } from "pg-boss";
import {
  ErrThreadLeaseLost,
  currentSecretEnvValues,
  type Agent,
  type AgentEvent,
  type ApprovalHandlerContext,
  type ApprovalRequest,
  type Prompt,
  type RememberRule,
  type Result,
  type RunOptions,
  type Stream,
  type SuspendOptions,
} from "adaptor";
import { DriverError, ErrCode, InvalidOptionError, isError, walkError } from "@adaptor/errors";
import { supportsPendingApprovals, type ThreadStore } from "@adaptor/threadstore";
import type { StoredApprovalDecision } from "@adaptor/threadstore";
import { toJsonEvent, type JsonValue } from "@adaptor/sessionrecorder";
import type { FleetCore } from "../fleet/fleet-core.js";
import type { FleetApprovalDecision } from "../fleet/check-submit.js";
import { expiredVerdict, storeOutcome, type StoredVerdict } from "../verdict/verdict.js";
import { cancelTopic, type CommitIntent, type RunResume, type RunRow } from "../schema/fleet-tables.js";
import { fleetLeaseOwner, fleetLeaseStore, type CommitGuard } from "./fleet-lease-store.js";
import { scrubSecrets } from "./scrub.js";
import { recoveredResult } from "../verdict/recovered.js";
import { AttemptLog } from "./attempt-log.js";
import { stoppedByDrain } from "./drained.js";
import { JobClaim } from "./job-claim.js";
import { connectionLost } from "../schema/connection-lost.js";

/** What {@link FleetWorker}'s base lookup returns when it settled the run instead. */
const SETTLED = Symbol("settled");

/** What a worker's agent factory is given. */
export interface WorkerContext {
  /**
   * The fleet's thread store with fleet-wide lease ownership: give it to the Agent
   * (`new Agent(driver, { threadStore: context.threadStore })`) so that a retried attempt takes over
   * the thread at once instead of waiting for a lost worker's lease to expire.
   */
  readonly threadStore: ThreadStore | undefined;
}

/**
 * The agent a worker runs prompts on, or a function that makes it once when the worker starts.
 * An Agent the function returns is the fleet's: the fleet closes it. `fleet.close()` awaits its
 * `close()` (which ends the CLI processes its thread turns keep parked for reuse) once the worker's
 * runs have ended. An Agent given itself stays the host's, which closes it: give the Agent, not a
 * function, to share one Agent between the worker and the rest of the host (its thread store is
 * then the host's own, without the fleet-wide lease ownership `context.threadStore` adds).
 */
export type WorkerAgent = Agent | ((context: WorkerContext) => Agent | Promise<Agent>);

/** Options of `fleet.worker(...)`. */
export interface FleetWorkerOptions {
  /**
   * Runs of the host's run format this worker executes at once: its slots, each a pg-boss worker
   * the host wakes to fetch. Default 1. Each earlier run format's queue gets one slot more (runs
   * left by hosts of an earlier version; see `FleetOptions.runFormat`).
   */
  readonly concurrency?: number;
  /** The worker's name in `attempt-started` events. Default `<hostname>/<pid>`. */
  readonly name?: string;
}

/** The job data of a run. */
export interface RunJobData {
  readonly runId: string;
  /**
   * The run's thread key, null for a run without one: a first attempt then starts without reading
   * the run's row first. Absent in jobs queued by earlier versions (those read the row).
   */
  readonly threadKey?: string | null;
  /** The run format the run was written in (see `RUN_FORMAT`); absent in jobs of earlier versions (format 1). */
  readonly format?: number;
}

/** Runs attempts of runs on one host: one pg-boss job, one attempt. */
export class FleetWorker {
  readonly #core: FleetCore;
  #agent: Agent | undefined;
  /** Whether the worker's agent factory made {@link #agent}: the worker then closes it. */
  #made = false;
  readonly name: string;
  readonly #stopping: AbortController;
  /** The run, attempt and job claim serving each thread key on this worker now (one at a time per key, fleet-wide). */
  readonly #turns = new Map<string, { runId: string; attempt: number; claim: JobClaim }>();

  constructor(core: FleetCore, name: string, stopping: AbortController) {
    this.#core = core;
    this.name = name;
    this.#stopping = stopping;
  }

  /** Makes the worker's agent (a factory gets the fleet's view of the thread store). */
  async init(agent: WorkerAgent): Promise<void> {
    if (typeof agent !== "function") {
      this.#agent = agent;
      return;
    }
    const { threadStore, options, tables } = this.#core;
    const guard: CommitGuard = (record, commit) => {
      const turn = this.#turns.get(record.key);
      if (!turn) return commit();
      const intent = { attempt: turn.attempt, recordId: record.id, updatedAt: record.updatedAt.toISOString() };
      return tables.guardCommit(turn.runId, turn.attempt, intent, commit, (client) => turn.claim.held(client));
    };
    const store = threadStore ? fleetLeaseStore(threadStore, fleetLeaseOwner(options.schema, options.queue), guard) : undefined;
    this.#agent = await agent({ threadStore: store });
    this.#made = true;
  }

  /**
   * Closes the agent the worker's factory made (an agent given as it is stays its host's). Called
   * once the worker's runs ended. Idempotent.
   */
  async close(): Promise<void> {
    const agent = this.#made ? this.#agent : undefined;
    this.#made = false;
    await agent?.close();
  }

  /** Default worker name. */
  static defaultName(): string {
    return `${hostname()}/${process.pid}`;
  }

  /** The pg-boss handler: one job, one attempt. Never throws for a run's own failure. */
  async handle(job: Job<RunJobData>): Promise<void> {
    const { tables, options } = this.#core;
    const runId = job.id;
    const attempt = job.retryCount + 1;
    const threadKey = job.data?.threadKey;
    // Everything this attempt stores or answers is fenced by its claim on the job.
    const claim = new JobClaim(this.#core.boss, job);
    // Never reached through the format queues (a worker polls none of a later format); a job sent
    // to the wrong queue goes back to pg-boss for a worker of its format.
    if ((job.data?.format ?? 1) > options.runFormat)
      throw new Error(
        `fleet worker: run ${runId} is of run format ${job.data!.format}; this worker runs format ${options.runFormat} at most`,
      );
    // Handed over by a fetch already under way when the host began to stop (`close()`, a drain's
    // timeout): the attempt is not started but the job given back to the queue at the same attempt,
    // for another worker, instead of starting with a stopped signal and being settled as drained.
    if (this.#stopping.signal.aborted) {
      await tables.handBack(runId, job.name, job.retryCount);
      return;
    }
    // A first attempt has nothing to recover: it starts in one statement, without reading the row.
    if (attempt === 1 && threadKey !== undefined) {
      const base = await this.#base(claim, runId, threadKey);
      if (base === SETTLED) return;
      const started = await tables.startFirstAttempt(runId, base, { type: "attempt-started", attempt, worker: this.name });
      if (!started) {
        // Not started: the run has its verdict, or waited past its queue deadline (then it expires now).
        await this.#expire(runId);
        return;
      }
      this.#core.metrics.attemptStarted(attempt, started.waitMs);
      await this.#turn(job, claim, started.run, attempt, false);
      return;
    }
    const run = await tables.run(runId);
    if (!run || run.verdict) return;
    const lost = attempt - 1;
    if (run.committed) {
      // The lost attempt committed its turn before its worker died: the turn must not run twice.
      await this.#settle(claim, runId, run.attempt, await this.#recovered(runId, run.attempt, run.threadKey));
      return;
    }
    if (run.cancel) {
      // Cancelled while no attempt ran it (its worker was lost): no further attempt starts.
      await this.#settleCancelled(claim, runId, run.cancel.reason);
      return;
    }
    if (attempt > options.maxAttempts || (lost > 0 && run.threadKey === null && !options.retryRuns)) {
      await this.#settle(claim, runId, 0, { kind: "attempts-exhausted", attempts: Math.max(lost, 1) });
      return;
    }
    // The run's `timeoutMs` counts from its first attempt's start, across attempts: a later attempt
    // gets what is left, and one that would start past it settles the run without running the CLI.
    const timeoutMs = runTimeoutMs(run.options);
    const elapsedMs = run.elapsedMs ?? 0;
    if (timeoutMs !== undefined && lost > 0 && elapsedMs >= timeoutMs) {
      const error = this.#timeout(
        timeoutMs,
        `${Math.round(elapsedMs)} ms since the run's first attempt started; attempt ${attempt} was not started`,
      );
      await this.#settle(claim, runId, 0, storeOutcome({ ok: false, error }));
      return;
    }
    const base = await this.#base(claim, runId, run.threadKey);
    if (base === SETTLED) return;
    const started = await tables.startAttempt(runId, attempt, base);
    if (!started) {
      // Not started: the run has its verdict, was cancelled meanwhile, or expired in the queue.
      const asked = await tables.cancelRequest(runId);
      if (asked) await this.#settleCancelled(claim, runId, asked.reason);
      else await this.#expire(runId);
      return;
    }
    if (attempt > 1 && run.threadKey !== null && JSON.stringify(started.base) !== JSON.stringify(base)) {
      // The thread changed since the run began. Only a record the lost attempt wrote (as it
      // recorded before committing) means the turn was committed and must not run twice; another
      // writer's turn (the lost attempt's lease lapsed in a long outage) leaves this turn to run.
      const committed = await this.#committedBy(run.commitIntent, run.threadKey);
      if (committed !== undefined) {
        await this.#settle(claim, runId, attempt, await this.#recovered(runId, committed, run.threadKey));
        return;
      }
    }
    // A lost attempt's unanswered approvals are closed (answering them now fails): this attempt
    // asks again or, with `onLostApproval: "suspend"`, suspends the turn on its question.
    const lostWhileAsking = attempt > 1 && (await tables.closeLostApprovals(runId, attempt)) > 0;
    const suspend = lostWhileAsking && run.threadKey !== null && options.onLostApproval === "suspend";
    this.#core.metrics.attemptStarted(attempt, attempt === 1 ? started.waitMs : undefined);
    await tables.append(runId, attempt, [{ type: "attempt-started", attempt, worker: this.name }]);
    await this.#turn(job, claim, run, attempt, suspend, lost > 0 && timeoutMs !== undefined ? { timeoutMs, elapsedMs } : undefined);
  }

  /** The `TIMEOUT` of a run past its `timeoutMs` (`detail` says how far it got), as the SDK's own expiry names it. */
  #timeout(timeoutMs: number, detail: string): DriverError {
    const device = this.#agent?.driver.descriptor.type ?? "fleet";
    return new DriverError({ op: "run", device, code: ErrCode.Timeout, cause: `exceeded timeoutMs=${timeoutMs}, ${detail}` });
  }

  /** Settles run `runId` cancelled (`reason` the cancel's, null: none), while `claim` holds. */
  async #settleCancelled(claim: JobClaim, runId: string, reason: string | null): Promise<void> {
    await this.#settle(claim, runId, 0, { kind: "cancelled", ...(reason !== null ? { reason } : {}) });
  }

  /**
   * The base of a run's attempt: the thread's id and revision in the store (null for a run without
   * a thread key or a thread not created yet), or {@link SETTLED} when the run got its verdict
   * instead (no thread store, or one that fails for good).
   * @throws Error when the thread store's database is unreachable (pg-boss attempts the run again).
   */
  async #base(claim: JobClaim, runId: string, threadKey: string | null): Promise<JsonValue | typeof SETTLED> {
    if (threadKey === null) return null;
    const { threadStore } = this.#core;
    if (!threadStore) {
      await this.#settle(claim, runId, 0, {
        kind: "error",
        error: { name: "TypeError", message: "fleet worker: a thread run needs the Fleet's threadStore option", sentinels: [] },
      });
      return SETTLED;
    }
    let record: Awaited<ReturnType<ThreadStore["resolve"]>>;
    try {
      record = await threadStore.resolve({ key: threadKey });
    } catch (error) {
      // The database unreachable: pg-boss attempts the run again after the queue's retry delay.
      if (lostToDatabase(error))
        throw new Error("fleet worker: the thread store was unavailable when the attempt started", { cause: error });
      // Anything else (e.g. a thread store never migrated) would fail every attempt the same way:
      // it is the run's verdict.
      await this.#settle(claim, runId, 0, storeOutcome({ ok: false, error }));
      return SETTLED;
    }
    return record ? { id: record.id, revision: record.revision } : null;
  }

  /**
   * Runs a started attempt's turn, the thread key marked as served by it meanwhile. `deadline`, for
   * a later attempt of a run with a `timeoutMs`: the attempt runs for what is left of it (`elapsedMs`
   * since the first attempt started), then ends with the `TIMEOUT` the SDK's own expiry gives.
   */
  async #turn(
    job: Job<RunJobData>,
    claim: JobClaim,
    run: RunRow,
    attempt: number,
    suspend: boolean,
    deadline?: { readonly timeoutMs: number; readonly elapsedMs: number },
  ): Promise<void> {
    const runId = job.id;
    if (run.threadKey !== null) this.#turns.set(run.threadKey, { runId, attempt, claim });
    const expiry = new AbortController();
    let options = run.options;
    let timer: NodeJS.Timeout | undefined;
    if (deadline) {
      const { timeoutMs: _whole, ...rest } = run.options;
      options = rest;
      const leftMs = Math.max(0, deadline.timeoutMs - deadline.elapsedMs);
      const detail = `counted from the run's first attempt; attempt ${attempt} started with ${Math.round(leftMs)} ms left`;
      timer = setTimeout(() => expiry.abort(this.#timeout(deadline.timeoutMs, detail)), leftMs);
    }
    try {
      const prompt = run.promptParts ? (run.promptParts as unknown as Prompt) : run.prompt;
      await this.#cancellable(runId, (cancel) =>
        this.#run(job, claim, run.threadKey, prompt, options, attempt, suspend, run.resume, cancel, expiry.signal),
      );
    } finally {
      clearTimeout(timer);
      if (run.threadKey !== null && this.#turns.get(run.threadKey)?.runId === runId) this.#turns.delete(run.threadKey);
    }
  }

  /**
   * Settles the run with `verdict` (and `tail`, its last events), the values of this worker's own
   * credential variables (as they are now) removed: they never reach the shared database. Only
   * while `claim` holds (in the verdict's transaction): a lost attempt writes no verdict.
   */
  #settle(claim: JobClaim, runId: string, attempt: number, verdict: StoredVerdict, tail: readonly JsonValue[] = []): Promise<boolean> {
    const secrets = currentSecretEnvValues();
    return this.#core.tables.settle(runId, attempt, scrubSecrets(verdict, secrets), scrubSecrets(tail, secrets), {
      claim: (client) => claim.held(client),
    });
  }

  /** Settles an unstarted run past its queue deadline with its expired verdict (nothing otherwise). */
  async #expire(runId: string): Promise<void> {
    await this.#core.tables.expire(runId, (ms) => expiredVerdict(runId, ms));
  }

  /**
   * The attempt whose commit the thread's record is (the record `intent` names, as that attempt
   * wrote it: same id and `updatedAt`), or undefined when no attempt of the run wrote the record as
   * it is now.
   * @throws Error when the thread store's database is unreachable (pg-boss attempts the run again).
   */
  async #committedBy(intent: CommitIntent | null, threadKey: string): Promise<number | undefined> {
    if (!intent) return undefined;
    const record = await this.#core.threadStore?.resolve({ key: threadKey });
    return record?.id === intent.recordId && record.updatedAt.toISOString() === intent.updatedAt ? intent.attempt : undefined;
  }

  /**
   * The verdict of a turn its lost attempt committed: a Result of what that attempt logged and the
   * thread record it committed (see `recoveredResult`), marked `recovered`.
   */
  async #recovered(runId: string, attempt: number, threadKey: string | null): Promise<StoredVerdict> {
    const events: JsonValue[] = [];
    let after = 0;
    for (;;) {
      const rows = await this.#core.tables.events(runId, after, 1000);
      if (rows.length === 0) break;
      for (const row of rows) {
        after = row.seq;
        if (row.attempt === attempt) events.push(row.event);
      }
    }
    const record = threadKey !== null ? await this.#core.threadStore?.resolve({ key: threadKey }).catch(() => undefined) : undefined;
    return { kind: "result", recovered: true, result: recoveredResult(runId, events, record?.checkpoint.resumeId) };
  }

  /**
   * Watches for a cancel asked of run `runId` from any host (`RunHandle.cancel`) while `body` runs:
   * the signal it gets aborts then, so the run ends its CLI, and this worker writes the verdict
   * once the stream ended (the thread's next turn starts after the process is gone).
   */
  async #cancellable(runId: string, body: (cancel: CancelRequest) => Promise<void>): Promise<void> {
    const controller = new AbortController();
    let reason: string | null = null;
    const check = async (): Promise<void> => {
      const asked = await this.#core.tables.cancelRequest(runId).catch(() => undefined);
      if (!asked || controller.signal.aborted) return;
      reason = asked.reason;
      controller.abort(new Error(`fleet run ${runId} cancelled`));
    };
    // Woken by the request's notification and whenever notifications may have been missed.
    const unwatch = this.#core.notifier.watch(cancelTopic(runId), () => void check());
    try {
      await check();
      await body({ signal: controller.signal, reason: () => reason });
    } finally {
      unwatch();
    }
  }

  async #run(
    job: Job<RunJobData>,
    claim: JobClaim,
    threadKey: string | null,
    prompt: Prompt,
    stored: Record<string, JsonValue>,
    attempt: number,
    suspend: boolean,
    resume: RunResume | null,
    cancel: CancelRequest,
    expiry: AbortSignal,
  ): Promise<void> {
    const { tables } = this.#core;
    const runId = job.id;
    const startedAt = performance.now();
    const fenced = new AbortController();
    // pg-boss aborts `job.signal` when its heartbeat finds the claim gone (or it gives the job up):
    // the CLI ends, and the claim then refuses the verdict.
    const signal = AbortSignal.any([job.signal, claim.lost, fenced.signal, this.#stopping.signal, cancel.signal, expiry]);
    const write = (events: JsonValue[]): Promise<boolean> => tables.append(runId, attempt, scrubSecrets(events, currentSecretEnvValues()));
    const log = new AttemptLog(write, () => fenced.abort(new Error("superseded by a later attempt")));
    // The recorded answers of lost attempts this attempt has applied (each at most once).
    const replayed = new Set<string>();
    const rows = new ApprovalRows();
    // An answer to a question this attempt leaves unanswered is applied by a retried attempt only
    // when one follows (a drained worker's run, while attempts remain): otherwise it reaches nobody.
    const retried = () =>
      this.#stopping.signal.aborted && attempt < this.#core.options.maxAttempts && (threadKey !== null || this.#core.options.retryRuns);
    const runOptions: RunOptions = {
      ...(stored as RunOptions),
      ...(suspend ? { suspend: (stored.suspend as SuspendOptions | undefined) ?? {} } : {}),
      signal,
      onApproval: (request, context) => this.#approval(claim, runId, attempt, request, context, replayed, rows),
    };
    const agent = this.#agent;
    if (!agent) throw new Error("fleet worker: init() was not called");
    let stream: Stream;
    try {
      stream =
        threadKey === null
          ? agent.stream(prompt, runOptions)
          : resume
            ? await this.#resumeStream(agent, threadKey, resume, attempt, runOptions)
            : agent.thread(threadKey).stream(prompt, runOptions);
    } catch (error) {
      await this.#settle(claim, runId, attempt, storeOutcome({ ok: false, error }));
      return;
    }
    let finished: JsonValue | undefined;
    let outcome: { ok: true; value: Result } | { ok: false; error: unknown };
    for (;;) {
      try {
        for await (const event of stream) {
          let json = toJsonEvent(event);
          // Only the last run-finished is written, with the verdict (a turn suspended on a
          // question whose answer was recorded goes on below).
          if (event.type === "run-finished") finished = json;
          else {
            // A subscriber answers what it sees: an asked approval is logged once its row exists.
            if (event.type === "approval-request" && !suspend && event.request.status === "pending") await rows.wait(event.request.id);
            // A question a lost attempt's asker answered already reaches clients as that answer
            // applied, not as a question to answer again.
            json = rows.replayedEvent(event, json);
            // The run ended a question unanswered (cancelled, timed out, the CLI gone): its row is
            // closed to answers before the event is logged and long before the verdict.
            const ended = event.type === "notice" ? expiredApproval(event) : undefined;
            if (ended !== undefined && !retried()) await rows.end(ended);
            await log.push(json);
          }
        }
      } catch {
        // The verdict below says what happened.
      }
      outcome = await stream.result().then(
        (value) => ({ ok: true as const, value }),
        (error: unknown) => ({ ok: false as const, error }),
      );
      const pending = outcome.ok && threadKey !== null && attempt > 1 ? outcome.value.pendingApproval : undefined;
      const recorded = pending && (await this.#recordedAnswer(runId, attempt, pending, replayed).catch(() => undefined));
      if (!pending || !recorded || signal.aborted || !(await claim.held().catch(() => false))) break;
      // Suspended on a question a lost attempt's asker already answered: answer the stored
      // approval with it and let the resumed turn go on (it replays the earlier answers itself).
      stream = agent.thread(threadKey!).streamAnswer(pending.id, recorded.decision as unknown as StoredApprovalDecision, runOptions);
    }
    // The events not written yet go into the verdict's statement (one round trip less per run).
    const unwritten = await log.close();
    // Drained: the drain's timeout stopped the run (a run that failed by itself keeps its verdict).
    const drained = stoppedByDrain(outcome, this.#stopping.signal);
    // Fenced out, or lost its claim (a worker paused past its heartbeat): the run belongs to the
    // attempt pg-boss retries, and this one writes nothing. A drained attempt still hands the job
    // back (below): the drain's own timeout may have given the job up first, which fences its
    // appends, and returning would let pg-boss count the attempt as done.
    if ((fenced.signal.aborted || claim.lost.aborted) && !drained) return;
    let retry: Error | undefined;
    if (cancel.signal.aborted && !outcome.ok) {
      // Cancelled: the stream ended after the CLI did; the verdict says so.
      const reason = cancel.reason();
      const verdict: StoredVerdict = { kind: "cancelled", ...(reason !== null ? { reason } : {}) };
      if (await this.#settle(claim, runId, attempt, verdict, finished === undefined ? unwritten : [...unwritten, finished]))
        this.#core.metrics.settled(verdict.kind, performance.now() - startedAt);
      return;
    }
    if (drained && threadKey === null && !this.#core.options.retryRuns) {
      // Drained mid-run in a run that is not retried: no worker would ever run it again, so this
      // one gives its verdict as it lets it go (its questions were closed as the run ended).
      const verdict: StoredVerdict = { kind: "attempts-exhausted", attempts: attempt, drained: true };
      if (await this.#settle(claim, runId, attempt, verdict, finished === undefined ? unwritten : [...unwritten, finished]))
        this.#core.metrics.settled(verdict.kind, performance.now() - startedAt);
      return;
    }
    if (drained) {
      // Drained mid-run: leave the run to another worker (pg-boss retries the job).
      retry = new Error("fleet worker stopped before the run finished");
    } else if (!outcome.ok && (threadKey !== null || this.#core.options.retryRuns) && lostToDatabase(outcome.error)) {
      // The database went away under the run (a restart, a failover): nothing was committed, so
      // the run is attempted again like one whose worker was lost.
      retry = new Error("fleet worker: the database was unavailable during the run", { cause: outcome.error });
    }
    if (retry) {
      if (unwritten.length > 0) await write(unwritten);
      throw retry;
    }
    const verdict = storeOutcome(outcome);
    if (await this.#settle(claim, runId, attempt, verdict, finished === undefined ? unwritten : [...unwritten, finished])) {
      this.#core.metrics.settled(verdict.kind, performance.now() - startedAt);
    }
  }

  /**
   * The stream of a run resuming a suspended turn: the stored approval answered with the run's
   * decision and the turn run on (`streamAnswer`). A retried attempt whose lost attempt already
   * recorded that same decision in the thread store resumes the turn with it (`streamResume`)
   * instead of answering again (which the store would refuse as answered).
   */
  async #resumeStream(agent: Agent, threadKey: string, resume: RunResume, attempt: number, runOptions: RunOptions): Promise<Stream> {
    const thread = agent.thread(threadKey);
    const decision = resume.decision as unknown as StoredApprovalDecision;
    const store = this.#core.threadStore;
    if (attempt > 1 && store && supportsPendingApprovals(store)) {
      const stored = await store.getPendingApproval(resume.approvalId);
      if (stored?.key === threadKey && stored.status === "answered" && sortedJson(stored.decision) === sortedJson(decision))
        return thread.streamResume(resume.approvalId, runOptions);
    }
    return thread.streamAnswer(resume.approvalId, decision, runOptions);
  }

  /**
   * The first answer recorded for an earlier attempt of the run to the same ask (kind, tool name,
   * input) that this attempt has not applied yet; marks it applied.
   */
  async #recordedAnswer(
    runId: string,
    attempt: number,
    ask: { readonly kind: string; readonly toolName?: string | undefined; readonly input?: unknown },
    replayed: Set<string>,
  ): Promise<{ id: string; decision: JsonValue } | undefined> {
    const input = ask.input === undefined ? null : toJsonEvent(ask.input);
    const rows = await this.#core.tables.recordedAnswers(runId, attempt, { kind: ask.kind, toolName: ask.toolName ?? null, input });
    const found = rows.find((row) => !replayed.has(row.id));
    if (found) replayed.add(found.id);
    return found;
  }

  async #approval(
    claim: JobClaim,
    runId: string,
    attempt: number,
    request: ApprovalRequest,
    context: ApprovalHandlerContext,
    replayed: Set<string>,
    rows: ApprovalRows,
  ): Promise<void> {
    const { tables, notifier } = this.#core;
    // An answer reaches the CLI only while this attempt still holds its job: a lost attempt (its
    // worker paused past the heartbeat) applies none, since the retried attempt applies it instead.
    const apply = async (decision: JsonValue): Promise<boolean> => {
      if (!(await claim.held())) return false;
      if (request.status === "pending") applyDecision(request, decision as unknown as FleetApprovalDecision);
      return true;
    };
    // The deadline closes the approval's row to answers before it acts, in the one conditional
    // write an answer from any host also makes: an answer recorded first is applied instead, and
    // one that comes after is refused `closed`.
    let inserted!: () => void;
    const row = new Promise<void>((resolve) => (inserted = resolve));
    const closed = new AbortController();
    context.beforeDeadline(async () => {
      await row;
      const outcome = await tables.closeApproval(request.id).finally(() => closed.abort());
      if (!outcome.closed && outcome.decision && request.status === "pending") await apply(outcome.decision);
    });
    try {
      const recorded = attempt > 1 ? await this.#recordedAnswer(runId, attempt, request, replayed) : undefined;
      if (recorded) {
        // A lost attempt asked the same and was answered: apply that answer instead of asking again.
        rows.replayed(request.id, recorded.id, recorded.decision);
        await tables.insertReplayedApproval(request.id, runId, attempt, toJsonEvent(request), recorded.decision, recorded.id);
        await apply(recorded.decision);
        return;
      }
      await tables.insertApproval(request.id, runId, attempt, toJsonEvent(request));
      // The run ending the request unanswered closes the row (see `#run`) and ends the wait below.
      rows.onEnd(request.id, () => this.#closeEnded(request.id).finally(() => closed.abort()));
    } finally {
      inserted();
      rows.written(request.id);
    }
    const topic = `approval:${request.id}`;
    const until = AbortSignal.any([context.signal, closed.signal]);
    // When the read first failed for want of a connection, while the failures last.
    let failingSince: number | undefined;
    for (;;) {
      const ticket = notifier.ticket(topic);
      const generation = notifier.generation;
      let decision: StoredApprovalDecision | null;
      try {
        decision = (await tables.decision(request.id)) as StoredApprovalDecision | null;
        failingSince = undefined;
      } catch (error) {
        ticket.drop();
        // A lost connection (a restart, a failover, a backend ended) is waited out while the
        // approval waits: the pool connects afresh for the next read. A database unreachable
        // for longer than the heartbeat (past which the attempt is lost to pg-boss anyway)
        // fails the run with its error.
        failingSince ??= performance.now();
        if (!connectionLost(error)) throw error;
        if (performance.now() - failingSince > this.#core.options.heartbeatSeconds * 1000) {
          // Given up: the approval is closed before the run fails, so an answer is refused `closed`
          // from then on rather than accepted into nothing; an answer recorded first is applied.
          if (await this.#closeGivenUp(request, until, apply)) return;
          throw error;
        }
        await notifier.reconnected(generation, until).catch(() => {});
        if (closed.signal.aborted) return;
        if (until.aborted) throw until.reason;
        continue;
      }
      if (decision) {
        ticket.drop();
        await apply(decision as unknown as JsonValue);
        return;
      }
      // Closed by the deadline (which applied an answer that came first): nothing left to wait for.
      if (closed.signal.aborted) {
        ticket.drop();
        return;
      }
      await ticket.wait(until).catch((error: unknown) => {
        if (!closed.signal.aborted) throw error;
      });
    }
  }

  /**
   * Closes approval `id`, which the run ended unanswered, to answers. A database unreachable
   * meanwhile is waited out (the close written once it is back) for up to `heartbeatSeconds`, past
   * which the attempt's job is failed and the approval reads closed without it; the close is given
   * up then, on another error, or when the fleet closes. Never rejects.
   */
  async #closeEnded(id: string): Promise<void> {
    const { tables, notifier, closed, options } = this.#core;
    const since = performance.now();
    for (;;) {
      const generation = notifier.generation;
      try {
        await tables.closeApproval(id);
        return;
      } catch (error) {
        if (!connectionLost(error) || closed.aborted || performance.now() - since > options.heartbeatSeconds * 1000) return;
      }
      try {
        await notifier.reconnected(generation, closed);
      } catch {
        return;
      }
    }
  }

  /**
   * Closes an approval whose worker gave up waiting for the database: waits for it to be reachable
   * again (while `until` lets it), then writes the conditional close that an answer also makes.
   * Returns true when an answer recorded first was applied instead (`apply`: the run goes on), false
   * when the approval is closed, the wait ended or the claim lapsed (the run fails with the
   * database's error).
   */
  async #closeGivenUp(request: ApprovalRequest, until: AbortSignal, apply: (decision: JsonValue) => Promise<boolean>): Promise<boolean> {
    const { tables, notifier } = this.#core;
    for (;;) {
      const generation = notifier.generation;
      try {
        const outcome = await tables.closeApproval(request.id);
        if (outcome.closed || !outcome.decision || request.status !== "pending") return false;
        return await apply(outcome.decision);
      } catch (error) {
        if (!connectionLost(error)) return false;
      }
      if (this.#core.closed.aborted) return false;
      await notifier.reconnected(generation, until).catch(() => {});
      if (until.aborted) return false;
    }
  }
}

/** A cancel asked of a running attempt: `signal` aborts when it is asked; `reason()` is the reason given (null: none). */
interface CancelRequest {
  readonly signal: AbortSignal;
  readonly reason: () => string | null;
}

/**
 * The approval rows an attempt has written (or failed to write), so that its `approval-request`
 * events reach the log only after their rows: the event and the `onApproval` handler that writes
 * the row start in the same turn of the event loop, in no fixed order.
 */
class ApprovalRows {
  readonly #rows = new Map<string, { readonly done: Promise<void>; readonly resolve: () => void }>();
  readonly #enders = new Map<string, () => Promise<void>>();
  /** The approvals this attempt decided with a lost attempt's recorded answer: the answered approval's id and the decision. */
  readonly #replays = new Map<string, { readonly from: string; readonly decision: JsonValue }>();

  /** Marks approval `id` as decided by the recorded answer of approval `from` (before it is applied). */
  replayed(id: string, from: string, decision: JsonValue): void {
    this.#replays.set(id, { from, decision });
  }

  /**
   * The event to log for `event` (whose JSON is `json`): for the `approval-request` of an approval
   * decided by a recorded answer, the `approval.replayed` notice the SDK writes for a stored answer
   * applied without asking, with `replayedFrom` naming the answered approval; its `approval.resolved`
   * notice marked `replayed` the same way; any other event as it is.
   */
  replayedEvent(event: AgentEvent, json: JsonValue): JsonValue {
    if (event.type === "approval-request") {
      const request = event.request;
      const replay = this.#replays.get(request.id);
      if (!replay) return json;
      const outcome = (replay.decision as { outcome?: JsonValue } | null)?.outcome ?? null;
      const meta = (json as { meta?: JsonValue }).meta;
      return toJsonEvent({
        type: "notice",
        kind: "approval.replayed",
        message: `${request.title}: the answer recorded for an earlier attempt of the run (${String(outcome)}) applied without asking`,
        data: {
          id: request.id,
          kind: request.kind,
          toolName: request.toolName,
          toolCallId: request.toolCallId,
          outcome,
          replayedFrom: replay.from,
        },
        ...(meta !== undefined ? { meta } : {}),
      });
    }
    if (event.type !== "notice" || event.kind !== "approval.resolved") return json;
    const id = event.data?.["id"];
    const replay = typeof id === "string" ? this.#replays.get(id) : undefined;
    if (!replay) return json;
    this.#replays.delete(id as string);
    const logged = json as { data?: Record<string, JsonValue> };
    return { ...logged, data: { ...logged.data, replayed: true, replayedFrom: replay.from } } as JsonValue;
  }

  /** Sets what closes approval `id`'s row when the run ends its request unanswered. */
  onEnd(id: string, end: () => Promise<void>): void {
    this.#enders.set(id, end);
  }

  /** Closes approval `id`'s row (if this attempt wrote it and it is still open to answers), once. */
  async end(id: string): Promise<void> {
    const end = this.#enders.get(id);
    this.#enders.delete(id);
    await end?.();
  }

  /** Marks the row of approval `id` as written (or its write as ended). */
  written(id: string): void {
    this.#entry(id).resolve();
  }

  /** Resolves once {@link written} was called for `id`. */
  async wait(id: string): Promise<void> {
    await this.#entry(id).done;
    this.#rows.delete(id);
  }

  #entry(id: string): { readonly done: Promise<void>; readonly resolve: () => void } {
    let entry = this.#rows.get(id);
    if (!entry) {
      let resolve!: () => void;
      const done = new Promise<void>((settle) => (resolve = settle));
      entry = { done, resolve };
      this.#rows.set(id, entry);
    }
    return entry;
  }
}

/**
 * The id of the approval an `approval.resolved` notice says the run ended unanswered (outcome
 * `expired`: the run was cancelled, timed out, stopped or lost its CLI while it waited), else
 * undefined. A deadline's expiry (`timeout`) closed its row already.
 */
function expiredApproval(event: { readonly kind?: string; readonly data?: Readonly<Record<string, unknown>> }): string | undefined {
  if (event.kind !== "approval.resolved" || event.data?.["outcome"] !== "expired") return undefined;
  const id = event.data["id"];
  return typeof id === "string" ? id : undefined;
}

/**
 * Decides `request` as `decision` says, remembering its rule (`remember`) for the rest of the run
 * as `approve({ remember })` / `deny(reason, { remember })` do in process. A rule the request
 * refuses here though the answering host took it (a path its folder resolves differently on this
 * host, a `read_only` policy only this worker's agent sets) is dropped: the recorded answer is
 * applied without it (no `approval.remembered` notice follows), as the host decided this ask.
 */
function applyDecision(request: ApprovalRequest, decision: FleetApprovalDecision): void {
  const remember = decision.outcome !== "answer" ? decision.remember : undefined;
  if (remember !== undefined) {
    try {
      settle(request, decision, { remember });
      return;
    } catch (error) {
      if (!(error instanceof InvalidOptionError) || !(error.field === "remember" || error.field.startsWith("remember."))) throw error;
    }
  }
  settle(request, decision, {});
}

function settle(request: ApprovalRequest, decision: FleetApprovalDecision, remembered: { readonly remember?: RememberRule }): void {
  if (decision.outcome === "approve")
    request.approve({ ...(decision.updatedInput !== undefined ? { updatedInput: decision.updatedInput } : {}), ...remembered });
  else if (decision.outcome === "deny") request.deny(decision.reason, remembered);
  else request.answer(decision.choice);
}

/** JSON with object keys sorted, to compare decisions whatever their key order. */
function sortedJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v !== null && typeof v === "object" && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : v,
  );
}

/** The run's `timeoutMs` as stored with its options, or undefined when it has none (or none finite). */
function runTimeoutMs(options: Record<string, JsonValue>): number | undefined {
  const value = options["timeoutMs"];
  return typeof value === "number" && Number.isFinite(value) && value >= 0 ? value : undefined;
}

/** True when the run failed because the thread store's database was unreachable or its lease was lost with it. */
function lostToDatabase(error: unknown): boolean {
  if (isError(error, ErrThreadLeaseLost)) return true;
  let found = false;
  walkError(error, (node) => (found = node instanceof DriverError && node.code === ErrCode.ServiceUnavailable));
  return found;
}
