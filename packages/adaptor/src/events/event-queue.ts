import type { AgentEvent, EventMeta, EventPayload } from "./agent-event.js";

/** Default number of buffered events before high-frequency ones are dropped. */
export const DEFAULT_EVENT_BUFFER = 1024;

/**
 * The most events a run's buffer holds for a consumer that falls behind: 64 times its capacity,
 * at least 65,536. Past it the run is ended (see {@link EventQueue}). It only bounds memory against
 * a CLI that floods the run: a consumer that reads as the run goes, even one that yields to the
 * event loop per event during a burst of thousands of tool calls, never comes near it.
 */
export function maxEventBacklog(capacity: number): number {
  return Math.max(64 * capacity, 65_536);
}

/** Events stamped with one clock reading at most, while the host takes none of them (see `#now`). */
const CLOCK_REUSE = 32;

/**
 * A settled promise: `then` on it queues a microtask. Not `queueMicrotask`, which in Node wraps
 * every callback in an async resource of its own (its bookkeeping cost as much as the clock
 * reading it saves).
 */
const SETTLED = Promise.resolve();

/** Consumed slots at the head of the buffer that trigger compaction (amortised O(1) take). */
const COMPACT_AT = 1024;

function isDroppable(event: EventPayload): boolean {
  switch (event.type) {
    case "text-delta":
    case "thinking-delta":
      return true;
    case "tool-call":
      return event.phase === "args";
    case "process":
      return event.kind === "stdout" || event.kind === "stderr";
    case "notice":
      // The CLI's own lines the driver passes on as they are (unknown line types, retries): as
      // frequent as the CLI writes them, and nothing a host must act on.
      return event.kind === "runtime";
    default:
      return false;
  }
}

const DONE: IteratorReturnResult<undefined> = Object.freeze({ done: true, value: undefined });

/**
 * The per-run event buffer behind a Stream: stamps `meta` (strictly increasing `sequence`),
 * drops only high-frequency deltas and `runtime` notices when more than `capacity` events wait,
 * reports each gap with one `dropped` event, and never drops approval, tool-result, lifecycle or
 * terminal events. Its memory is bounded whatever the driver emits: once {@link maxEventBacklog}
 * events wait, `onOverflow` is called (once; the run ends with it) and every later event but
 * `run-finished` is dropped into the gap.
 *
 * Read it with {@link take} / {@link next}; one consumer. Every event is a new frozen object: the
 * driver's payload is copied, never mutated.
 */
export class EventQueue {
  readonly #runId: string;
  readonly #threadKey: string | undefined;
  readonly #turnId: string | undefined;
  readonly #capacity: number;
  readonly #maxBacklog: number;
  readonly #onOverflow: ((limit: number) => void) | undefined;
  #overflowed = false;
  #buffer: AgentEvent[] = [];
  #head = 0;
  #sequence = 0;
  #closed = false;
  #waiting: Promise<void> | undefined;
  #wake: (() => void) | undefined;
  #gap: { count: number; byType: Record<string, number>; first: number; last: number } | undefined;
  /** Events waiting from which {@link ready} asks the driver to wait: half the buffer. */
  readonly #readyBelow: number;
  /** Set while a driver waits in {@link ready}: resolves it. */
  #resolveReady: (() => void) | undefined;
  #readyPromise: Promise<void> | undefined;
  #readyTimer: ReturnType<typeof setImmediate> | undefined;
  /** True when the last wait ran out with the host taking nothing; cleared by the next {@link take}. */
  #hostIdle = false;
  /** The last clock reading (epoch ms) and the events stamped with it since. */
  #clockMs = 0;
  #clockUses = CLOCK_REUSE;
  /** The host took an event since the last push (see `#now`). */
  #hostTook = false;

  /**
   * @param capacity - events held before droppable ones are dropped (`eventBuffer`).
   * @param onOverflow - called once when {@link maxEventBacklog} events wait, with that limit.
   */
  constructor(meta: Omit<EventMeta, "sequence" | "time">, capacity = DEFAULT_EVENT_BUFFER, onOverflow?: (limit: number) => void) {
    this.#runId = meta.runId;
    this.#threadKey = meta.threadKey;
    this.#turnId = meta.turnId;
    this.#capacity = capacity;
    this.#maxBacklog = maxEventBacklog(capacity);
    this.#onOverflow = onOverflow;
    this.#readyBelow = Math.max(1, Math.floor(capacity / 2));
  }

  /** Events buffered and not yet taken. */
  get size(): number {
    return this.#buffer.length - this.#head;
  }

