import { AdaptorError, ErrCode, sentinel, type Sentinel } from "@adaptor/errors";
import {
  ErrFleetAttemptsExhausted,
  ErrFleetClosed,
  ErrFleetQueueFull,
  ErrFleetRemote,
  ErrFleetRunCancelled,
  ErrFleetRunExists,
  ErrFleetRunExpired,
  ErrFleetRunNotFound,
} from "./sentinels.js";

/** `submit` refused a run: `queued` unfinished runs already, `limit` allowed. Matches {@link ErrFleetQueueFull}. */
export class FleetQueueFullError extends AdaptorError {
  static override readonly brand: symbol = Symbol.for("adaptor.error.FleetQueueFullError");
  static override readonly sentinel = ErrFleetQueueFull;
  /** Unfinished runs (queued or running) when the run was refused. */
  readonly queued: number;
  /** The fleet's `maxQueued`. */
  readonly limit: number;

  constructor(queued: number, limit: number) {
    super(`fleet submit: ${queued} unfinished runs, the limit is ${limit}`);
    this.queued = queued;
    this.limit = limit;
  }
}

/**
 * The verdict of a run whose every attempt was lost (its worker stopped without a verdict: killed,
 * crashed, disconnected past the heartbeat, or drained), with no attempt left: `maxAttempts` of
 * them, or one for a run without a thread key when `retryRuns` is off. Matches
 * {@link ErrFleetAttemptsExhausted}. `drained` is true when the last attempt's worker was drained
 * (`drain()` stopped the run at its timeout): that worker wrote this verdict as it let the run go,
 * and the message says so. A host of a version before drained verdicts reads the same verdict
 * with `drained` false and the message of a lost worker.
 */
export class FleetAttemptsExhaustedError extends AdaptorError {
  static override readonly brand: symbol = Symbol.for("adaptor.error.FleetAttemptsExhaustedError");
  static override readonly sentinel = ErrFleetAttemptsExhausted;
  /** The run. */
  readonly runId: string;
  /** Attempts made (the fleet's `maxAttempts`, or 1 for a run that is not retried). */
  readonly attempts: number;
  /** Whether the last attempt ended because its worker was drained (default false: its worker was lost). */
  readonly drained: boolean;

  constructor(runId: string, attempts: number, options: { readonly drained?: boolean } = {}) {
    super(
      options.drained === true
        ? `fleet run ${runId}: its worker was drained before attempt ${attempts} finished; not attempted again`
        : `fleet run ${runId}: ${attempts} attempts lost their worker; not attempted again`,
    );
    this.runId = runId;
    this.attempts = attempts;
    this.drained = options.drained === true;
  }
}

/** No run `runId` in the fleet's tables. Matches {@link ErrFleetRunNotFound}. */
export class FleetRunNotFoundError extends AdaptorError {
  static override readonly brand: symbol = Symbol.for("adaptor.error.FleetRunNotFoundError");
  static override readonly sentinel = ErrFleetRunNotFound;
  /** The id asked for. */
  readonly runId: string;

  constructor(runId: string) {
    super(`fleet run ${runId}: not found`);
    this.runId = runId;
  }
}

/** `submit` with a `runId` a run of the fleet already has; nothing was stored. Matches {@link ErrFleetRunExists}. */
export class FleetRunExistsError extends AdaptorError {
  static override readonly brand: symbol = Symbol.for("adaptor.error.FleetRunExistsError");
  static override readonly sentinel = ErrFleetRunExists;
  /** The id asked for. */
  readonly runId: string;

  constructor(runId: string) {
    super(`fleet submit: run ${runId} exists already`);
    this.runId = runId;
  }
}

/** An operation on a closed (or draining) fleet. Matches {@link ErrFleetClosed}. */
export class FleetClosedError extends AdaptorError {
  static override readonly brand: symbol = Symbol.for("adaptor.error.FleetClosedError");
  static override readonly sentinel = ErrFleetClosed;
  /** The refused operation, e.g. `"submit"`. */
  readonly operation: string;

  /** `cause`: the error the closed fleet's connection gave a call that was under way. */
  constructor(operation: string, state: "closed" | "draining", options: { readonly cause?: unknown } = {}) {
    super(`fleet ${operation}: the fleet is ${state}`, "cause" in options ? { cause: options.cause } : {});
    this.operation = operation;
  }
}

