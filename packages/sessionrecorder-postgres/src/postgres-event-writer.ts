import { DriverError, ErrCode } from "@adaptor/errors";
import type { BackendCallOptions, EventLogWriter, JsonValue, PendingAppends, RecordedEvent } from "@adaptor/sessionrecorder";
import { closeWithin, closedError, encodeRecord } from "@adaptor/sessionrecorder/internal";
import { DEVICE } from "./backend-error.js";

interface Pending {
  readonly line: string;
  readonly record: RecordedEvent;
  resolve(record: RecordedEvent): void;
  reject(error: unknown): void;
}

/** What a writer needs from its backend. */
export interface WriterHost {
  /**
   * Stores `lines` (records `first + 1 …`) when the writer still holds `token`, in one statement.
   * Resolves false when it does not (the key was taken over).
   */
  append(key: string, token: string, first: number, lines: readonly string[]): Promise<boolean>;
  /** The error for a writer that lost its key. */
  lost(key: string): Promise<Error>;
  /** Releases the key (when `token` still holds it). */
  release(key: string, token: string): Promise<void>;
  /** Called once, when the writer is closed. */
  closed(writer: PostgresEventWriter): void;
}

/** Most records per statement. */
const BATCH = 500;

/**
 * The writer of one session key in PostgreSQL. Appends queue in call order; one statement at a
 * time stores every queued record (up to 500) and resolves them together once committed. Each
 * statement is fenced by the writer's token: after a takeover it stores nothing and the writer
 * fails with `EventLogLockedError`. After any failure every pending and later append rejects with it.
 */
export class PostgresEventWriter implements EventLogWriter {
  readonly key: string;
  readonly #token: string;
  readonly #host: WriterHost;
  readonly #maxRecordBytes: number;
  #lastSequence: number;
  #stored: number;
  /** The last sequence whose append resolved or rejected. */
  #answered: number;
  #queue: Pending[] = [];
  #flushing: Promise<void> | undefined;
  #failure: unknown;
  #closing: Promise<void> | undefined;

  constructor(key: string, token: string, lastSequence: number, maxRecordBytes: number, host: WriterHost) {
    this.key = key;
    this.#token = token;
    this.#lastSequence = lastSequence;
    this.#stored = lastSequence;
    this.#answered = lastSequence;
    this.#maxRecordBytes = maxRecordBytes;
    this.#host = host;
  }

  get lastSequence(): number {
    return this.#lastSequence;
  }

  async append(event: JsonValue): Promise<RecordedEvent> {
    if (this.#closing) throw closedError(`event log writer ${this.key}`, "append");
    if (this.#failure !== undefined) throw this.#failure;
    const record: RecordedEvent = { sequence: this.#lastSequence + 1, recordedAt: new Date().toISOString(), event };
    const line = encodeRecord(this.key, record);
    if (Buffer.byteLength(line) > this.#maxRecordBytes) {
      throw new DriverError({
        op: "append",
        device: DEVICE,
        code: ErrCode.ResourceExhausted,
        cause: `record of ${Buffer.byteLength(line)} bytes exceeds maxRecordBytes (${this.#maxRecordBytes})`,
      });
    }
    this.#lastSequence = record.sequence;
    return new Promise<RecordedEvent>((resolve, reject) => {
      this.#queue.push({ line, record, resolve, reject });
      this.#flushing ??= this.#flush();
    });
  }

  async #flush(): Promise<void> {
    try {
      while (this.#queue.length > 0) {
        const batch = this.#queue.splice(0, BATCH);
        try {
          if (this.#failure !== undefined) throw this.#failure;
          const stored = await this.#host.append(
            this.key,
            this.#token,
            this.#stored,
            batch.map((p) => p.line),
          );
          if (!stored) throw await this.#host.lost(this.key);
          this.#stored += batch.length;
          this.#answered = batch.at(-1)!.record.sequence;
          for (const p of batch) p.resolve(p.record);
        } catch (error) {
          this.#failure ??= error;
          this.#answered = batch.at(-1)!.record.sequence;
          for (const p of batch) p.reject(this.#failure);
        }
      }
    } finally {
      this.#flushing = undefined;
    }
  }

  /** The appends not yet answered, or undefined when there are none. */
  pendingAppends(): PendingAppends | undefined {
    return this.#answered < this.#lastSequence ? { key: this.key, first: this.#answered + 1, last: this.#lastSequence } : undefined;
  }

  /** Waits for pending appends, then releases the key. Idempotent. See `EventLogWriter.close` for `options.signal`. */
  close(options: BackendCallOptions = {}): Promise<void> {
    this.#closing ??= (async () => {
      try {
        while (this.#flushing) await this.#flushing;
        // Conditional on the token: a writer that lost its key releases nothing. A release that
        // fails (no connection) leaves the key to this backend object until it closes.
        await this.#host.release(this.key, this.#token).catch(() => {});
      } finally {
        this.#host.closed(this);
      }
    })();
    return closeWithin(this.#closing, options.signal, () => [this.pendingAppends() ?? []].flat());
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }
}
