import { lstat, type FileHandle } from "node:fs/promises";
import { DriverError, ErrCode } from "@adaptor/errors";
import { encodeRecord } from "../backend/encode-record.js";
import type { BackendCallOptions, EventLogWriter, JsonValue, RecordedEvent } from "../backend/event-backend.js";
import { closedError } from "../errors/closed.js";
import type { PendingAppends } from "../errors/appends-pending-error.js";
import { closeWithin } from "../backend/close-within.js";
import { EventLogCorruptError } from "../errors/event-log-corrupt-error.js";
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
  /** Path of the log: the file `handle` appends to must stay the file at this path. */
  readonly path: string;
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
 * rejects with that failure. After each write the log is checked to still be the file at its path,
 * holding exactly what this writer wrote: a log renamed over, deleted or truncated under the
 * writer fails it with `EventLogCorruptError` `changed-under-writer` (the batch is not acknowledged).
 */
export class JsonlWriter implements EventLogWriter {
  readonly key: string;
  readonly #init: JsonlWriterInit;
  #lastSequence: number;
  /** The last sequence whose append resolved or rejected. */
  #answered: number;
  #committedBytes: number;
  #queue: Pending[] = [];
  #flushing: Promise<void> | undefined;
  #failure: unknown;
  #closing: Promise<void> | undefined;

  constructor(init: JsonlWriterInit) {
    this.key = init.key;
    this.#init = init;
    this.#lastSequence = init.lastSequence;
    this.#answered = init.lastSequence;
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
          const offset = this.#committedBytes;
          for (let done = 0; done < bytes.length;) {
            const { bytesWritten } = await this.#init.handle.write(bytes, done, bytes.length - done);
            done += bytesWritten;
            this.#committedBytes += bytesWritten;
          }
          if (this.#init.fsync === "always") await this.#init.handle.datasync();
          await this.#checkUnchanged(batch[0]!.record.sequence, offset);
        } catch (error) {
          this.#failure ??=
            error instanceof EventLogCorruptError
              ? error
              : new DriverError({ op: "append", device: this.key, code: ErrCode.Internal, cause: error });
          this.#answered = batch.at(-1)!.record.sequence;
          for (const pending of batch) pending.reject(this.#failure);
          continue;
        }
        this.#answered = batch.at(-1)!.record.sequence;
        for (const pending of batch) pending.resolve(pending.record);
      }
    } finally {
      this.#flushing = undefined;
    }
  }

  /**
   * Checks that the file this writer appends to is still the log at its path (same device and
   * inode) and holds exactly the bytes this writer knows of.
   * @throws EventLogCorruptError `changed-under-writer` naming the batch's first line otherwise.
   */
  async #checkUnchanged(line: number, offset: number): Promise<void> {
    const own = await this.#init.handle.stat();
    const onPath = await lstat(this.#init.path).catch((error: NodeJS.ErrnoException) => {
      if (error.code === "ENOENT") return undefined;
      throw error;
    });
    let detail: string | undefined;
    if (onPath === undefined) detail = "the log file was deleted";
    else if (onPath.ino !== own.ino || onPath.dev !== own.dev) detail = "another file was put at the log's path";
    else if (own.size !== this.#committedBytes)
      detail = `the log holds ${own.size} bytes where this writer wrote ${this.#committedBytes} (truncated or written by another process)`;
    if (detail !== undefined) throw new EventLogCorruptError({ key: this.key, kind: "changed-under-writer", line, offset, detail });
  }

  /** The appends not yet answered, or undefined when there are none. */
  pendingAppends(): PendingAppends | undefined {
    return this.#answered < this.#lastSequence ? { key: this.key, first: this.#answered + 1, last: this.#lastSequence } : undefined;
  }

  /** See {@link EventLogWriter.close}. */
  close(options: BackendCallOptions = {}): Promise<void> {
    this.#closing ??= this.#close();
    return closeWithin(this.#closing, options.signal, () => [this.pendingAppends() ?? []].flat());
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