  /** Stamps and buffers `event`; ignored after {@link close}. */
  push(event: EventPayload): void {
    if (this.#closed) return;
    const waiting = this.#buffer.length - this.#head;
    if (this.#overflowed ? event.type !== "run-finished" : waiting >= this.#capacity && (isDroppable(event) || this.#overflow(waiting))) {
      const sequence = ++this.#sequence;
      const gap = (this.#gap ??= { count: 0, byType: {}, first: sequence, last: sequence });
      gap.count += 1;
      gap.byType[event.type] = (gap.byType[event.type] ?? 0) + 1;
      gap.last = sequence;
      return;
    }
    if (this.#gap) this.#flushGap();
    this.#buffer.push(this.#stamp(event, ++this.#sequence));
    if (this.#wake) this.#signal();
  }

  /**
   * For a driver handing over the events of many lines at once (`DriverSink.ready`): undefined
   * while fewer than half the buffer's events wait, so the driver goes on at once; else a promise
   * that resolves once the host took every waiting event, or at the latest when the event loop
   * turns. A host that took nothing by then is not reading: until it takes an event again, this
   * returns undefined and the driver goes on (high-frequency events beyond the buffer are dropped,
   * as with any host that falls behind), so a host that never reads never holds a driver up.
   */
  ready(): Promise<void> | undefined {
    if (this.#closed || this.#hostIdle || this.#buffer.length - this.#head < this.#readyBelow) return undefined;
    if (this.#readyPromise === undefined) {
      this.#readyPromise = new Promise<void>((resolve) => {
        this.#resolveReady = resolve;
      });
      this.#readyTimer = setImmediate(() => {
        this.#readyTimer = undefined;
        this.#hostIdle = true;
        this.#endReady();
      });
    }
    return this.#readyPromise;
  }

  /** Marks the end: buffered events are still delivered, then iteration ends. */
  close(): void {
    if (this.#closed) return;
    this.#flushGap();
    this.#closed = true;
    this.#endReady();
    this.#signal();
  }

  /** The next buffered event, or undefined when none waits (see {@link closed}). */
  take(): AgentEvent | undefined {
    const buffer = this.#buffer;
    if (this.#head >= buffer.length) return undefined;
    const event = buffer[this.#head] as AgentEvent;
    buffer[this.#head] = undefined as unknown as AgentEvent; // let it be collected
    this.#head++;
    this.#hostIdle = false;
    this.#hostTook = true;
    this.#clockUses = CLOCK_REUSE; // the host ran: the next event reads the clock
    if (this.#head === buffer.length) {
      buffer.length = 0;
      this.#head = 0;
      if (this.#resolveReady) this.#endReady();
    } else if (this.#head >= COMPACT_AT && this.#head * 2 >= buffer.length) {
      this.#buffer = buffer.slice(this.#head);
      this.#head = 0;
    }
    return event;
  }

  /** True once closed; with {@link size} 0 nothing more will come. */
  get closed(): boolean {
    return this.#closed;
  }

  /** The next event, waiting for one; done once closed and drained. */
  next(): Promise<IteratorResult<AgentEvent, undefined>> {
    const event = this.take();
    if (event) return Promise.resolve({ done: false, value: event });
    if (this.#closed) return Promise.resolve(DONE);
    return this.#waitForEvent().then(() => this.next());
  }

  /** Yields buffered events in order until closed and drained. */
  async *drain(): AsyncGenerator<AgentEvent, void, undefined> {
    for (;;) {
      const next = await this.next();
      if (next.done) return;
      yield next.value;
    }
  }

  /** True, once the backlog reached its hard cap: `onOverflow` is told, and the event is dropped. */
  #overflow(waiting: number): boolean {
    if (waiting < this.#maxBacklog) return false;
    this.#overflowed = true;
    this.#onOverflow?.(this.#maxBacklog);
    return true;
  }

  #waitForEvent(): Promise<void> {
    this.#waiting ??= new Promise<void>((resolve) => {
      this.#wake = resolve;
    });
    return this.#waiting;
  }

  #flushGap(): void {
    const gap = this.#gap;
    if (!gap) return;
    this.#gap = undefined;
    const dropped: EventPayload = {
      type: "dropped",
      count: gap.count,
      byType: gap.byType,
      firstSequence: gap.first,
      lastSequence: gap.last,
    };
    this.#buffer.push(this.#stamp(dropped, ++this.#sequence));
  }

  /**
   * The time of an event pushed now, in epoch ms. Events a driver pushes back to back in one
   * synchronous stretch, with no {@link take} in between (no host code ran), share one clock
   * reading, at most {@link CLOCK_REUSE} of them: they are emitted within the same few
   * microseconds, and a clock reading costs as much as the rest of the stamp. The reading expires
   * at the next microtask, so events pushed later (a slow CLI, a host that does not read) each get
   * their own time. The first event pushed after a take reads the clock for itself alone, with no
   * expiry queued: a host reading in step with the driver takes every event before the next one
   * comes, and an expiry queued per event (a promise and its reaction each) would save no reading.
   */
  #now(): number {
    if (this.#clockUses < CLOCK_REUSE) {
      this.#clockUses++;
      return this.#clockMs;
    }
    const now = Date.now();
    this.#clockMs = now;
    if (this.#hostTook) this.#hostTook = false;
    else {
      this.#clockUses = 1;
      void SETTLED.then(this.#expireClock);
    }
    return now;
  }

  readonly #expireClock = (): void => {
    this.#clockUses = CLOCK_REUSE;
  };

  /**
   * A frozen copy of `event` with its frozen `meta`. The high-frequency deltas are copied field by
   * field (one object shape each, no spread); every other event is spread.
   */
  #stamp(event: EventPayload, sequence: number): AgentEvent {
    const threadKey = this.#threadKey;
    const turnId = this.#turnId;
    const time = new Date(this.#now());
    const meta: EventMeta = Object.freeze(
      threadKey === undefined
        ? { runId: this.#runId, sequence, time }
        : turnId === undefined
          ? { runId: this.#runId, threadKey, sequence, time }
          : { runId: this.#runId, threadKey, sequence, time, turnId },
    );
    if (event.type === "text-delta" || event.type === "thinking-delta") {
      const { messageId } = event;
      return Object.freeze(
        messageId === undefined ? { type: event.type, text: event.text, meta } : { type: event.type, text: event.text, messageId, meta },
      ) as AgentEvent;
    }
    return Object.freeze({ ...event, meta }) as AgentEvent;
  }

  /** Lets a driver waiting in {@link ready} go on. */
  #endReady(): void {
    const resolve = this.#resolveReady;
    if (this.#readyTimer !== undefined) clearImmediate(this.#readyTimer);
    this.#readyTimer = undefined;
    this.#resolveReady = undefined;
    this.#readyPromise = undefined;
    resolve?.();
  }

  #signal(): void {
    const wake = this.#wake;
    this.#wake = undefined;
    this.#waiting = undefined;
    wake?.();
  }
}
