import type { AgentEvent, EventMeta, EventPayload } from "./agent-event.js";

/** Default number of buffered events before high-frequency ones are dropped. */
export const DEFAULT_EVENT_BUFFER = 1024;

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

/**
 * The per-run event buffer behind a Stream: stamps `meta` (strictly increasing `sequence`),
 * drops only high-frequency deltas when more than `capacity` events wait, reports each gap with
 * one `dropped` event, and never drops approval, tool-result, lifecycle or terminal events.
 */
export class EventQueue {
  readonly #meta: Omit<EventMeta, "sequence" | "time">;
  readonly #capacity: number;
  readonly #buffer: AgentEvent[] = [];
  #sequence = 0;
  #closed = false;
  #wake: (() => void) | undefined;
  #gap: { count: number; byType: Record<string, number>; first: number; last: number } | undefined;

  constructor(meta: Omit<EventMeta, "sequence" | "time">, capacity = DEFAULT_EVENT_BUFFER) {
    this.#meta = meta;
    this.#capacity = capacity;
  }

  /** Stamps and buffers `event`; ignored after {@link close}. */
  push(event: EventPayload): void {
    if (this.#closed) return;
    if (isDroppable(event) && this.#buffer.length >= this.#capacity) {
      const sequence = ++this.#sequence;
      const gap = (this.#gap ??= { count: 0, byType: {}, first: sequence, last: sequence });
      gap.count += 1;
      gap.byType[event.type] = (gap.byType[event.type] ?? 0) + 1;
      gap.last = sequence;
      return;
    }
    this.#flushGap();
    this.#buffer.push(this.#stamp(event, ++this.#sequence));
    this.#signal();
  }

  /** Marks the end: buffered events are still delivered, then iteration ends. */
  close(): void {
    if (this.#closed) return;
    this.#flushGap();
    this.#closed = true;
    this.#signal();
  }

  /** Yields buffered events in order until closed and drained. */
  async *drain(): AsyncGenerator<AgentEvent, void, undefined> {
    for (;;) {
      const next = this.#buffer.shift();
      if (next) {
        yield next;
        continue;
      }
      if (this.#closed) return;
      await new Promise<void>((resolve) => (this.#wake = resolve));
    }
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

  #stamp(event: EventPayload, sequence: number): AgentEvent {
    return Object.freeze({ ...event, meta: Object.freeze({ ...this.#meta, sequence, time: new Date() }) }) as AgentEvent;
  }

  #signal(): void {
    const wake = this.#wake;
    this.#wake = undefined;
    wake?.();
  }
}