/** The verdict of a run cancelled through a handle. Matches {@link ErrFleetRunCancelled}. */
export class FleetRunCancelledError extends AdaptorError {
  static override readonly brand: symbol = Symbol.for("adaptor.error.FleetRunCancelledError");
  static override readonly sentinel = ErrFleetRunCancelled;
  /** The run. */
  readonly runId: string;
  /** The reason given to `cancel`, if any. */
  readonly reason: string | undefined;

  constructor(runId: string, reason?: string) {
    super(`fleet run ${runId}: cancelled${reason ? ` (${reason})` : ""}`);
    this.runId = runId;
    this.reason = reason;
  }
}

/**
 * The verdict of a run no worker started within its queue deadline (`queueDeadlineMs`, from its
 * submission: waiting in the queue and behind its thread's earlier turns), e.g. a run of a run
 * format no live worker polls. The run never starts afterwards. Matches {@link ErrFleetRunExpired};
 * `code` is `ErrCode` `"TIMEOUT"`. A host of a version before queue deadlines reads the same
 * verdict as a {@link FleetRemoteError} with this name, message, code and sentinel.
 */
export class FleetRunExpiredError extends AdaptorError {
  static override readonly brand: symbol = Symbol.for("adaptor.error.FleetRunExpiredError");
  static override readonly sentinel = ErrFleetRunExpired;
  /** The run. */
  readonly runId: string;
  /** Its queue deadline (ms after its submission). */
  readonly queueDeadlineMs: number;
  /** Always `ErrCode.Timeout` (`"TIMEOUT"`). */
  readonly code = ErrCode.Timeout;

  constructor(runId: string, queueDeadlineMs: number) {
    super(`fleet run ${runId}: not started within its queue deadline of ${queueDeadlineMs} ms`);
    this.runId = runId;
    this.queueDeadlineMs = queueDeadlineMs;
  }
}

/** One error of a stored chain: what a worker's error looked like. */
export interface StoredError {
  /** The error's `name`, e.g. `"DriverError"`. */
  readonly name: string;
  /** Its message. */
  readonly message: string;
  /** `ErrCode` of a `DriverError`. */
  readonly code?: string | undefined;
  /**
   * The error's own `reason`, when it has a string one (a `ThreadSessionError`'s `restore_failed`,
   * a `FileCheckpointError`'s, an `InvalidOptionError`'s). Absent in errors stored by earlier versions.
   */
  readonly reason?: string | undefined;
  /** Ids of the sentinels it matched directly. */
  readonly sentinels: readonly string[];
  /** The next error of the chain. */
  readonly cause?: StoredError | undefined;
}

/**
 * An error raised on a worker, rebuilt from its stored form on any host: same `name`, `message`,
 * `code`, `reason` and sentinels (so `isError(err, ErrThreadBusy)` matches as on the worker), with
 * its `cause` chain rebuilt the same way. Also matches {@link ErrFleetRemote}.
 */
export class FleetRemoteError extends AdaptorError {
  static override readonly brand: symbol = Symbol.for("adaptor.error.FleetRemoteError");
  static override readonly sentinel = ErrFleetRemote;
  /** The worker error's `ErrCode`, when it had one. */
  readonly code: string | undefined;
  /**
   * The worker error's `reason`, when it had a string one (e.g. a `ThreadSessionError`'s
   * `"restore_failed"`); undefined otherwise and for errors stored by earlier versions.
   */
  readonly reason: string | undefined;
  /** The stored form this error was rebuilt from. */
  readonly stored: StoredError;

  constructor(stored: StoredError) {
    const sentinels: Sentinel[] = stored.sentinels.map((id) => sentinel(id, id));
    super(stored.message, {
      sentinel: sentinels,
      ...(stored.cause ? { cause: new FleetRemoteError(stored.cause) } : {}),
    });
    Object.defineProperty(this, "name", { value: stored.name, configurable: true, writable: true });
    this.code = stored.code;
    this.reason = typeof stored.reason === "string" ? stored.reason : undefined;
    this.stored = stored;
  }
}
