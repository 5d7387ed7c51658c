import { checkOptions, DriverError, ErrCode, InvalidOptionError, optionChecks } from "@adaptor/errors";
import type { BackendCallOptions, EventBackend, EventLogWriter, JsonValue, RecordedEvent, RepairReport } from "../backend/event-backend.js";
import { checkSessionKey } from "../keys/session-key.js";
import { throwIfAborted, untilAborted } from "../backend/abort.js";
import type { JsonForm } from "./json-form.js";

/** Turns a host event into the JSON value a backend stores. */
export type EventEncoder<E> = (event: E) => JsonValue;

/**
 * The default {@link EventEncoder}: the event's JSON form, as `JSON.stringify` writes it (a
 * `Date` becomes its ISO string, an object with `toJSON` its result, functions and `undefined`
 * fields are left out). An SDK event becomes its public fields: an `approval-request` keeps the
 * request's id, kind, title, tool, input and times, never its responder.
 * @throws TypeError (from `JSON.stringify`) for a `BigInt` or a cycle; `SessionRecorder.record`
 * reports it as a `DriverError` coded `INVALID`.
 */
export function toJsonEvent(event: unknown): JsonValue {
  const text = JSON.stringify(event);
  return text === undefined ? null : (JSON.parse(text) as JsonValue);
}

/** Options of a {@link SessionRecorder}. */
export interface SessionRecorderOptions<E> {
  /** Where the events go: a `MemoryEventBackend` or a `JsonlEventBackend`. The recorder does not close it. */
  readonly backend: EventBackend;
  /** How an event becomes JSON. Default {@link toJsonEvent}. */
  readonly encode?: EventEncoder<E>;
  /** Most appends of one {@link SessionRecorder.record} call awaiting storage before it waits (default 256). */
  readonly maxPendingAppends?: number;
}

/** Options of one {@link SessionRecorder.record} call. */
export interface RecordOptions {
  /**
   * Stops the recording: once aborted, `record()` no longer waits for storage (opening the log, an
   * append over `maxPendingAppends`, the appends still pending at the end, the writer's close), returns
   * the source's iterator (for an SDK `Stream`, ends its run) and throws `signal.reason`. Appends left
   * behind may still be stored; a key's writer whose close was left behind keeps the key until the
   * store answers. Default: none (waits for the store as long as it takes).
   */
  readonly signal?: AbortSignal;
}

const OPTIONS_SUBJECT = "SessionRecorder options";

const OPTION_SHAPE = {
  backend: optionChecks.object("an EventBackend", ["openWriter", "replay", "repair"]),
  encode: optionChecks.func(),
  maxPendingAppends: optionChecks.integer(1),
};

/**
 * Records a run's or a thread's events into an {@link EventBackend} and replays them. `record()`
 * tees an event stream (an SDK `Stream`, or any `AsyncIterable`) into a session key's log while the
 * host consumes it.
 *
 * @example
 * ```ts
 * const recorder = new SessionRecorder({ backend: new JsonlEventBackend({ root: "./sessions" }) });
 * const stream = agent.stream("Fix the failing test");
 * for await (const event of recorder.record("fix-test-1", stream)) {
 *   if (event.type === "text-delta") process.stdout.write(event.text);
 * }
 * const result = await stream.result();
 * for await (const { sequence, event } of recorder.replay("fix-test-1")) console.log(sequence, event);
 * ```
 *
 * @typeParam E - the events recorded, e.g. `AgentEvent`.
 * @typeParam S - the stored form {@link replay} gives them in: by default their {@link JsonForm}
 * (what the default encoder stores; for `AgentEvent` a union that narrows on `event.type`). With
 * an own `encode`, name what it returns.
 */
export class SessionRecorder<E = unknown, S = JsonForm<E>> {
  /** The backend the events go to. */
  readonly backend: EventBackend;
  readonly #encode: EventEncoder<E>;
  readonly #maxPending: number;

  /**
   * @throws InvalidOptionError (subject `"SessionRecorder options"`) naming the field: options that
   * are not an object, a missing `backend` or one without `openWriter`/`replay`/`repair`,
   * an `encode` that is not a function, a `maxPendingAppends` that is not a positive integer, an
   * unknown key (with the closest known one suggested).
   */
  constructor(options: SessionRecorderOptions<E>) {
    const checked = checkOptions<SessionRecorderOptions<E>>(OPTIONS_SUBJECT, options, OPTION_SHAPE);
    if (checked.backend === undefined) throw new InvalidOptionError({ subject: OPTIONS_SUBJECT, field: "backend", reason: "is required" });
    this.backend = checked.backend;
    this.#encode = checked.encode ?? (toJsonEvent as EventEncoder<E>);
    this.#maxPending = checked.maxPendingAppends ?? 256;
  }

