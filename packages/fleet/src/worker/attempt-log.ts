import type { JsonValue } from "@adaptor/sessionrecorder";

/**
 * An attempt's events on their way to PostgreSQL, in order: the events that arrive in one turn of
 * the event loop (a CLI's output chunk) in one statement, and those that arrive while a write is in
 * flight in the next one.
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

  /** Queues one event; waits when 1,000 are queued already. */
  async push(event: JsonValue): Promise<void> {
    this.#buffer.push(event);
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
