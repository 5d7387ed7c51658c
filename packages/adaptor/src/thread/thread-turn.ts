import { AdaptorError, findError, InvalidOptionError, type Sentinel } from "@adaptor/errors";
import { threadBusyError } from "../errors/thread-busy.js";
import { BusyError } from "@adaptor/threadstore";
import { FeatureUnsupportedError, type DriverRequest, type DriverResponse } from "@adaptor/driver";
import {
  AlreadyExistsError,
  LeaseLostError,
  SessionStateTooLargeError,
  type Lease,
  type SessionStateWrite,
  type StoredSessionState,
  type ThreadRecord,
  type ThreadRecordDraft,
} from "@adaptor/threadstore";
import { isAbsolute, resolve } from "node:path";
import { v7 as uuidv7 } from "uuid";
import {
  ErrResumeRejected,
  ErrThreadAlreadyExists,
  ErrThreadBusy,
  ErrThreadCheckpointMissing,
  ErrThreadIncompatible,
  ErrThreadLeaseLost,
  ErrThreadNotFound,
} from "../errors/sentinels.js";
import { ThreadSessionError } from "../errors/thread-session-error.js";
import { ThreadCommitError } from "../errors/thread-commit-error.js";
import { PortableSessions, type RestoreOutcome } from "../session-state/portable-sessions.js";
import type { EventQueue } from "../events/event-queue.js";
import type { Preparation } from "../prepare/preparation.js";
import { threadFingerprint } from "./fingerprint.js";
import { forkedTurns, readTurnLog, turnsThrough, withTurn, type TurnLog } from "./turn-log.js";
import { readManifest } from "../session-state/session-manifest.js";
import type { ThreadContext } from "./thread-context.js";
import type { RunTelemetry } from "../telemetry/run-telemetry.js";
import { acquireLeaseWithin, checkLease, checkRecord, racedSessionState, resolveWithin, storeCall } from "./store-calls.js";
import { within } from "@adaptor/driver/kit";
import { SPAN } from "../telemetry/span-names.js";

/**
 * Codec of the checkpoint `data` this SDK writes. With portable sessions a record's codec carries a
 * parameter saying where its session files are: `json/v1;session=stored` (in the store's session
 * state) or `json/v1;session=local` (only in the CLI home of the host that ran its last turn).
 */
export const CHECKPOINT_CODEC = "json/v1";

/**
 * Portable sessions: where a record's checkpoint session files are, written as a parameter of its
 * codec (`json/v1;session=stored`, `json/v1;session=local`), so it travels with the record in every
 * store. `stored`: the store's session state holds them (a record whose state is then gone is
 * damaged, never a fresh start). `local`: the turn committed without them (best-effort
 * portability), so only a CLI home that holds the checkpoint can continue it. A plain `json/v1`
 * record was written without portable sessions.
 */
export type SessionFilesAt = "stored" | "local";

/** The codec of a record written with its session files `at`. */
function codecOf(at: SessionFilesAt | undefined): string {
  return at ? `${CHECKPOINT_CODEC};session=${at}` : CHECKPOINT_CODEC;
}

/** Where a record's session files are by its codec; `null` for a codec this SDK does not read. */
function sessionFilesOf(codec: string): SessionFilesAt | undefined | null {
  if (codec === CHECKPOINT_CODEC) return undefined;
  if (codec === codecOf("stored")) return "stored";
  if (codec === codecOf("local")) return "local";
  return null;
}

/**
 * Identifies one committed state of a record exactly: every write of a record by anyone raises its
 * store-assigned `revision`, and a new record has a new `id` (wall-clock times are never compared).
 */
function recordVersion(record: ThreadRecord): string {
  return `${record.id}#${record.revision}`;
}

/** The driver session continuing `record`'s checkpoint (its `data` passed back to the driver). */
function sessionOf(record: ThreadRecord, fork: boolean): NonNullable<DriverRequest["session"]> {
  const { resumeId, data } = record.checkpoint;
  return { resumeId, ...(fork ? { fork: true } : {}), ...(data !== undefined ? { data } : {}) };
}

/**
 * The thread's compatibility fingerprints for this run: the one its commit writes, first, then the
 * others a stored record may hold and still be continued. A driver whose resumed sessions can
 * switch models (`sessions.modelSwitch`) leaves the run's model out; a record written while the
 * model was still part of it is accepted when that model is the run's. A record written while the
 * workspace was a `cwd` as given (not resolved) is accepted when that `cwd` was absolute; one
 * written while no workspace was recorded is accepted when no `cwd` is given anywhere (the
 * workspace is `process.cwd()`), and its commit rewrites it with this run's fingerprint.
 * `unnamed`: when a `cwd` names the workspace but neither the thread nor the run or Agent does,
 * what the same parts gave while a thread recorded no workspace in that case (so a record from
 * then is refused with a message saying why).
 * @throws ErrThreadIncompatible when the driver's `fingerprint()` throws or returns a value that
 * cannot be canonicalised (a function, symbol, bigint or cycle); the cause is kept.
 */
