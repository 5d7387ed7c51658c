import type { JsonValue } from "@adaptor/sessionrecorder";

/** The most text (UTF-16 code units) one stored delta holds when queued deltas are joined. */
export const MAX_JOINED_TEXT = 64 * 1024;

/** The events whose queued runs of one message are joined into one: their texts concatenate. */
const JOINED = new Set(["text-delta", "thinking-delta"]);

/**
 * An attempt's events on their way to PostgreSQL, in order: the events that arrive in one turn of
 * the event loop (a CLI's output chunk) in one statement, and those that arrive while a write is in
 * flight in the next one. Consecutive queued `text-delta` (or `thinking-delta`) events of one
 * message are joined into one event (the first's fields, the texts concatenated, up to
 * {@link MAX_JOINED_TEXT}), so a CLI streaming faster than the database takes rows never makes the
 * log wait, and the run's stream drops nothing for it.
 */
export class AttemptLog {
  readonly #write: (events: JsonValue[]) => Promise<boolean>;
  readonly #onFenced: () => void;
  #buffer: JsonValue[] = [];
  #flushing: Promise<void> | undefined;
  #failure: unknown;
  #closed = false;

  constructor(write: (events: JsonValue[]) => Promise<boolean>, onFenced: () => void) {
    this.#write = write;
    this.#onFenced = onFenced;
  }

  /** Queues one event (joined to the queued delta before it, when it continues it); waits when 1,000 are queued already. */
  async push(event: JsonValue): Promise<void> {
    const last = this.#buffer.length - 1;
    const joined = last >= 0 ? joinDeltas(this.#buffer[last]!, event) : undefined;
    if (joined) this.#buffer[last] = joined;
    else this.#buffer.push(event);
    this.#flushing ??= this.#flush();
    if (this.#buffer.length >= 1000) await this.#flushing;
  }

  async #flush(): Promise<void> {
    try {
      // The rest of the chunk this event came in is parsed in the same turn: wait for it.
      await new Promise<void>((resolve) => setImmediate(resolve));
      while (this.#buffer.length > 0 && !this.#closed) {
        const batch = this.#buffer;
        this.#buffer = [];
        if (!(await this.#write(batch))) {
          this.#onFenced();
          this.#buffer = [];
          return;
        }
      }
    } catch (error) {
      this.#failure = error;
      this.#onFenced();
    } finally {
      this.#flushing = undefined;
    }
  }

  /**
   * Stops writing: waits for the write in flight and returns the events queued since, unwritten
   * (the caller writes them with the verdict).
   * @throws the write error, if one failed.
   */
  async close(): Promise<JsonValue[]> {
    this.#closed = true;
    while (this.#flushing) await this.#flushing;
    if (this.#failure !== undefined) throw this.#failure;
    const rest = this.#buffer;
    this.#buffer = [];
    return rest;
  }
}

/**
 * `next` joined to `queued` when both are deltas of one type and one message (same `messageId`)
 * and the joined text stays within {@link MAX_JOINED_TEXT}; else undefined. The joined event keeps
 * `queued`'s other fields (its `meta`: the first delta's sequence and time).
 */
function joinDeltas(queued: JsonValue, next: JsonValue): JsonValue | undefined {
  if (!isObject(queued) || !isObject(next)) return undefined;
  if (typeof next.type !== "string" || !JOINED.has(next.type) || queued.type !== next.type) return undefined;
  if (typeof queued.text !== "string" || typeof next.text !== "string" || queued.messageId !== next.messageId) return undefined;
  if (queued.text.length + next.text.length > MAX_JOINED_TEXT) return undefined;
  return { ...queued, text: queued.text + next.text };
}

function isObject(value: JsonValue): value is { [key: string]: JsonValue } {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
