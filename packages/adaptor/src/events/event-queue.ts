import type { AgentEvent, EventMeta, EventPayload } from "./agent-event.js";

/** Default number of buffered events before high-frequency ones are dropped. */
export const DEFAULT_EVENT_BUFFER = 1024;

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
    default:
      return false;
  }
}

const DONE: IteratorReturnResult<undefined> = Object.freeze({ done: true, value: undefined });

/**
 * The per-run event buffer behind a Stream: stamps `meta` (strictly increasing `sequence`),
 * drops only high-frequency deltas when more than `capacity` events wait, reports each gap with
 * one `dropped` event, and never drops approval, tool-result, lifecycle or terminal events.
 *
 * Read it with {@link take} / {@link next}; one consumer. Every event is a new frozen object: the
 * driver's payload is copied, never mutated.
 */
export class EventQueue {
  readonly #runId: string;
  readonly #threadKey: string | undefined;
  readonly #turnId: string | undefined;
  readonly #capacity: number;
  #buffer: AgentEvent[] = [];
  #head = 0;
  #sequence = 0;
  #closed = false;
  #waiting: Promise<void> | undefined;
  #wake: (() => void) | undefined;
  #gap: { count: number; byType: Record<string, number>; first: number; last: number } | undefined;

  constructor(meta: Omit<EventMeta, "sequence" | "time">, capacity = DEFAULT_EVENT_BUFFER) {
    this.#runId = meta.runId;
    this.#threadKey = meta.threadKey;
    this.#turnId = meta.turnId;
    this.#capacity = capacity;
  }

  /** Events buffered and not yet taken. */
  get size(): number {
    return this.#buffer.length - this.#head;
  }

  /** Stamps and buffers `event`; ignored after {@link close}. */
  push(event: EventPayload): void {
    if (this.#closed) return;
    if (this.#buffer.length - this.#head >= this.#capacity && isDroppable(event)) {
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

  /** Marks the end: buffered events are still delivered, then iteration ends. */
  close(): void {
    if (this.#closed) return;
    this.#flushGap();
    this.#closed = true;
    this.#signal();
  }

  /** The next buffered event, or undefined when none waits (see {@link closed}). */
  take(): AgentEvent | undefined {
    const buffer = this.#buffer;
    if (this.#head >= buffer.length) return undefined;
    const event = buffer[this.#head] as AgentEvent;
    buffer[this.#head] = undefined as unknown as AgentEvent; // let it be collected
    this.#head++;
    if (this.#head === buffer.length) {
      buffer.length = 0;
      this.#head = 0;
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
   * A frozen copy of `event` with its frozen `meta`. The high-frequency deltas are copied field by
   * field (one object shape each, no spread); every other event is spread.
   */
  #stamp(event: EventPayload, sequence: number): AgentEvent {
    const threadKey = this.#threadKey;
    const turnId = this.#turnId;
    const meta: EventMeta = Object.freeze(
      threadKey === undefined
        ? { runId: this.#runId, sequence, time: new Date() }
        : turnId === undefined
          ? { runId: this.#runId, threadKey, sequence, time: new Date() }
          : { runId: this.#runId, threadKey, sequence, time: new Date(), turnId },
    );
    if (event.type === "text-delta" || event.type === "thinking-delta") {
      const { messageId } = event;
      return Object.freeze(
        messageId === undefined ? { type: event.type, text: event.text, meta } : { type: event.type, text: event.text, messageId, meta },
      ) as AgentEvent;
    }
    return Object.freeze({ ...event, meta }) as AgentEvent;
  }

  #signal(): void {
    const wake = this.#wake;
    this.#wake = undefined;
    this.#waiting = undefined;
    wake?.();
  }
}