function fingerprintsOf(
  ctx: ThreadContext,
  prep: Preparation,
  driverType: string,
  portable: boolean,
): { accepted: readonly [string, ...string[]]; unnamed: readonly string[] } {
  try {
    const { workspace, asGiven } = workspaceOf(ctx, prep);
    const parts = {
      driverType,
      model: prep.options.model,
      workspace,
      identity: ctx.identity,
      driverConfig: (portable ? prep.driver.fingerprint?.({ portableSessions: true }) : prep.driver.fingerprint?.()) ?? null,
      hostTools: prep.tools?.tools.map((tool) => ({ name: tool.name, revision: tool.revision })),
    };
    const variants = (base: typeof parts): string[] => [
      threadFingerprint(base),
      ...(asGiven !== undefined ? [threadFingerprint({ ...base, workspace: asGiven })] : []),
    ];
    const named = ctx.workspace !== undefined || prep.options.cwd !== undefined;
    const noCwd = !named && prep.driver.cwd === undefined;
    const legacy = (base: typeof parts): string[] => (named ? [] : [threadFingerprint({ ...base, workspace: undefined })]);
    const bases = prep.driver.descriptor.capabilities.sessions.modelSwitch === true ? [{ ...parts, model: undefined }, parts] : [parts];
    const [first, ...rest] = bases.flatMap(variants);
    const unnamed = bases.flatMap(legacy);
    return noCwd ? { accepted: [first!, ...rest, ...unnamed], unnamed: [] } : { accepted: [first!, ...rest], unnamed };
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error);
    throw threadError(ErrThreadIncompatible, `thread ${ctx.key}: the driver config cannot be fingerprinted: ${why}`, error);
  }
}

/**
 * The workspace a thread's fingerprint names: the thread's `workspace` (a name, as given), else
 * the directory the CLI runs in, resolved to an absolute path (the run's or the Agent's `cwd`,
 * else the driver's, else `process.cwd()`), so two Agents whose drivers run in different folders
 * never continue each other's threads, and `"ws"`, `"./ws/"` and its absolute path name one
 * folder. `asGiven`: the `cwd` as given when it was absolute but not normalised (`"/srv/a/"`),
 * which a record made while the workspace was not resolved holds.
 */
function workspaceOf(ctx: ThreadContext, prep: Preparation): { workspace: string; asGiven?: string } {
  if (ctx.workspace !== undefined) return { workspace: ctx.workspace };
  const cwd = prep.options.cwd ?? prep.driver.cwd;
  if (cwd === undefined) return { workspace: process.cwd() };
  const workspace = resolve(cwd);
  return isAbsolute(cwd) && cwd !== workspace ? { workspace, asGiven: cwd } : { workspace };
}

function threadError(sentinel: Sentinel, message: string, cause?: unknown): AdaptorError {
  return new AdaptorError(message, { sentinel, ...(cause !== undefined ? { cause } : {}) });
}

/**
 * The store side of one thread run (docs/design.md, "One run" steps 3 and 5): lease before the driver
 * starts, renewal during it, the checkpoint to resume from, the fingerprint check, and the atomic
 * conditional `finalize` after a healthy run. A failed, cancelled or denied run never writes.
 * Errors are plain `AdaptorError`s matching the root Thread sentinels, store errors kept as cause.
 */
export class ThreadTurn {
  readonly #ctx: ThreadContext;
  readonly #lease: Lease;
  /** The fingerprint the commit writes, then any other a continued record may hold. */
  readonly #fingerprints: readonly [string, ...string[]];
  /** What a record made while no workspace was recorded for this run's inputs would hold, when a cwd is given (refused). */
  readonly #unnamedFingerprints: readonly string[];
  readonly #driverType: string;
  readonly #queue: EventQueue;
  readonly #renewal: NodeJS.Timeout;
  /** The renewal in flight, and the timer that gives it up when the lease it renews expires. */
  #renewing: { readonly expiry: AbortController; readonly timer: NodeJS.Timeout } | undefined;
  readonly #telemetry: RunTelemetry | undefined;
  #current: ThreadRecord | undefined;
  #archiveId: string | undefined;
  #leaseLost: AdaptorError | undefined;
  /** Portable sessions, when both the store and the driver have them. */
  readonly #portable: PortableSessions | undefined;
  /** The session state stored for {@link #current} when the turn began. */
  #stored: StoredSessionState | undefined;
  /** Where the CLI runs on this host (cwd, env), for exporting and importing its session files. */
  #where: { cwd?: string; env?: Readonly<Record<string, string>> } = {};
  /** The resumed session's files were not on this host and could not be restored (typed fallback). */
  #sessionMissing = false;
  /** Set by {@link end}: a renewal still in flight then reports nothing. */
  #ended = false;
  /**
   * Set when `finalize` is called: renewal goes on while it runs (a write slower than the lease
   * TTL still finds its lease held), but a renewal's failure no longer ends the run.
   */
  #finalizing = false;
  /**
   * Portable sessions: the committed turns of the conversation this turn continues or branches
   * from (a fork: the parent's through its fork point); `undefined` when they are not known.
   */
  #turnsBefore: TurnLog | undefined;
  /** The run this turn is (its turn log entry names it). */
  readonly #runId: string;

