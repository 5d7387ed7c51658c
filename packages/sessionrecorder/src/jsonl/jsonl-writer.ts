import type { FileHandle } from "node:fs/promises";
import { DriverError, ErrCode } from "@adaptor/errors";
import { encodeRecord } from "../backend/encode-record.js";
import type { EventLogWriter, JsonValue, RecordedEvent } from "../backend/event-backend.js";
import { closedError } from "../errors/closed.js";
import type { HeldLock } from "./lock-file.js";

/** When appends reach the disk; see `JsonlEventBackendOptions.fsync`. */
export type FsyncPolicy = "always" | "never";

interface Pending {
  readonly bytes: Buffer;
  readonly record: RecordedEvent;
  resolve(record: RecordedEvent): void;
  reject(error: unknown): void;
}

/** Init of a {@link JsonlWriter}, made by the backend once it holds the lock. */
export interface JsonlWriterInit {
  readonly key: string;
  readonly handle: FileHandle;
  readonly lock: HeldLock;
  readonly lastSequence: number;
  readonly size: number;
  readonly fsync: FsyncPolicy;
  readonly maxLineBytes: number;
  readonly onClose: () => void;
}

/**
 * The writer of one JSONL log. Appends queue in call order; one flush at a time writes every
 * queued line with a single write and (policy `always`) one `fdatasync`, then resolves them all
 * (group commit). After an I/O failure the writer is failed: every pending and later append
 * rejects with that failure.
 */
export class JsonlWriter implements EventLogWriter {
  readonly key: string;
  readonly #init: JsonlWriterInit;
  #lastSequence: number;
  #committedBytes: number;
  #queue: Pending[] = [];
  #flushing: Promise<void> | undefined;
  #failure: unknown;
  #closing: Promise<void> | undefined;

  constructor(init: JsonlWriterInit) {
    this.key = init.key;
    this.#init = init;
    this.#lastSequence = init.lastSequence;
    this.#committedBytes = init.size;
  }

  get lastSequence(): number {
    return this.#lastSequence;
  }

  /** Bytes of the log whose write completed (readers of this process stop there). */
  get committedBytes(): number {
    return this.#committedBytes;
  }

  append(event: JsonValue): Promise<RecordedEvent> {
    if (this.#closing) return Promise.reject(closedError(`event log writer ${this.key}`, "append"));
    if (this.#failure !== undefined) return Promise.reject(this.#failure);
    const record: RecordedEvent = { sequence: this.#lastSequence + 1, recordedAt: new Date().toISOString(), event };
    let bytes: Buffer;
    try {
      bytes = Buffer.from(encodeRecord(this.key, record) + "\n", "utf8");
    } catch (error) {
      return Promise.reject(error);
    }
    if (bytes.length > this.#init.maxLineBytes) {
      return Promise.reject(
        new DriverError({
          op: "append",
          device: this.key,
          code: ErrCode.ResourceExhausted,
          cause: `a record of ${bytes.length} bytes is over maxLineBytes (${this.#init.maxLineBytes})`,
        }),
      );
    }
    this.#lastSequence = record.sequence;
    return new Promise<RecordedEvent>((resolve, reject) => {
      this.#queue.push({ bytes, record, resolve, reject });
      this.#flushing ??= this.#flush();
    });
  }

  async #flush(): Promise<void> {
    try {
      while (this.#queue.length > 0) {
        const batch = this.#queue;
        this.#queue = [];
        try {
          if (this.#failure !== undefined) throw this.#failure;
          const bytes = batch.length === 1 ? batch[0]!.bytes : Buffer.concat(batch.map((p) => p.bytes));
          for (let done = 0; done < bytes.length;) {
            const { bytesWritten } = await this.#init.handle.write(bytes, done, bytes.length - done);
            done += bytesWritten;
            this.#committedBytes += bytesWritten;
          }
          if (this.#init.fsync === "always") await this.#init.handle.datasync();
        } catch (error) {
          this.#failure ??= new DriverError({ op: "append", device: this.key, code: ErrCode.Internal, cause: error });
          for (const pending of batch) pending.reject(this.#failure);
          continue;
        }
        for (const pending of batch) pending.resolve(pending.record);
      }
    } finally {
      this.#flushing = undefined;
    }
  }

  close(): Promise<void> {
    this.#closing ??= this.#close();
    return this.#closing;
  }

  async #close(): Promise<void> {
    try {
      while (this.#flushing) await this.#flushing;
      if (this.#failure === undefined) await this.#init.handle.sync().catch(() => undefined);
      await this.#init.handle.close();
      await this.#init.lock.release();
    } finally {
      this.#init.onClose();
    }
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }
}
