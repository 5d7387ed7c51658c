import type { ClaudeSession } from "./claude-session.js";

/** Default idle time in ms before a parked process is ended. */
export const DEFAULT_IDLE_MS = 5 * 60_000;

/**
 * Live claude processes parked between the turns of their session. `take` hands a process to
 * exactly one writer; a process whose launch signature differs from the new turn's, or that died
 * while parked, is ended instead of reused.
 */
export class SessionPool {
  readonly #idleMs: number;
  readonly #parked = new Map<string, { session: ClaudeSession; timer: NodeJS.Timeout }>();

  constructor(idleMs = DEFAULT_IDLE_MS) {
    this.#idleMs = idleMs;
  }

  /** Parks `session` under its session id until taken or idle for `idleMs`. */
  park(sessionId: string, session: ClaudeSession): void {
    const previous = this.#parked.get(sessionId);
    if (previous && previous.session !== session) void this.#evict(sessionId);
    const timer = setTimeout(() => void this.#evict(sessionId), this.#idleMs);
    timer.unref();
    this.#parked.set(sessionId, { session, timer });
  }

  /**
   * Removes and returns the parked process of `sessionId` if it is alive, launched alike and, when
   * `atMessageId` is given, its conversation ends exactly at that message (the turn's checkpoint).
   * A process that does not qualify is ended.
   */
  async take(sessionId: string, signature: string, atMessageId?: string): Promise<ClaudeSession | undefined> {
    const entry = this.#parked.get(sessionId);
    if (!entry) return undefined;
    this.#parked.delete(sessionId);
    clearTimeout(entry.timer);
    const { session } = entry;
    const atCheckpoint = atMessageId === undefined || session.lastMessageId === atMessageId;
    if (session.usable && session.signature === signature && atCheckpoint) return session;
    await session.close();
    return undefined;
  }

  /** Ends the parked process of `sessionId`, if any (another process is about to write to the session). */
  evict(sessionId: string): Promise<void> {
    return this.#evict(sessionId);
  }

  /** Number of parked processes. */
  get size(): number {
    return this.#parked.size;
  }

  /** Ends every parked process. */
  async close(): Promise<void> {
    await Promise.all([...this.#parked.keys()].map((id) => this.#evict(id)));
  }

  async #evict(sessionId: string): Promise<void> {
    const entry = this.#parked.get(sessionId);
    if (!entry) return;
    this.#parked.delete(sessionId);
    clearTimeout(entry.timer);
    await entry.session.close();
  }
}