  private constructor(init: {
    ctx: ThreadContext;
    lease: Lease;
    /** The local monotonic time (`performance.now()`, ms) at which the lease was asked for. */
    askedAt: number;
    fingerprints: readonly [string, ...string[]];
    unnamedFingerprints: readonly string[];
    driverType: string;
    queue: EventQueue;
    onLeaseLost: (error: AdaptorError) => void;
    telemetry: RunTelemetry | undefined;
    portable: PortableSessions | undefined;
    runId: string;
  }) {
    this.#ctx = init.ctx;
    this.#runId = init.runId;
    this.#telemetry = init.telemetry;
    this.#portable = init.portable;
    this.#lease = init.lease;
    this.#fingerprints = init.fingerprints;
    this.#unnamedFingerprints = init.unnamedFingerprints;
    this.#driverType = init.driverType;
    this.#queue = init.queue;
    let lease = init.lease;
    // When the lease lapses, on the local monotonic clock: the time-to-live asked for, counted from
    // when the grant (or its latest renewal) was asked for, so never later than the store's own
    // expiry. The lease's `expiresAt` is the store's clock (a database server's), which this host's
    // wall clock may be seconds or minutes away from: it is never compared with `Date.now()`.
    let heldUntil = init.askedAt + init.ctx.leaseTtlMs;
    let failures = 0;
    // Renewed every third of the TTL, one renewal in flight at a time (a tick while one is pending
    // does nothing). A store error is retried at the next tick (the lease still has two thirds of
    // its time); a definite loss (LeaseLostError), a malformed answer (InvalidOptionError: whether
    // the lease is still held cannot be known), a renewal that has not answered when the lease
    // expires, or a second failure in a row, while the lease is still valid, ends the run as lost.
    this.#renewal = setInterval(
      () => {
        if (this.#renewing) return;
        const expiry = new AbortController();
        const held = lease;
        const askedAt = performance.now();
        const renew = async (): Promise<Lease> =>
          checkLease(
            await storeCall("renewLease", expiry.signal, init.ctx.store.renewLease(held, init.ctx.leaseTtlMs, expiry.signal)),
            held.target,
            held,
          );
        const unanswered = new Error("the thread store's renewLease had not answered when the lease expired");
        const giveUp = (): void => expiry.abort(new LeaseLostError(held.target, { cause: unanswered }));
        this.#renewing = { expiry, timer: setTimeout(giveUp, Math.max(0, heldUntil - askedAt)) };
        this.#renewing.timer.unref();
        (init.telemetry
          ? init.telemetry.span(SPAN.leaseRenew, leaseAttributes(init.ctx, held), renew, undefined, expiry.signal)
          : renew()
        ).then(
          (renewed) => {
            this.#stopRenewing();
            lease = renewed;
            heldUntil = askedAt + init.ctx.leaseTtlMs;
            failures = 0;
          },
          (cause: unknown) => {
            this.#stopRenewing();
            // While finalize runs its own answer decides: a lease it released, or lost, is its to report.
            if (this.#ended || this.#leaseLost || this.#finalizing) return;
            if (!findError(cause, LeaseLostError) && !findError(cause, InvalidOptionError) && ++failures < 2) {
              this.#queue.push({
                type: "notice",
                kind: "lifecycle",
                message: `lease renewal failed; retrying (thread ${init.ctx.key})`,
                data: { threadKey: init.ctx.key, error: cause instanceof Error ? cause.message : String(cause) },
              });
              return;
            }
            clearInterval(this.#renewal);
            this.#leaseLost = threadError(ErrThreadLeaseLost, `thread ${init.ctx.key}: lease lost during the run`, cause);
            init.onLeaseLost(this.#leaseLost);
          },
        );
      },
      Math.max(10, Math.floor(init.ctx.leaseTtlMs / 3)),
    );
    this.#renewal.unref();
  }

  /** The lease this turn holds (its first grant; renewals keep the token). */
  get lease(): Lease {
    return this.#lease;
  }

  /** The key's committed record the turn started from (`undefined`: none, or a fork). */
  get startedFrom(): ThreadRecord | undefined {
    return this.#current;
  }

  /**
   * Computes the fingerprint, takes the lease, resolves the record, checks compatibility and sets
   * `prep.request.session`. Nothing is held when it rejects: the fingerprint comes before the lease,
   * and any failure after the lease was taken (store error, cancellation) releases it.
   * @throws ErrThreadBusy, ErrThreadNotFound, ErrThreadIncompatible (also for a driver config that
   * cannot be fingerprinted, the driver's error kept as cause), ErrThreadAlreadyExists (plain
   * errors); store errors and the abort reason as they are.
   */
  static async begin(
    ctx: ThreadContext,
    prep: Preparation,
    queue: EventQueue,
    onLeaseLost: (error: AdaptorError) => void,
  ): Promise<ThreadTurn> {
    const { store, key } = ctx;
    const driverType = prep.driver.descriptor.type;
    const transfer = prep.driver.sessions;
    const portable =
      store.sessionState && transfer
        ? new PortableSessions(racedSessionState(store.sessionState), transfer, ctx.sessionStateLimitBytes, key)
        : undefined;
    const { accepted: fingerprints, unnamed: unnamedFingerprints } = fingerprintsOf(ctx, prep, driverType, portable !== undefined);
    let lease: Lease;
    const askedAt = performance.now();
    try {
      // A lease granted after the run ended (a store that answered late) is given back at once.
      const acquire = (): Promise<Lease> => acquireLeaseWithin(store, key, ctx.owner, ctx.leaseTtlMs, prep.signal);
      lease = prep.telemetry
        ? await prep.telemetry.span(
            SPAN.leaseAcquire,
            { "adaptor.thread.key": key, "adaptor.lease.ttl_ms": ctx.leaseTtlMs },
            acquire,
            (taken) => ({ "adaptor.lease.token": taken.token }),
            prep.signal,
          )
        : await acquire();
    } catch (error) {
      throw threadBusyError(key, error) ?? error;
    }
    const turn = new ThreadTurn({
      ctx,
      lease,
      askedAt,
      fingerprints,
      unnamedFingerprints,
      driverType,
      queue,
      onLeaseLost,
      telemetry: prep.telemetry,
      portable,
      runId: prep.runId,
    });
    try {
      await turn.#resolve(prep);
      return turn;
    } catch (error) {
      await turn.end();
      throw error;
    }
  }

  /** The key's active record, checked; never waits past the run's end (see {@link resolveWithin}). */
  #resolveKey(key: string, signal: AbortSignal): Promise<ThreadRecord | undefined> {
    return resolveWithin(this.#ctx.store, key, signal);
  }

  async #resolve(prep: Preparation): Promise<void> {
    const { key, mode } = this.#ctx;
    // A live process may serve the turn only if the conversation is still where this agent left it:
    // another agent or worker may have continued it since, and a parked process would miss that.
    const wantsReuse = prep.options.spawn !== true && mode !== "fork";
    this.#where = {
      ...(prep.request.cwd !== undefined ? { cwd: prep.request.cwd } : {}),
      ...(prep.request.env !== undefined ? { env: prep.request.env } : {}),
    };
    if (mode === "fork") {
      const parentKey = this.#ctx.parentKey ?? "";
      const parent = await this.#resolveKey(parentKey, prep.signal);
      if (!parent) throw threadError(ErrThreadNotFound, `thread ${parentKey}: no active record to fork`);
      this.#checkCompatible(parent);
      if (await this.#resolveKey(key, prep.signal)) {
        throw threadError(ErrThreadAlreadyExists, `thread ${key}: fork target already has an active conversation`);
      }
      const at = this.#ctx.forkAt;
      if (at === undefined) {
        const { turns } = await this.#restore(parent, prep);
        this.#turnsBefore = turns;
        prep.request = { ...prep.request, session: sessionOf(parent, true), reuseProcess: false };
        return;
      }
      // A turn the parent does not have is refused before anything is written to this host's CLI home.
      const stored = await this.#portable?.stored(parent.id, prep.signal);
      this.#turnsBefore = forkedTurns(parentKey, this.#turnsThrough(parent, stored, prep), at);
      await this.#restore(parent, prep, { stored });
      // The CLI branches at the turn's own checkpoint: it drops what the parent's session holds after it.
      const turn = this.#turnsBefore.turns.at(-1)!;
      const session = { resumeId: turn.resumeId, fork: true, ...(turn.data !== undefined ? { data: turn.data } : {}) };
      prep.request = { ...prep.request, session, reuseProcess: false };
      return;
    }
    const current = await this.#resolveKey(key, prep.signal);
    this.#current = current;
    if (mode === "adopt") {
      const adopted = this.#ctx.adoptSession ?? "";
      if (!current) {
        await this.#findAdopted(adopted, prep);
        prep.request = { ...prep.request, session: { resumeId: adopted }, reuseProcess: wantsReuse };
        return;
      }
      // Adopted before: the key's conversation is that session; any other is not this call's to replace.
      if (current.checkpoint.resumeId !== adopted)
        throw threadError(
          ErrThreadAlreadyExists,
          `thread ${key}: cannot adopt session ${adopted}: the key already holds conversation ${current.checkpoint.resumeId}`,
        );
    }
    if (!current) {
      if (mode === "resume_only") throw threadError(ErrThreadNotFound, `thread ${key}: no active record`);
      prep.request = { ...prep.request, reuseProcess: wantsReuse };
      return;
    }
    if (mode === "start_new") {
      this.#archiveId = current.id;
      prep.request = { ...prep.request, reuseProcess: wantsReuse };
      return;
    }
    this.#checkCompatible(current);
    // The process parked after this agent's commit of `current` may serve the turn: what it wrote to
    // the session files since is its own, and stays for it (see `PortableSessions`).
    const mayReuse = wantsReuse && this.#ctx.lastCommitted === recordVersion(current);
    const restored = await this.#restore(current, prep, undefined, mayReuse);
    this.#stored = restored.stored;
    this.#turnsBefore = restored.turns;
    // A trimmed copy is the stored one again and the append ended any process serving it: this turn
    // spawns, and its process may be parked for the next, as after a turn that failed here.
    const written = restored.outcome === "restored" || restored.outcome === "appended";
    const reuseProcess = mayReuse && !written;
    prep.request = { ...prep.request, session: sessionOf(current, false), reuseProcess };
  }

  /**
   * Portable sessions: puts `record`'s stored session files into this host's CLI home when it
   * lacks them or holds other bytes (a `notice` `session restored` says so). A record committed
   * without its files (`session=local`), or whose stored files are gone, continues only where the
   * CLI home holds its checkpoint (the next commit stores the files again).
   * Without portable sessions (or a record written without them), notes whether this host lacks
   * the session's files, so the fresh-conversation fallback says why.
   * `turns`: the record's committed turns through its checkpoint, from the stored manifest.
   * `known`: the record's stored session state when the caller already read it (not read again).
   * `reuse`: the turn may run on the process parked after this agent's commit of `record`.
   * @throws ThreadSessionError: `missing` / `damaged` / `stale` (`ErrThreadSessionCorrupt`) when the
   * record's stored state is gone, damaged or another record's; `local_only` / `restore_failed`
   * (`ErrThreadSessionUnavailable`).
   */
  async #restore(
    record: ThreadRecord,
    prep: Preparation,
    known?: { readonly stored: StoredSessionState | undefined },
    reuse = false,
  ): Promise<{ stored?: StoredSessionState; turns?: TurnLog; outcome: "none" | RestoreOutcome }> {
    const location = {
      ...this.#where,
      resumeId: record.checkpoint.resumeId,
      ...(record.checkpoint.data !== undefined ? { data: record.checkpoint.data } : {}),
    };
    const stored = known ? known.stored : this.#portable ? await this.#portable.stored(record.id, prep.signal) : undefined;
    const at = sessionFilesOf(record.codec);
    // Checked before anything is written into this host's CLI home.
    const turns = this.#turnsThrough(record, stored, prep);
    if (this.#portable && at === "local") {
      // The stored state (if any) ends before this checkpoint: restoring it would drop the last turns.
      if (await this.#portable.holdsCheckpoint(location, prep.signal))
        return { ...(stored ? { stored } : {}), ...(turns ? { turns } : {}), outcome: "local" };
      throw new ThreadSessionError({
        key: this.#ctx.key,
        reason: "local_only",
        message: `thread ${this.#ctx.key}: its checkpoint was committed without its session files, and this host's CLI home does not hold them; continue it on the host that ran its last turn, or start a new thread`,
      });
    }
    if (this.#portable && !stored && at === "stored") {
      // This host's own copy still holds the checkpoint: continue from it; the commit stores it anew.
      if (await this.#portable.holdsCheckpoint(location, prep.signal)) {
        this.#queue.push({
          type: "notice",
          kind: "lifecycle",
          message: "session state missing; continuing from this host's copy",
          data: { threadKey: this.#ctx.key, resumeId: record.checkpoint.resumeId, cause: "missing" },
        });
        return { outcome: "local" };
      }
      throw new ThreadSessionError({
        key: this.#ctx.key,
        reason: "missing",
        message: `thread ${this.#ctx.key}: session state: the record says the store holds its session files, but the store has none for record ${record.id}`,
      });
    }
    if (this.#portable && stored) {
      const outcome = await this.#portable.restore(record.id, stored, location, { signal: prep.signal, reuse });
      if (outcome !== "local") {
        this.#queue.push({
          type: "notice",
          kind: "lifecycle",
          message: "session restored",
          // `appended`: this host's older copy was completed with the segments it lacked; `trimmed`:
          // bytes past the stored ones (no committed turn's) were cut off.
          data: {
            threadKey: this.#ctx.key,
            resumeId: record.checkpoint.resumeId,
            bytes: stored.bytes,
            appended: outcome === "appended",
            trimmed: outcome === "trimmed",
          },
        });
      }
      return { stored, ...(turns ? { turns } : {}), outcome };
    }
    const transfer = prep.driver.sessions;
    if (transfer) {
      const { data: _asTheyAre, ...now } = location;
      try {
        // Whether the files exist: their lengths are enough where the driver can read from an offset.
        const found = transfer.exportSessionFrom
          ? await transfer.exportSessionFrom(now, () => Number.MAX_SAFE_INTEGER, prep.signal)
          : await transfer.exportSession(now, prep.signal);
        this.#sessionMissing = found === undefined;
      } catch {
        // Unreadable here: the CLI will say what it makes of it.
      }
    }
    return { outcome: "none" };
  }

  /**
   * The turns of `record`'s conversation through its checkpoint, from the turn log kept in its
   * stored session state's manifest (already read: nothing more is fetched). `undefined` when
   * there is no state, no log (a manifest written before turns were kept), or the record was
   * committed without its files (`session=local`: the log stops before its checkpoint).
   * @throws ThreadSessionError `stale` (`ErrThreadSessionCorrupt`) when the record says the store
   * holds its session files (`session=stored`) but the stored log, which starts at the
   * conversation's first turn, has no turn that ended at its checkpoint: the state is an older (or
   * another) write's, e.g. a store that wrote the record but not the state that went with it.
   * Continuing it would silently drop the missing turns. A log that does not start at the first
   * turn (an adopted session, or turns committed before turns were kept) cannot tell a stale state
   * from a checkpoint older than its first turn (a rewind past it), and is not judged here.
   */
  #turnsThrough(record: ThreadRecord, stored: StoredSessionState | undefined, prep: Preparation): TurnLog | undefined {
    const format = prep.driver.sessions?.format;
    const log = stored && format !== undefined ? readTurnLog(readManifest(stored.manifest, format)?.turns) : undefined;
    const turns = turnsThrough(log, record.checkpoint);
    if (log?.complete && !turns && sessionFilesOf(record.codec) === "stored") {
      const last = log.turns.at(-1);
      throw new ThreadSessionError({
        key: this.#ctx.key,
        reason: "stale",
        message: `thread ${this.#ctx.key}: session state: the store's session state for record ${record.id} does not reach its checkpoint (its last stored turn is run ${last?.runId ?? "none"}); the store wrote the record without the session state that went with it`,
      });
    }
    return turns;
  }

  /**
   * An adoption's check before the CLI starts: the driver must find the session by id in this
   * host's CLI home for the run's cwd and environment, so a wrong id, working directory or home is
   * a typed error, never a fresh conversation (the CLI's own rejection, should it still come, is
   * `ErrResumeRejected` too: see {@link afterDriver}).
   * @throws FeatureUnsupportedError (feature `adoptSession`) for a driver that cannot find its CLI's
   * sessions by id; ErrResumeRejected (a thread error) when this host has no such session, or the
   * driver does not take the id as one of its CLI's (its error as cause).
   */
  async #findAdopted(resumeId: string, prep: Preparation): Promise<void> {
    const transfer = prep.driver.sessions;
    if (!transfer)
      throw new FeatureUnsupportedError(this.#driverType, "adoptSession", "it cannot find its CLI's sessions by id on this host");
    const location = { ...this.#where, resumeId };
    let found: unknown;
    try {
      found = transfer.exportSessionFrom
        ? await transfer.exportSessionFrom(location, () => Number.MAX_SAFE_INTEGER, prep.signal)
        : await transfer.exportSession(location, prep.signal);
    } catch (error) {
      if (prep.signal.aborted) throw error;
      throw threadError(
        ErrResumeRejected,
        `thread ${this.#ctx.key}: cannot adopt session ${resumeId}: ${error instanceof Error ? error.message : String(error)}`,
        error,
      );
    }
    if (found === undefined)
      throw threadError(
        ErrResumeRejected,
        `thread ${this.#ctx.key}: cannot adopt session ${resumeId}: this host's ${this.#driverType} home has no such session (check the id, the working directory and the CLI's config dir or home)`,
      );
  }

  #checkCompatible(record: ThreadRecord): void {
    const why =
      record.driverType !== this.#driverType
        ? `driver ${record.driverType} != ${this.#driverType}`
        : sessionFilesOf(record.codec) === null
          ? `codec ${record.codec} is not ${CHECKPOINT_CODEC}`
          : this.#unnamedFingerprints.includes(record.fingerprint)
            ? "fingerprint changed: the record names no workspace (it was made before the driver's cwd named a thread's workspace), so the folder it ran in is unknown; start a new thread (agent.newThread(key))"
            : !this.#fingerprints.includes(record.fingerprint)
              ? "fingerprint changed (driver type, workspace, identity, driver config, host tools and their revisions, or the model where the driver cannot switch it)"
              : undefined;
    if (why) throw threadError(ErrThreadIncompatible, `thread ${record.key}: incompatible: ${why}`);
  }

  /**
   * Handles a session another process is writing to (`session_busy`: `ErrThreadBusy`, nothing
   * written) and a resume rejection (no such session): for a `session=stored` record whose files
   * were restored from the store, ThreadSessionError `stale` (`ErrThreadSessionCorrupt`: the
   * stored state does not hold the checkpoint, never a fresh conversation); otherwise in
   * continue-or-start mode, one fresh retry through `rerun` (the old record is archived when the
   * new run commits), else `ErrResumeRejected`.
   */
  async afterDriver(
    request: DriverRequest,
    response: DriverResponse,
    rerun: (request: DriverRequest) => Promise<DriverResponse>,
  ): Promise<DriverResponse> {
    if (response.failure?.reason === "session_busy") {
      // Another process writes to the conversation: nothing ran, the record stays as it is. The
      // same shape as a held lease: a BusyError naming the holder and when to retry.
      const { details, message, cause } = response.failure;
      const holder = typeof details?.holder === "string" ? details.holder : "another process writing to the session";
      const retryAfterMs = typeof details?.retryAfterMs === "number" ? details.retryAfterMs : this.#ctx.leaseTtlMs;
      const busy = new BusyError(this.#ctx.key, { owner: holder, expiresAt: new Date(Date.now() + retryAfterMs) });
      if (cause !== undefined) (busy as { cause?: unknown }).cause = cause;
      throw threadError(
        ErrThreadBusy,
        `thread ${this.#ctx.key}: busy (held by ${JSON.stringify(holder)} until ${busy.expiresAt!.toISOString()}): ${message}`,
        busy,
      );
    }
    if (response.failure?.reason !== "resume_rejected") return response;
    const failure = response.failure;
    // The driver's error, else its message as an Error: every link of the chain is an Error.
    const cause = failure.cause ?? new Error(failure.message);
    if (this.#current && this.#stored && sessionFilesOf(this.#current.codec) === "stored") {
      // The record's own stored files were restored, and the CLI does not find its checkpoint in
      // them: the state is not the record's. A fresh conversation would replace its history.
      throw new ThreadSessionError({
        key: this.#ctx.key,
        reason: "stale",
        message: `thread ${this.#ctx.key}: session state: the CLI rejected the checkpoint of record ${this.#current.id} in the session files restored from the store (${failure.message}); the store's session state is not the record's`,
        cause,
      });
    }
    // A session the CLI knows but cannot continue in full (a fork lacking its parent's history) is never started over.
    if (this.#ctx.mode !== "continue_or_start" || !this.#current || failure.details?.historyIncomplete === true) {
      throw threadError(ErrResumeRejected, `thread ${this.#ctx.key}: resume rejected: ${failure.message}`, cause);
    }
    this.#queue.push({
      type: "notice",
      kind: "lifecycle",
      message: "resume rejected; starting a fresh conversation",
      data: {
        threadKey: this.#ctx.key,
        reason: failure.message,
        // Typed: why the stored conversation could not be continued on this host.
        cause: this.#sessionMissing ? "session_files_missing" : "resume_rejected",
      },
    });
    this.#archiveId = this.#current.id;
    const { session: _dropped, ...fresh } = request;
    return rerun(fresh);
  }

  /**
   * Persists the healthy checkpoint atomically under the held lease; with `releaseLease` (default
   * true) the same write releases the lease (`releaseLeases`), for when nothing runs under it after.
   * Portable sessions: the turn's session files go with it; when there are none to store, or they
   * are over the limit, the checkpoint is committed without them (`session=local`, a `notice`
   * `session not stored`), unless session portability is strict.
   * A `finalize` that failed is judged by reading the record back (see {@link #afterFailedFinalize}):
   * a write that landed though its reply was lost is answered as committed. Renewal goes on while
   * `finalize` runs.
   * @throws ErrThreadCheckpointMissing, ErrThreadLeaseLost (lost before the write), ErrThreadAlreadyExists
   * (plain errors); ThreadCommitError `not_committed` (also `ErrThreadLeaseLost` for a lease lost at
   * the write) / `unknown` for a failed `finalize`, and `revision_moved` (also `ErrThreadLeaseLost`:
   * committed, over a newer revision than the turn resumed from); ThreadSessionError `rewritten`,
   * and with strict portability `not_exported` / `too_large`.
   */
  async commit(
    response: DriverResponse,
    signal: AbortSignal,
    { releaseLease = true }: { releaseLease?: boolean } = {},
  ): Promise<ThreadRecord> {
    const { store, key, mode } = this.#ctx;
    if (this.#leaseLost) throw this.#leaseLost;
    if (!response.checkpoint?.resumeId) {
      throw threadError(ErrThreadCheckpointMissing, `thread ${key}: the run succeeded without a resumable checkpoint`);
    }
    // A continued conversation (continue-or-start or resume-only) keeps its record's identity; a new
    // one (start-new, fork, a fresh retry after a rejected resume) gets a new id.
    const continued = mode === "continue_or_start" || mode === "resume_only" || mode === "adopt";
    const keep = continued && this.#current && this.#archiveId === undefined ? this.#current : undefined;
    let sessionState: SessionStateWrite | undefined;
    let filesAt: SessionFilesAt | undefined;
    if (this.#portable) {
      const { resumeId, data } = response.checkpoint;
      // The turns the conversation holds now: those it continued or branched from, then this one.
      // A fork's session holds the turns it inherited under their own checkpoints (the CLIs copy
      // them with their ids), so a fork of the fork can branch at them from its session alone.
      const before =
        mode === "fork"
          ? this.#turnsBefore && { ...this.#turnsBefore, turns: this.#turnsBefore.turns.map((turn) => ({ ...turn, resumeId })) }
          : keep
            ? this.#turnsBefore
            : { complete: mode !== "adopt", turns: [] };
      const captured = await this.#portable.capture(
        keep ? this.#stored : undefined,
        { ...this.#where, resumeId, ...(data !== undefined ? { data } : {}) },
        signal,
        withTurn(before, { runId: this.#runId, resumeId, ...(data !== undefined ? { data } : {}) }),
      );
      if (this.#leaseLost) throw this.#leaseLost;
      if (captured.kind === "write") {
        sessionState = captured.write;
        filesAt = "stored";
      } else if (captured.kind === "rewritten") {
        // Storing it would replace the history with what is left of it, on every host; committing
        // the checkpoint without it would continue from the damaged copy here. Neither happens.
        throw new ThreadSessionError({
          key,
          reason: "rewritten",
          message: `thread ${key}: the CLI rewrote its session during the turn (${captured.message}); the turn is not committed and the previous checkpoint is kept`,
          ...(captured.cause !== undefined ? { cause: captured.cause } : {}),
        });
      } else if (this.#ctx.sessionPortability === "strict") {
        throw new ThreadSessionError({
          key,
          reason: captured.reason,
          message: `thread ${key}: ${captured.message}; the turn is not committed (strict session portability) and the previous checkpoint is kept`,
          ...(captured.cause !== undefined ? { cause: captured.cause } : {}),
        });
      } else {
        filesAt = "local";
        this.#queue.push({
          type: "notice",
          kind: "lifecycle",
          message: "session not stored",
          data: {
            threadKey: key,
            cause: captured.reason,
            reason: captured.message,
            ...(captured.cause !== undefined
              ? { error: captured.cause instanceof Error ? captured.cause.message : String(captured.cause) }
              : {}),
          },
        });
      }
    }
    const now = new Date();
    const record: ThreadRecordDraft = {
      id: keep?.id ?? uuidv7(),
      key,
      status: "active",
      driverType: this.#driverType,
      identity: this.#ctx.identity,
      fingerprint: this.#fingerprints[0],
      codec: codecOf(filesAt),
      checkpoint: response.checkpoint,
      createdAt: keep?.createdAt ?? now,
      updatedAt: now,
    };
    // Renewal goes on while finalize runs: a write slower than the lease TTL still finds it held.
    this.#finalizing = true;
    let answered: unknown;
    try {
      const finalize = (): Promise<ThreadRecord> =>
        store.finalize(
          {
            leases: [this.#lease],
            record,
            ...(this.#archiveId ? { archiveId: this.#archiveId } : {}),
            ...(mode === "fork" ? { requireKeyAbsent: true } : {}),
            ...(sessionState ? { sessionState } : {}),
            // Unless the caller still works under the lease after the write, a store that can
            // release it in the same transaction saves the release's own write, and answers
            // end()'s releaseLease at once.
            ...(releaseLease ? { releaseLeases: true } : {}),
          },
          signal,
        );
      // Never waits past the run's end; a finalize left behind may still commit (outcome unknown).
      // The span ends when the run gives up on the call, not when a late answer lands.
      const commit = (): Promise<ThreadRecord> => storeCall("finalize", signal, finalize());
      answered = await (this.#telemetry
        ? this.#telemetry.span(
            SPAN.leaseFinalize,
            { ...leaseAttributes(this.#ctx, this.#lease), "adaptor.thread.mode": mode },
            commit,
            undefined,
            signal,
          )
        : commit());
    } catch (error) {
      clearInterval(this.#renewal);
      this.#stopRenewing();
      answered = await this.#afterFailedFinalize(error, record, keep, signal);
    } finally {
      clearInterval(this.#renewal);
      this.#stopRenewing();
    }
    const written = checkRecord("finalize", answered, key);
    this.#ctx.onCommitted?.(recordVersion(written));
    if (keep && written.revision !== keep.revision + 1) {
      // The store let the write land over revisions the turn never saw: their turns are gone.
      const between = written.revision - keep.revision - 1;
      throw new ThreadCommitError({
        key,
        reason: "revision_moved",
        sentinel: ErrThreadLeaseLost,
        message: `thread ${key}: the store's revision moved under the turn: the turn resumed from revision ${keep.revision} of record ${keep.id}, but finalize wrote revision ${written.revision} (expected ${keep.revision + 1}); the turn is committed, and ${between > 0 ? `the ${between} write${between === 1 ? "" : "s"} between ${between === 1 ? "is" : "are"}` : "what the store held"} cut from the thread's history (the store's resolve answered an older revision than it holds, e.g. from a lagging replica)`,
      });
    }
    return written;
  }

  /**
   * The outcome of a `finalize` that rejected. A refused write (lease lost, key taken, state too
   * large) and a call the run gave up on (its signal aborted: the outcome is unknown, as the
   * abort's verdict says) are errors as they are. Any other failure (a lost reply, a dropped
   * connection) may have come after the write landed: the key's record is read back (bounded by
   * `signal`), and the turn is committed when it is the record this turn wrote (its id, its
   * checkpoint, the revision after the one it started from): then the record is answered, and a
   * `notice` `thread store reply lost` says so.
   * @throws ThreadCommitError `not_committed` when the record read back is still the one the turn
   * started from (or there is still none), or the store refused the write for a lost lease (also
   * `ErrThreadLeaseLost`); `unknown` when the read failed too or shows another write;
   * ErrThreadAlreadyExists; ThreadSessionError `too_large`; the abort's verdict as it is.
   */
  async #afterFailedFinalize(
    error: unknown,
    record: ThreadRecordDraft,
    keep: ThreadRecord | undefined,
    signal: AbortSignal,
  ): Promise<ThreadRecord> {
    const { key } = this.#ctx;
    if (findError(error, LeaseLostError)) {
      if (signal.aborted) throw threadError(ErrThreadLeaseLost, `thread ${key}: lease lost before finalize`, error);
      throw new ThreadCommitError({
        key,
        reason: "not_committed",
        sentinel: ErrThreadLeaseLost,
        message: `thread ${key}: lease lost at finalize: the store refused the write (the lease had lapsed or been taken over by the time it ran); nothing was committed and the previous checkpoint is kept`,
        cause: error,
      });
    }
    if (findError(error, AlreadyExistsError)) throw threadError(ErrThreadAlreadyExists, `thread ${key}: already exists`, error);
    const tooLarge = findError(error, SessionStateTooLargeError);
    if (tooLarge) {
      throw new ThreadSessionError({
        key,
        reason: "too_large",
        message: `thread ${key}: session state of ${tooLarge.bytes} bytes is over the limit of ${tooLarge.limitBytes}; the previous checkpoint is kept`,
        cause: error,
      });
    }
    if (signal.aborted) throw error;
    const why = error instanceof Error ? error.message : String(error);
    let read: ThreadRecord | undefined;
    try {
      read = await this.#resolveKey(key, signal);
    } catch (readError) {
      throw new ThreadCommitError({
        key,
        reason: "unknown",
        message: `thread ${key}: the thread store's finalize failed (${why}), and reading the record back failed too (${readError instanceof Error ? readError.message : String(readError)}): the turn's commit may or may not have landed; whether it was saved is unknown until the thread is read again`,
        cause: new AggregateError([error, readError], "finalize failed, and reading the record back failed too"),
      });
    }
    const expected = keep ? keep.revision + 1 : 1;
    if (read && read.id === record.id && read.revision === expected && read.checkpoint.resumeId === record.checkpoint.resumeId) {
      this.#queue.push({
        type: "notice",
        kind: "lifecycle",
        message: "thread store reply lost; the turn is committed",
        data: { threadKey: key, recordId: read.id, revision: read.revision, error: why },
      });
      return read;
    }
    const before = this.#current;
    const unchanged = before ? read !== undefined && recordVersion(read) === recordVersion(before) : read === undefined;
    if (unchanged) {
      throw new ThreadCommitError({
        key,
        reason: "not_committed",
        message: `thread ${key}: the thread store's finalize failed (${why}); nothing was committed (${before ? `the record read back is revision ${before.revision}, the one the turn started from, and its checkpoint is kept` : "the key still has no record"})`,
        cause: error,
      });
    }
    throw new ThreadCommitError({
      key,
      reason: "unknown",
      message: `thread ${key}: the thread store's finalize failed (${why}), and the record read back is neither the turn's write nor the one it started from (${read ? `record ${read.id} revision ${read.revision}` : "none"}): the turn's commit may or may not have landed; whether it was saved is unknown until the thread is read again`,
      cause: error,
    });
  }

  /** Forgets the renewal in flight (its answer, if any, still lands) and clears its expiry timer. */
  #stopRenewing(): void {
    if (this.#renewing) clearTimeout(this.#renewing.timer);
    this.#renewing = undefined;
  }

  /**
   * Stops renewal and releases the lease; idempotent, never throws. A failed release is tried once
   * more; if that fails too, or the store does not answer within the lease time-to-live (at most
   * {@link RELEASE_WAIT_MS}), a `notice` (kind `lifecycle`) says the key stays busy until the lease
   * expires (the lease time-to-live from the last renewal).
   */
  async end(): Promise<void> {
    if (this.#ended) return;
    this.#ended = true;
    clearInterval(this.#renewal);
    this.#renewing?.expiry.abort(new Error("the turn ended"));
    this.#stopRenewing();
    const { store, key, leaseTtlMs } = this.#ctx;
    let failure: unknown;
    const waitMs = Math.min(leaseTtlMs, RELEASE_WAIT_MS);
    for (let attempt = 1; attempt <= 2; attempt++) {
      const release = store.releaseLease(this.#lease);
      release.catch(() => undefined);
      if (!(await within(release, waitMs))) {
        failure = new Error(`the thread store's releaseLease did not answer within ${waitMs} ms`);
        break;
      }
      try {
        await release;
        return;
      } catch (error) {
        failure = error;
      }
    }
    this.#queue.push({
      type: "notice",
      kind: "lifecycle",
      message: `lease release failed; thread ${key} stays busy until the lease expires (up to ${leaseTtlMs} ms)`,
      data: { threadKey: key, error: failure instanceof Error ? failure.message : String(failure) },
    });
  }
}

/** The longest {@link ThreadTurn.end} waits for the store to release the lease (ms). */
const RELEASE_WAIT_MS = 5_000;

/** Span attributes of a lease step: the key, the fencing token and the time-to-live. */
function leaseAttributes(ctx: ThreadContext, lease: Lease): Record<string, string | number> {
  return { "adaptor.thread.key": ctx.key, "adaptor.lease.token": lease.token, "adaptor.lease.ttl_ms": ctx.leaseTtlMs };
}