  /**
   * Yields `events` unchanged while appending each one to `target`'s log: a session key (its
   * writer is taken for the iteration and released at its end, also on `break`) or a writer the
   * host keeps open across runs. Appends overlap the host's loop (at most `maxPendingAppends`
   * wait for storage); the iteration ends only after every append is stored.
   *
   * @throws a `DriverError` coded `INVALID` (op `append`, `device` the key, the encoder's error as
   * `cause`) for an event the encoder cannot turn into JSON (a `BigInt`, a cycle), before it is
   * yielded; the first failed append's error at the next event (the source's iterator is then
   * returned, which for an SDK `Stream` ends the run); the key and lock errors of `openWriter`
   * (`InvalidSessionKeyError`, `EventLogLockedError`, the backend's closed error), thrown when the
   * iteration starts, the source's iterator returned first in the same way (the run it was given
   * does not go on unread and unrecorded); `options.signal`'s reason once it aborts (see
   * {@link RecordOptions.signal}); TypeError for a `signal` that is not an `AbortSignal`.
   */
  async *record<T extends E>(
    target: string | EventLogWriter,
    events: AsyncIterable<T>,
    options: RecordOptions = {},
  ): AsyncGenerator<T, void, undefined> {
    const signal = options.signal;
    const owned = !isWriter(target);
    let writer: EventLogWriter;
    let opening: Promise<EventLogWriter> | undefined;
    try {
      if (signal !== undefined && !(signal instanceof AbortSignal)) throw new TypeError("record(): options.signal must be an AbortSignal");
      throwIfAborted(signal);
      opening = owned ? this.backend.openWriter(checkSessionKey(target), signal ? { signal } : undefined) : undefined;
      writer = opening ? await untilAborted(opening, signal) : (target as EventLogWriter);
    } catch (error) {
      // A writer granted after the abort is closed at once, so the key is not left locked.
      if (signal?.aborted) void opening?.then((late) => late.close()).catch(() => undefined);
      // Nothing will read the source: end it as a failed append would (an SDK Stream ends its run).
      await returnSource(events);
      throw error;
    }
    const pending: Promise<RecordedEvent>[] = [];
    let failure: { error: unknown } | undefined;
    const settle = (p: Promise<RecordedEvent>): void => {
      p.catch((error: unknown) => {
        failure ??= { error };
      });
    };
    try {
      for await (const event of events) {
        throwIfAborted(signal);
        if (failure) throw failure.error;
        const appended = writer.append(encodeEvent(this.#encode, event, owned ? target : writer.key));
        settle(appended);
        pending.push(appended);
        if (pending.length >= this.#maxPending)
          await untilAborted(
            pending.shift()!.catch(() => undefined),
            signal,
          );
        if (failure) throw (failure as { error: unknown }).error;
        yield event;
      }
      await untilAborted(Promise.allSettled(pending), signal);
      if (failure) throw (failure as { error: unknown }).error;
    } finally {
      if (signal?.aborted) {
        // Given up on: what is still pending, and the writer's close behind it, are left behind.
        if (owned) writer.close().catch(() => undefined);
      } else {
        await untilAborted(Promise.allSettled(pending), signal).catch(() => undefined);
        if (owned)
          await untilAborted(writer.close(), signal).catch((error: unknown) => {
            if (!signal?.aborted) throw error;
          });
      }
    }
  }

  /**
   * The key's recorded events in order, typed as stored (`S`); see {@link EventBackend.replay}.
   * The types are what this recorder writes: a log other code wrote may hold other values.
   */
  replay(key: string, options?: BackendCallOptions): AsyncIterable<RecordedEvent<S>> {
    return this.backend.replay(key, options) as AsyncIterable<RecordedEvent<unknown>> as AsyncIterable<RecordedEvent<S>>;
  }

  /** Cuts a torn final line off the key's log; see {@link EventBackend.repair}. */
  repair(key: string, options?: BackendCallOptions): Promise<RepairReport> {
    return this.backend.repair(key, options);
  }

  /** Takes the key's writer, to record several runs (a thread's turns) with one continuing sequence. */
  open(key: string, options?: BackendCallOptions): Promise<EventLogWriter> {
    return this.backend.openWriter(key, options);
  }
}

/**
 * The event's JSON value. An encoder failure (a `BigInt`, a cycle) becomes the `DriverError`
 * `INVALID` the backends give for a value that is not JSON; a `DriverError` is kept as is.
 */
function encodeEvent<E>(encode: EventEncoder<E>, event: E, key: string): JsonValue {
  try {
    return encode(event);
  } catch (error) {
    if (error instanceof DriverError) throw error;
    throw new DriverError({ op: "append", device: key, code: ErrCode.Invalid, cause: error });
  }
}

/** Returns `events`' iterator unread (for an SDK `Stream`, ends its run); its own failure is ignored. */
async function returnSource(events: AsyncIterable<unknown>): Promise<void> {
  try {
    await events[Symbol.asyncIterator]().return?.();
  } catch {
    // The open error is the one reported.
  }
}

function isWriter(value: unknown): value is EventLogWriter {
  return typeof value === "object" && value !== null && typeof (value as EventLogWriter).append === "function";
}
