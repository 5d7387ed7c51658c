import type { AppServerSession } from "../app-server/app-server-session.js";

/**
 * Pre-warmed `codex app-server` processes (initialized, no thread opened yet), by launch signature.
 * `take` hands one to exactly one run whose signature is equal; a process that died while waiting
 * is ended instead. Each waits at most `idleMs`, then it is ended.
 */
export class WarmPool {
  readonly #idleMs: number;
  readonly #warm = new Map<string, Set<{ session: AppServerSession; timer: NodeJS.Timeout }>>();

  constructor(idleMs: number) {
    this.#idleMs = idleMs;
  }

  /** Adds a ready process launched with `signature`. */
  add(signature: string, session: AppServerSession): void {
    const entries = this.#warm.get(signature) ?? new Set();
    this.#warm.set(signature, entries);
    const entry = {
      session,
      timer: setTimeout(() => {
        this.#remove(signature, entry);
        void session.close();
      }, this.#idleMs),
    };
    entry.timer.unref();
    entries.add(entry);
  }

  /** Removes and returns a live process launched with `signature`, if any; dead ones are ended. */
  async take(signature: string): Promise<AppServerSession | undefined> {
    for (const entry of this.#warm.get(signature) ?? []) {
      this.#remove(signature, entry);
      if (entry.session.warm) return entry.session;
      await entry.session.close();
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
    const sessions: AppServerSession[] = [];
    for (const [signature, entries] of [...this.#warm]) {
      for (const entry of [...entries]) {
        this.#remove(signature, entry);
        sessions.push(entry.session);
      }
    }
    await Promise.all(sessions.map((session) => session.close()));
  }

  #remove(signature: string, entry: { session: AppServerSession; timer: NodeJS.Timeout }): void {
    clearTimeout(entry.timer);
    const entries = this.#warm.get(signature);
    entries?.delete(entry);
    if (entries?.size === 0) this.#warm.delete(signature);
  }
}
