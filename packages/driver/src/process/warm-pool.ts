/** A process a {@link WarmPool} can hold: something that can be ended, and let the host exit while it waits. */
export interface WarmProcess {
  /** Ends the process and releases what it holds. Idempotent. */
  close(): Promise<void>;
  /** Lets the host exit while the process waits (see `CliProcess.unref`). */
  unref(): void;
  /** Holds the host again once the process serves a turn (see `CliProcess.ref`). */
  ref(): void;
}

/**
 * Pre-warmed CLI processes that have not served a turn yet, keyed by launch signature (a string
 * that is equal exactly when two runs would launch the CLI alike). `take` hands one to exactly one
 * run whose signature is equal; a process that is no longer ready when taken is ended instead.
 * Each waits at most `idleMs`, then it is ended. Neither the timers nor the waiting processes keep
 * the host alive (a host that exits meanwhile still ends them); a process taken holds it again.
 */
export class WarmPool<P extends WarmProcess> {
  readonly #idleMs: number;
  readonly #isReady: (process: P) => boolean;
  readonly #warm = new Map<string, Set<{ process: P; timer: NodeJS.Timeout }>>();

  /**
   * @param idleMs how long, in ms, a process may wait before it is ended.
   * @param isReady whether a waiting process can still serve a first turn (alive, not closed).
   */
  constructor(idleMs: number, isReady: (process: P) => boolean) {
    this.#idleMs = idleMs;
    this.#isReady = isReady;
  }

  /** Adds a ready process launched with `signature`. */
  add(signature: string, process: P): void {
    const entries = this.#warm.get(signature) ?? new Set();
    this.#warm.set(signature, entries);
    const entry = {
      process,
      timer: setTimeout(() => {
        this.#remove(signature, entry);
        void process.close();
      }, this.#idleMs),
    };
    entry.timer.unref();
    process.unref();
    entries.add(entry);
  }

  /** Removes and returns a ready process launched with `signature`, if any; others are ended. */
  async take(signature: string): Promise<P | undefined> {
    for (const entry of this.#warm.get(signature) ?? []) {
      this.#remove(signature, entry);
      if (this.#isReady(entry.process)) {
        entry.process.ref();
        return entry.process;
      }
      await entry.process.close();
    }
    return undefined;
  }

  /** Number of waiting processes. */
  get size(): number {
    let size = 0;
    for (const entries of this.#warm.values()) size += entries.size;
    return size;
  }

  /** Ends every waiting process. */
  async close(): Promise<void> {
    const processes: P[] = [];
    for (const [signature, entries] of [...this.#warm]) {
      for (const entry of [...entries]) {
        this.#remove(signature, entry);
        processes.push(entry.process);
      }
    }
    await Promise.all(processes.map((process) => process.close()));
  }

  #remove(signature: string, entry: { process: P; timer: NodeJS.Timeout }): void {
    clearTimeout(entry.timer);
    const entries = this.#warm.get(signature);
    entries?.delete(entry);
    if (entries?.size === 0) this.#warm.delete(signature);
  }
}
