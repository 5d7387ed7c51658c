import { constants, type Stats } from "node:fs";
import { lstat, mkdir, open, realpath, type FileHandle } from "node:fs/promises";
import { basename, dirname, join, relative, sep } from "node:path";
import { checkOptions, InvalidOptionError, optionChecks } from "@adaptor/errors";
import { throwIfAborted } from "../backend/abort.js";
import type { BackendCallOptions, EventBackend, EventLogWriter, RecordedEvent, RepairReport } from "../backend/event-backend.js";
import { closedError } from "../errors/closed.js";
import { closeWithin } from "../backend/close-within.js";
import { EventLogCorruptError } from "../errors/event-log-corrupt-error.js";
import { InvalidSessionKeyError } from "../errors/invalid-session-key-error.js";
import { checkSessionKey } from "../keys/session-key.js";
import { JsonlWriter, type FsyncPolicy } from "./jsonl-writer.js";
import { acquireLock, lockIsHeld, type HeldLock } from "./lock-file.js";
import { readLog, readTail } from "./read-log.js";

/** Default {@link JsonlEventBackendOptions.maxLineBytes}: 16 MiB. */
export const DEFAULT_MAX_RECORD_BYTES = 16 * 1024 * 1024;

/** Options of a {@link JsonlEventBackend}. */
export interface JsonlEventBackendOptions {
  /** Directory holding one `<key>.jsonl` log (and, while written, `<key>.jsonl.lock`) per session key; created if missing. */
  readonly root: string;
  /**
   * `always` (default): an append resolves only after its line is written and `fdatasync`ed, so a
   * resolved append survives a crash of the process and of the machine. `never`: it resolves once
   * the line is written to the OS, which survives a crash of the process but not of the machine.
   * Concurrent appends share one write and one `fdatasync`; `close()` always syncs.
   */
  readonly fsync?: FsyncPolicy;
  /** Longest record line, in bytes (default {@link DEFAULT_MAX_RECORD_BYTES}); a longer append is refused, a longer line in a log is corrupt. */
  readonly maxLineBytes?: number;
}

const OPTION_SHAPE = {
  root: optionChecks.string({ nonEmpty: true }),
  fsync: optionChecks.oneOf("always", "never"),
  maxLineBytes: optionChecks.integer(64),
};

/**
 * A durable {@link EventBackend}: one append-only JSON Lines file per session key under `root`,
 * each line `{"sequence":n,"recordedAt":"…","event":…}`. One writer per key at a time, also across
 * processes: the writer holds `<key>.jsonl.lock` (pid, host, process start time), and a lock left
 * by a dead process on this host is taken over. Every path is checked to stay inside `root`, and
 * logs are never opened through a symbolic link.
 *
 * @example
 * ```ts
 * await using backend = new JsonlEventBackend({ root: "/var/lib/my-app/sessions" });
 * const writer = await backend.openWriter("run-42");
 * await writer.append({ type: "note", text: "started" });
 * await writer.close();
 * for await (const { sequence, event } of backend.replay("run-42")) console.log(sequence, event);
 * ```
 */
export class JsonlEventBackend implements EventBackend {
  /** The root directory as given. */
  readonly root: string;
  readonly #fsync: FsyncPolicy;
  readonly #maxLineBytes: number;
  readonly #writers = new Map<string, JsonlWriter>();
  #realRoot: Promise<string> | undefined;
  #closed = false;
  #closing: Promise<void> | undefined;

  /** @throws InvalidOptionError for a missing root, an unknown option or a bad fsync / maxLineBytes value. */
  constructor(options: JsonlEventBackendOptions) {
    const checked = checkOptions<JsonlEventBackendOptions>("JsonlEventBackend options", options, OPTION_SHAPE);
    if (checked.root === undefined) {
      throw new InvalidOptionError({ subject: "JsonlEventBackend options", field: "root", reason: "is required" });
    }
    this.root = checked.root;
    this.#fsync = checked.fsync ?? "always";
    this.#maxLineBytes = checked.maxLineBytes ?? DEFAULT_MAX_RECORD_BYTES;
  }

