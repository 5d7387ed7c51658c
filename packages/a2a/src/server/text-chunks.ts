/**
 * How long text waits for the task store to record the chunk before it (ms): a task nobody reads
 * with a request (no write follows its events) still gets its text, in chunks this far apart.
 */
export const UNRECORDED_CHUNK_MS = 250;

/**
 * The text of a task's `response` artifact, sent in chunks. Each artifact update costs the task
 * store a write of the whole task (the SDK loads and saves it per event), so deltas are not sent
 * one by one: the text arriving while the previous chunk is being recorded is sent as one appended
 * chunk once it was ({@link recorded}), in order, or after {@link UNRECORDED_CHUNK_MS} when no
 * write comes. A single delta on an idle task goes out on the next turn of the loop.
 */
export class TextChunks {
  readonly #send: (text: string, append: boolean) => void;
  /** A chunk was sent since the artifact (re)started: the next one appends. */
  #streamed = false;
  /** Text not yet sent, joined. */
  #unsent = "";
  /** A chunk was sent and no write of the task has completed since. */
  #inFlight = false;
  /** Sends {@link #unsent} once the loop turns (the deltas already buffered join it). */
  #soon: NodeJS.Immediate | undefined;
  /** Sends {@link #unsent} although the chunk before it was not recorded. */
  #late: NodeJS.Timeout | undefined;

  /** `send` publishes one chunk: `append` is false for the first chunk of the artifact. */
  constructor(send: (text: string, append: boolean) => void) {
    this.#send = send;
  }

  /** Adds a text delta; it is sent with the next chunk. */
  add(text: string): void {
    this.#unsent += text;
    if (!this.#inFlight) this.#soon ??= setImmediate(() => this.flush());
  }

  /**
   * A write of the task completed (the request serving it handled the events published before):
   * the text that arrived meanwhile is sent as the next chunk.
   */
  recorded(): void {
    if (!this.#inFlight) return;
    this.#inFlight = false;
    clearTimeout(this.#late);
    this.#late = undefined;
    if (this.#unsent !== "") this.#soon ??= setImmediate(() => this.flush());
  }

  /** Sends the unsent text as the next chunk, now (before anything else the task publishes). */
  flush(): void {
    clearImmediate(this.#soon);
    this.#soon = undefined;
    if (this.#unsent === "") return;
    const text = this.#unsent;
    this.#unsent = "";
    this.#send(text, this.#streamed);
    this.#streamed = true;
    this.#inFlight = true;
    clearTimeout(this.#late);
    this.#late = setTimeout(() => {
      this.#late = undefined;
      this.#inFlight = false;
      this.flush();
    }, UNRECORDED_CHUNK_MS);
    this.#late.unref();
  }

  /**
   * The artifact already holds text (sent before this one was made, e.g. by an earlier request's
   * chunks): unless text waits to be sent, the next chunk appends to it.
   */
  continueArtifact(): void {
    if (this.#unsent === "") this.#streamed = true;
  }

  /** Sends the unsent text, then starts the artifact over: the next chunk replaces it (`append` false). */
  restart(): void {
    this.flush();
    this.#streamed = false;
  }

  /** Stops chunking: no timer stays behind. Text not yet sent is dropped ({@link flush} first to send it). */
  stop(): void {
    clearImmediate(this.#soon);
    clearTimeout(this.#late);
    this.#soon = undefined;
    this.#late = undefined;
  }
}
