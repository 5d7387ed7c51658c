import { closedError } from "../errors/closed.js";
import { EventLogLockedError } from "../errors/event-log-locked-error.js";
import { throwIfAborted } from "../backend/abort.js";
import { decodeRecord, encodeRecord } from "../backend/encode-record.js";
import type { BackendCallOptions, EventBackend, EventLogWriter, JsonValue, RecordedEvent, RepairReport } from "../backend/event-backend.js";
import { checkSessionKey } from "../keys/session-key.js";
import { hostname } from "node:os";

/**
 * An {@link EventBackend} in memory, for tests and short-lived hosts: logs last as long as the
 * object. Records are stored as their JSON text, so replay yields fresh values shaped exactly as a
 * JSONL backend would return them. One writer per key, as with the durable backend.
 */
export class MemoryEventBackend implements EventBackend {
  readonly #logs = new Map<string, string[]>();
  readonly #writers = new Map<string, MemoryWriter>();
  #closed = false;

  async openWriter(key: string, options: BackendCallOptions = {}): Promise<EventLogWriter> {
    this.#check("openWriter");
    checkSessionKey(key);
    throwIfAborted(options.signal);
    const held = this.#writers.get(key);
    if (held) throw new EventLogLockedError(key, held.holder);
    const lines = this.#logs.get(key) ?? [];
    this.#logs.set(key, lines);
    const writer = new MemoryWriter(key, lines, () => this.#writers.delete(key));
    this.#writers.set(key, writer);
    return writer;
  }

  async *replay(key: string, options: BackendCallOptions = {}): AsyncIterable<RecordedEvent> {
    this.#check("replay");
    checkSessionKey(key);
    const lines = (this.#logs.get(key) ?? []).slice();
    for (const line of lines) {
      throwIfAborted(options.signal);
      this.#check("replay");
      yield decodeRecord(line) as RecordedEvent;
    }
  }

  async repair(key: string, options: BackendCallOptions = {}): Promise<RepairReport> {
    this.#check("repair");
    checkSessionKey(key);
    throwIfAborted(options.signal);
    const held = this.#writers.get(key);
    if (held) throw new EventLogLockedError(key, held.holder);
    return { key, truncatedBytes: 0, lastSequence: this.#logs.get(key)?.length ?? 0 };
  }

  /** See {@link EventBackend.close}: an append here is stored at its call, so nothing is ever pending and `options` is not needed. */
  async close(_options?: BackendCallOptions): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await Promise.all([...this.#writers.values()].map((w) => w.close()));
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }

  #check(op: string): void {
    if (this.#closed) throw closedError("memory event backend", op);
  }
}

class MemoryWriter implements EventLogWriter {
  readonly key: string;
  readonly holder = { pid: process.pid, hostname: hostname(), acquiredAt: new Date().toISOString() };
  readonly #lines: string[];
  readonly #release: () => void;
  #closed = false;

  constructor(key: string, lines: string[], release: () => void) {
    this.key = key;
    this.#lines = lines;
    this.#release = release;
  }

  get lastSequence(): number {
    return this.#lines.length;
  }

  async append(event: JsonValue): Promise<RecordedEvent> {
    if (this.#closed) throw closedError(`event log writer ${this.key}`, "append");
    const record: RecordedEvent = { sequence: this.#lines.length + 1, recordedAt: new Date().toISOString(), event };
    const line = encodeRecord(this.key, record);
    this.#lines.push(line);
    return record;
  }

  /** See {@link EventLogWriter.close}: nothing is ever pending here, so `options` is not needed. */
  async close(_options?: BackendCallOptions): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#release();
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }
}
