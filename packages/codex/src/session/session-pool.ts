import type { AppServerSession } from "../app-server/app-server-session.js";

/** Default idle time in ms before a parked process is ended. */
export const DEFAULT_IDLE_MS = 5 * 60_000;

/**
 * Live `codex app-server` processes parked between the turns of their thread, reused for the
 * next turn like the Claude driver's. `take` hands a process to exactly one writer; a
 * process whose launch signature differs from the new turn's, or that died (or lost its thread)
 * while parked, is ended instead of reused. Idle timers never hold Node open.
 */
export class SessionPool {
  readonly #idleMs: number;
  readonly #parked = new Map<string, { session: AppServerSession; timer: NodeJS.Timeout }>();

  constructor(idleMs = DEFAULT_IDLE_MS) {
    this.#idleMs = idleMs;
  }

  /** Parks `session` under its thread id until taken or idle for `idleMs`. */
  park(threadId: string, session: AppServerSession): void {
    const previous = this.#parked.get(threadId);
    if (previous && previous.session !== session) void this.#evict(threadId);
    const timer = setTimeout(() => void this.#evict(threadId), this.#idleMs);
    timer.unref();
    this.#parked.set(threadId, { session, timer });
  }

  /**
   * Removes and returns the parked process of `threadId` if it is alive, launched alike and still at
   * the committed turn the new turn continues from (`lastTurnId`, when the checkpoint names one): a
   * process whose last turn was never committed (the run failed after codex completed it) is ended.
   */
  async take(threadId: string, signature: string, lastTurnId: string | undefined): Promise<AppServerSession | undefined> {
    const entry = this.#parked.get(threadId);
    if (!entry) return undefined;
    this.#parked.delete(threadId);
    clearTimeout(entry.timer);
    const current = lastTurnId === undefined || entry.session.lastTurnId === lastTurnId;
    if (entry.session.usable && entry.session.signature === signature && current) return entry.session;
    await entry.session.close();
    return undefined;
  }

  /** Ends the parked process of `threadId`, if any (another process is about to write to the thread). */
  evict(threadId: string): Promise<void> {
    return this.#evict(threadId);
  }

  /** Number of parked processes. */
  get size(): number {
    return this.#parked.size;
  }

  /** Ends every parked process. */
  async close(): Promise<void> {
    await Promise.all([...this.#parked.keys()].map((id) => this.#evict(id)));
  }

  async #evict(threadId: string): Promise<void> {
    const entry = this.#parked.get(threadId);
    if (!entry) return;
    this.#parked.delete(threadId);
    clearTimeout(entry.timer);
    await entry.session.close();
  }
}