  async openWriter(key: string, options: BackendCallOptions = {}): Promise<EventLogWriter> {
    const { log, lockPath } = await this.#paths("openWriter", key);
    throwIfAborted(options.signal);
    const lock = await acquireLock(lockPath, key);
    let handle: FileHandle | undefined;
    try {
      this.#check("openWriter");
      throwIfAborted(options.signal);
      const existed = await exists(log, key);
      handle = await openLog(log, key, constants.O_RDWR | constants.O_APPEND | constants.O_CREAT);
      if (!existed) await syncDirectory(dirname(log));
      const { size } = await handle.stat();
      const tail = await readTail(handle, key, size, this.#maxLineBytes);
      if (tail.torn) {
        // Line n of a log holds sequence n, so the torn line follows the last record's line.
        const line = tail.lastSequence + 1;
        throw new EventLogCorruptError({ key, kind: "torn-final-line", line, offset: tail.completeEnd, detail: "call repair()" });
      }
      const writer = new JsonlWriter({
        key,
        path: log,
        handle,
        lock,
        lastSequence: tail.lastSequence,
        size,
        fsync: this.#fsync,
        maxLineBytes: this.#maxLineBytes,
        onClose: () => this.#writers.delete(key),
      });
      this.#writers.set(key, writer);
      return writer;
    } catch (error) {
      await handle?.close().catch(() => undefined);
      await lock.release();
      throw error;
    }
  }

  async *replay(key: string, options: BackendCallOptions = {}): AsyncIterable<RecordedEvent> {
    const { log, lockPath } = await this.#paths("replay", key);
    throwIfAborted(options.signal);
    let handle: FileHandle;
    try {
      handle = await openLog(log, key, constants.O_RDONLY);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return;
      throw error;
    }
    try {
      const own = this.#writers.get(key);
      const end = own ? own.committedBytes : (await handle.stat()).size;
      // A line a live writer is still writing is not yet part of the log.
      const writing = own !== undefined || (await lockIsHeld(lockPath));
      const records = readLog(handle, key, end, this.#maxLineBytes, options.signal);
      for (;;) {
        const next = await records.next();
        this.#check("replay");
        if (next.done) {
          const torn = next.value.torn;
          if (torn && !writing) {
            throw new EventLogCorruptError({ key, kind: "torn-final-line", line: torn.line, offset: torn.offset, detail: "call repair()" });
          }
          return;
        }
        yield next.value;
      }
    } finally {
      await handle.close();
    }
  }

  async repair(key: string, options: BackendCallOptions = {}): Promise<RepairReport> {
    const { log, lockPath } = await this.#paths("repair", key);
    throwIfAborted(options.signal);
    const lock: HeldLock = await acquireLock(lockPath, key);
    try {
      let handle: FileHandle;
      try {
        handle = await openLog(log, key, constants.O_RDWR);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === "ENOENT") return { key, truncatedBytes: 0, lastSequence: 0 };
        throw error;
      }
      try {
        const { size } = await handle.stat();
        const records = readLog(handle, key, size, this.#maxLineBytes, options.signal);
        let next = await records.next();
        while (!next.done) next = await records.next();
        const summary = next.value;
        if (!summary.torn) return { key, truncatedBytes: 0, lastSequence: summary.lastSequence };
        await handle.truncate(summary.completeEnd);
        await handle.sync();
        return { key, truncatedBytes: size - summary.completeEnd, lastSequence: summary.lastSequence };
      } finally {
        await handle.close();
      }
    } finally {
      await lock.release();
    }
  }

  /** See {@link EventBackend.close}. */
  close(options: BackendCallOptions = {}): Promise<void> {
    this.#closed = true;
    this.#closing ??= Promise.all([...this.#writers.values()].map((writer) => writer.close())).then(() => undefined);
    return closeWithin(this.#closing, options.signal, () => [...this.#writers.values()].flatMap((writer) => writer.pendingAppends() ?? []));
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }

  #check(op: string): void {
    if (this.#closed) throw closedError(`JSONL event backend ${this.root}`, op);
  }

  /** The key's log and lock paths, after the key rules and the path-containment check. */
  async #paths(op: string, key: string): Promise<{ log: string; lockPath: string }> {
    this.#check(op);
    checkSessionKey(key);
    this.#realRoot ??= mkdir(this.root, { recursive: true }).then(() => realpath(this.root));
    const root = await this.#realRoot;
    this.#check(op);
    const log = join(root, `${key}.jsonl`);
    const inside = relative(root, log);
    if (dirname(log) !== root || inside !== `${key}.jsonl` || inside.includes(sep) || basename(log) !== inside) {
      throw new InvalidSessionKeyError(key, "names a file outside the backend's root");
    }
    return { log, lockPath: `${log}.lock` };
  }
}

async function exists(path: string, key: string): Promise<boolean> {
  try {
    const stat = await lstat(path);
    if (stat.isSymbolicLink()) throw new InvalidSessionKeyError(key, "its log is a symbolic link, which may leave the root");
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return false;
    throw error;
  }
}

/**
 * Opens a log, never through a symbolic link (which could point outside the root), and only when
 * it is a regular file. The open does not block (`O_NONBLOCK`: a FIFO planted at the log path would
 * otherwise hold a thread of the I/O pool until some process writes to it), and the kind is
 * checked on the opened handle (`fstat`), so nothing is read from anything else.
 */
async function openLog(path: string, key: string, flags: number): Promise<FileHandle> {
  try {
    const handle = await open(path, flags | constants.O_NOFOLLOW | constants.O_NONBLOCK, 0o600);
    const stat = await handle.stat();
    if (!stat.isFile()) {
      await handle.close();
      throw new InvalidSessionKeyError(key, `its log is not a regular file (${fileKind(stat)})`);
    }
    return handle;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ELOOP") {
      throw new InvalidSessionKeyError(key, "its log is a symbolic link, which may leave the root");
    }
    if ((error as NodeJS.ErrnoException).code === "EISDIR") throw new InvalidSessionKeyError(key, "its log is a directory");
    throw error;
  }
}

function fileKind(stat: Stats): string {
  if (stat.isFIFO()) return "a FIFO";
  if (stat.isSocket()) return "a socket";
  if (stat.isCharacterDevice() || stat.isBlockDevice()) return "a device";
  if (stat.isDirectory()) return "a directory";
  return "not a file";
}

/** Makes a new directory entry durable. */
async function syncDirectory(path: string): Promise<void> {
  const handle = await open(path, constants.O_RDONLY);
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}
