import { checkOptions, InvalidOptionError, type OptionCheck } from "@adaptor/errors";
import type { JsonValue } from "@adaptor/sessionrecorder";
import { FleetClosedError, FleetRunNotFoundError } from "../errors/fleet-errors.js";
import type { Ticket } from "../events/notifier.js";
import type { FleetCore } from "../fleet/fleet-core.js";
import { connectionLost, databaseError } from "../schema/connection-lost.js";
import { verdictTopic } from "../schema/fleet-tables.js";
import { checkCancelReason } from "../fleet/check-calls.js";
import { loadVerdict, wholeVerdictEvent, type FleetResult, type StoredVerdict } from "../verdict/verdict.js";
import type { FleetEvent, FleetEventBody, VerdictEvent } from "./fleet-event.js";

const PAGE = 500;

/**
 * At most this long (ms) between two reads of a run's row while {@link RunHandle.verdict} waits:
 * the verdict of a run served by a worker of an earlier version, which notifies the run's topic
 * only, is seen within it.
 */
export const VERDICT_BACKSTOP_MS = 5_000;
const BACKSTOP = Symbol("verdict backstop");

/** When one call of a handle began to find the database unreachable (undefined while it is reached). */
interface Outage {
  since: number | undefined;
}

const given: OptionCheck = () => {};

/** Options of {@link RunHandle.events}. */
export interface RunEventsOptions {
  /** Yield events with a sequence greater than this (0, the default: from the first). */
  readonly after?: number;
  /** Ends the iteration: the loop rejects with `signal.reason`. */
  readonly signal?: AbortSignal;
  /**
   * `false`: end after the events stored when the read reaches them, without waiting for live
   * ones (a snapshot of the log so far). Default `true`: follow the run up to its `verdict`.
   */
  readonly follow?: boolean;
}

/** An approval a run's current attempt waits on, as stored. */
export interface FleetPendingApproval {
  /** The approval's id: pass it to `fleet.answer(id, decision)`. */
  readonly id: string;
  /** The SDK's `ApprovalRequest` fields as JSON (`kind`, `title`, `toolName`, `input`, `choices`, ...). */
  readonly request: JsonValue;
}

/** What a run was submitted with, as {@link RunHandle.info} reads it. */
export interface FleetRunInfo {
  /** The run's id. */
  readonly id: string;
  /** The thread key it runs on, if any. */
  readonly threadKey: string | undefined;
  /**
   * When the database took its submission (PostgreSQL's clock, as the run's row was written), ISO
   * 8601: for the turns of one thread key, the order they run in (the submissions of a key are
   * taken one at a time across the fleet).
   */
  readonly submittedAt: string;
  /** Whether it has its verdict. */
  readonly settled: boolean;
  /**
   * The sequence of its newest stored event (0 before any): every event {@link RunHandle.events}
   * has yielded anywhere so far has a sequence at most this; the `verdict` event's once settled.
   */
  readonly lastSequence: number;
}

/**
 * A durable handle on one submitted run, usable from any host (`fleet.handle(id)` rebuilds it from
 * the id alone). Nothing is held open between calls. Once its fleet is closed, every method rejects
 * with `FleetClosedError` (`operation` the method's name), a call under way then too (with what
 * the ended connection gave it as `cause`), unless the call's own `signal` ended it. A statement
 * PostgreSQL refuses rejects with `DriverError` (device `fleet`, `op` `fleet <method>`, the `pg`
 * error as `cause`): code `PERMISSION` for a right the role lacks (a grant missing or revoked; a
 * role granted reads only cancels nothing), `SERVICE_UNAVAILABLE` for a lost connection that
 * `cancel()` or `info()` met, and for a database `events()`, `verdict()` or `result()` found
 * unreachable for `heartbeatSeconds` (they wait out a shorter outage, a restart, reading again).
 */
export class RunHandle {
  /** The run's id (UUID), the same on every host. */
  readonly id: string;
  readonly #core: FleetCore;

  /** @internal Made by `Fleet.submit` and `Fleet.handle`. */
  constructor(core: FleetCore, id: string) {
    this.#core = core;
    this.id = id;
  }

  /**
   * The run's events from PostgreSQL: those after `after` as stored, then live ones as workers on
   * any host append them (woken by LISTEN/NOTIFY), ending after the `verdict` event. Every attempt's
   * events carry its number; a superseded attempt's events stop where its worker was lost, and only
   * the `verdict` event (with the `run-finished` written with it) is final. A lost database
   * connection (a restart) is waited out: reading resumes after the fleet reconnects. A settled
   * run's events end at once when `after` is at or past its `verdict` event (a reader reconnecting
   * after the last event it got).
   * @throws FleetRunNotFoundError for an unknown id; InvalidOptionError (subject `"fleet events"`)
   *   for options that are not an object, an unknown key (field: the key, with the closest known
   *   name as `suggestion`) or (field `after`) an `after` that is not an integer >= 0, before any
   *   query; `signal.reason` when aborted.
   */
  async *events(options: RunEventsOptions = {}): AsyncGenerator<FleetEvent, void, undefined> {
    try {
      yield* this.#events(options);
    } catch (error) {
      throw this.#failure("events", error, options.signal);
    }
  }

  async *#events(options: RunEventsOptions): AsyncGenerator<FleetEvent, void, undefined> {
    this.#checkOpen("events");
    checkOptions("fleet events", options, { after: given, signal: given, follow: given });
    const { tables } = this.#core;
    const start = options.after === undefined ? 0 : options.after;
    if (!Number.isSafeInteger(start) || start < 0)
      throw new InvalidOptionError({
        subject: "fleet events",
        field: "after",
        reason: `must be an integer >= 0 (an event's sequence), got ${typeof start === "number" || start === null ? String(start) : typeof start}`,
      });
    let after = start;
    const outage: Outage = { since: undefined };
    // The run had its verdict when the log was read once more: nothing can come after what that read found.
    let settled = false;
    for (;;) {
      const read = await this.#read(() => tables.events(this.id, after, PAGE), options.signal, outage);
      if (!read) continue;
      const { value: rows, ticket } = read;
      if (rows.length > 0) {
        ticket.drop();
        for (const row of rows) {
          after = row.seq;
          const event = row.event as unknown as FleetEventBody;
          if (event.type === "verdict") {
            // The event may leave the verdict's bulky members to the run's row: joined back here.
            const whole = await this.#wholeVerdictEvent(event as VerdictEvent, options.signal, outage);
            yield { sequence: row.seq, attempt: row.attempt, recordedAt: row.recordedAt, event: whole };
            return;
          }
          yield { sequence: row.seq, attempt: row.attempt, recordedAt: row.recordedAt, event };
        }
        continue;
      }
      if (settled) {
        ticket.drop();
        return;
      }
      // Nothing new: is the run known, and settled already (its verdict at or before `after`)?
      // Read on every empty read, so a reader past the verdict's sequence ends when it comes.
      const runRead = await this.#read(() => tables.run(this.id), options.signal, outage, undefined, ticket);
      if (!runRead) continue;
      const run = runRead.value;
      if (!run) {
        ticket.drop();
        throw new FleetRunNotFoundError(this.id);
      }
      if (run.verdict) {
        // Read once more (the verdict may have come between the two reads) and end with what that finds.
        ticket.drop();
        settled = true;
        continue;
      }
      if (options.follow === false) {
        ticket.drop();
        return;
      }
      await ticket.wait(options.signal);
    }
  }

  /**
   * The stored verdict once there is one (waits for it); see {@link result}. Woken by the verdict's
   * own notification, not by every event, and at least every 5 s (a
   * worker of an earlier version announces its verdict on the run's topic only).
   */
  async verdict(options: { readonly signal?: AbortSignal } = {}): Promise<StoredVerdict> {
    this.#checkOpen("verdict");
    try {
      return await this.#verdict(options);
    } catch (error) {
      throw this.#failure("verdict", error, options.signal);
    }
  }

  async #verdict(options: { readonly signal?: AbortSignal }): Promise<StoredVerdict> {
    const outage: Outage = { since: undefined };
    for (;;) {
      const read = await this.#read(() => this.#core.tables.run(this.id), options.signal, outage, verdictTopic(this.id));
      if (!read) continue;
      const { value: run, ticket } = read;
      if (!run || run.verdict) ticket.drop();
      if (!run) throw new FleetRunNotFoundError(this.id);
      if (run.verdict) return run.verdict;
      const backstop = new AbortController();
      const timer = setTimeout(() => backstop.abort(BACKSTOP), VERDICT_BACKSTOP_MS);
      try {
        await ticket.wait(options.signal ? AbortSignal.any([options.signal, backstop.signal]) : backstop.signal);
      } catch (error) {
        if (error !== BACKSTOP) throw error;
      } finally {
        clearTimeout(timer);
      }
    }
  }

  /** @throws FleetClosedError once the fleet is closed. */
  #checkOpen(operation: string): void {
    if (this.#core.closed.aborted) throw new FleetClosedError(operation, "closed");
  }

  /**
   * What a call that failed is rejected with: `FleetClosedError` (the failure as `cause`) when the
   * fleet was closed under it, unless the caller's own `signal` ended it; the failure otherwise, a
   * database's as `databaseError` maps it (e.g. a revoked right: `DriverError` `PERMISSION`).
   */
  #failure(operation: string, error: unknown, signal: AbortSignal | undefined): unknown {
    if (!this.#core.closed.aborted || signal?.aborted || error instanceof FleetClosedError)
      return databaseError(`fleet ${operation}`, error);
    return new FleetClosedError(operation, "closed", { cause: error });
  }

  /** The verdict event with the whole verdict (see `wholeVerdictEvent`), a lost connection waited out. */
  async #wholeVerdictEvent(event: VerdictEvent, signal: AbortSignal | undefined, outage: Outage): Promise<VerdictEvent> {
    for (;;) {
      const read = await this.#read(() => wholeVerdictEvent(event, () => this.#core.tables.verdict(this.id)), signal, outage);
      if (!read) continue;
      read.ticket.drop();
      return read.value;
    }
  }

  /**
   * Takes a ticket for `topic` (default: this run's, woken by every append; `held`: one taken
   * already), then reads: the value with the ticket to wait on when nothing new was read, or
   * undefined (ticket dropped) after waiting out a lost database connection. A database the call
   * has found unreachable for `heartbeatSeconds` is not waited for any longer: the last failure
   * is thrown (`databaseError` maps it to `SERVICE_UNAVAILABLE`).
   */
  async #read<T>(
    query: () => Promise<T>,
    signal: AbortSignal | undefined,
    outage: Outage,
    topic: string = this.id,
    held?: Ticket,
  ): Promise<{ value: T; ticket: Ticket } | undefined> {
    signal?.throwIfAborted();
    const { notifier, options } = this.#core;
    const ticket = held ?? notifier.ticket(topic);
    const generation = notifier.generation;
    try {
      const value = await query();
      outage.since = undefined;
      return { value, ticket };
    } catch (error) {
      ticket.drop();
      if (!connectionLost(error)) throw error;
      outage.since ??= Date.now();
      if (Date.now() - outage.since >= options.heartbeatSeconds * 1000) throw error;
      await notifier.reconnected(generation, signal);
      return undefined;
    }
  }

  /**
   * The run's one verdict, the same from every host: resolves the `Result` (with `recovered`: true
   * when a later attempt settled a turn its lost attempt had committed); rejects with `RunError`
   * (a business failure, with its partial result), `FleetRunCancelledError`,
   * `FleetAttemptsExhaustedError`, or a `FleetRemoteError` rebuilt from the worker's error (same
   * name, message, code and sentinels, cause chain kept).
   */
  async result(options: { readonly signal?: AbortSignal } = {}): Promise<FleetResult> {
    const settled = loadVerdict(this.id, await this.verdict(options));
    if (settled.ok) return settled.value;
    throw settled.error;
  }

  /**
   * Cancels the run from any host: a queued run is settled here and never starts; a running one's
   * worker is asked (LISTEN/NOTIFY), ends the CLI and then writes the verdict, so the verdict (and
   * the thread's next turn) comes after the cancelled turn's process is gone; this call resolves
   * then. A worker that does not settle it within this host's `heartbeatSeconds` (lost, or of an
   * earlier version) is not waited for: the run is settled here and its job cancelled (that worker
   * ends the CLI at its next heartbeat). A run whose worker was lost never starts another attempt:
   * a retried attempt that finds the cancel writes the verdict without starting, so the call
   * resolves at that failover or after `heartbeatSeconds`, whichever comes first. The verdict is
   * `FleetRunCancelledError` unless the run already had one or its turn committed.
   * Resolves whether this call cancelled it.
   * @throws InvalidOptionError (subject `"fleet cancel"`, field `reason`) for a reason that is not
   *   a string or holds U+0000 (PostgreSQL's `text` cannot hold it), before any query.
   */
  async cancel(reason?: string): Promise<boolean> {
    checkCancelReason(reason);
    this.#checkOpen("cancel");
    try {
      return await this.#cancel(reason);
    } catch (error) {
      throw this.#failure("cancel", error, undefined);
    }
  }

  async #cancel(reason: string | undefined): Promise<boolean> {
    const { boss, options, tables } = this.#core;
    const verdict: StoredVerdict = { kind: "cancelled", ...(reason !== undefined ? { reason } : {}) };
    // The run's job is in the queue it was sent to: any host's `queue` option, any run format.
    const cancelJob = async (): Promise<void> => {
      const queue = await tables.jobQueue(this.id);
      if (queue !== undefined) await boss.cancel(queue, this.id);
    };
    if (await tables.settle(this.id, 0, verdict, [], { unstarted: true })) {
      await cancelJob();
      return true;
    }
    // The request is recorded once: this call is the one cancel that may cancel the run from here on.
    if (!(await tables.requestCancel(this.id, reason))) return false;
    // Waits for the worker's verdict up to `heartbeatSeconds`, on a timer that ends with the wait.
    const waited = new AbortController();
    const timer = setTimeout(() => waited.abort(new Error("the worker wrote no verdict in time")), options.heartbeatSeconds * 1000);
    let settled: StoredVerdict | undefined;
    try {
      settled = await this.verdict({ signal: waited.signal }).catch(() => undefined);
    } finally {
      clearTimeout(timer);
    }
    if (settled) return settled.kind === "cancelled";
    await cancelJob();
    // The worker may have written the verdict of this request meanwhile: it is this call's cancel too.
    return (await tables.settle(this.id, 0, verdict)) || (await tables.verdict(this.id))?.kind === "cancelled";
  }

  /**
   * What the run was submitted with (thread key, submission time), whether it has its verdict, and
   * the sequence of its newest stored event.
   * @throws FleetRunNotFoundError for an unknown id.
   */
  async info(): Promise<FleetRunInfo> {
    this.#checkOpen("info");
    const found = await this.#core.tables.runInfo(this.id).catch((error: unknown) => {
      throw this.#failure("info", error, undefined);
    });
    if (!found) throw new FleetRunNotFoundError(this.id);
    return {
      id: this.id,
      threadKey: found.threadKey ?? undefined,
      submittedAt: found.submittedAt,
      settled: found.settled,
      lastSequence: found.lastSequence,
    };
  }

  /**
   * The approvals the run's current attempt waits on, oldest first: those `fleet.approval(id)`
   * reads `pending` (none once the run ended; see `fleet.pendingApprovals()` for every run's). A
   * run whose turn ended suspended has none: its approval is the thread store's
   * (`thread.pendingApprovals()`), answered with `fleet.submit("", { threadKey, resume })`.
   */
  async pendingApprovals(): Promise<FleetPendingApproval[]> {
    this.#checkOpen("pendingApprovals");
    return this.#core.tables.pendingApprovals(this.id).catch((error: unknown) => {
      throw this.#failure("pendingApprovals", error, undefined);
    });
  }
}
