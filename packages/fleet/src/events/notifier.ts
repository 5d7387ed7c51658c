import pg from "pg";

/** A pending wake-up: resolves on the next notification of its topic after it was taken, a reconnect, or close. */
export interface Ticket {
  /** Resolves when woken; rejects with `signal.reason` when `signal` aborts first. */
  wait(signal?: AbortSignal): Promise<void>;
  /** Drops the ticket without waiting. */
  drop(): void;
}

const RECONNECT_MS = [100, 250, 500, 1000, 2000];

/**
 * One LISTEN connection per fleet: notifications (`<runId>` or `approval:<id>`) wake the tickets of
 * their topic. Notifications are wake-ups only: whoever wakes reads the tables, so a notification
 * lost while the connection was down costs nothing, because every ticket is woken on reconnect.
 */
export class Notifier {
  readonly #connectionString: string;
  readonly #channel: string;
  readonly #waiting = new Map<string, Set<() => void>>();
  readonly #reconnected = new Set<() => void>();
  readonly #watchers = new Map<string, Set<() => void>>();
  #client: pg.Client | undefined;
  #connecting: Promise<void> | undefined;
  #timer: NodeJS.Timeout | undefined;
  #failures = 0;
  #closed = false;
  #generation = 0;

  constructor(connectionString: string, channel: string) {
    this.#connectionString = connectionString;
    this.#channel = channel;
  }

  /** Connects and listens (idempotent); resolves once listening. A failed start is not kept: the next call tries again. */
  start(): Promise<void> {
    if (!this.#connecting) {
      const connecting = this.#connect().catch((error: unknown) => {
        if (this.#connecting === connecting) this.#connecting = undefined;
        throw error;
      });
      this.#connecting = connecting;
    }
    return this.#connecting;
  }

  async #connect(): Promise<void> {
    const client = new pg.Client({ connectionString: this.#connectionString });
    client.on("error", () => this.#lost(client));
    client.on("end", () => this.#lost(client));
    client.on("notification", (message) => {
      if (message.channel === this.#channel && message.payload) this.#wake(message.payload);
    });
    try {
      await client.connect();
      await client.query(`LISTEN "${this.#channel}"`);
    } catch (error) {
      await client.end().catch(() => {});
      throw error;
    }
    if (this.#closed) {
      await client.end().catch(() => {});
      return;
    }
    this.#client = client;
    this.#failures = 0;
    this.#generation += 1;
    this.#wakeAll();
    const waiting = [...this.#reconnected];
    this.#reconnected.clear();
    for (const wake of waiting) wake();
  }

  #lost(client: pg.Client): void {
    if (this.#client !== client) return;
    this.#client = undefined;
    client.end().catch(() => {});
    this.#reconnect();
  }

  #reconnect(): void {
    if (this.#closed || this.#timer) return;
    const delay = RECONNECT_MS[Math.min(this.#failures, RECONNECT_MS.length - 1)] ?? 2000;
    this.#failures += 1;
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      this.#connecting = this.#connect().catch(() => this.#reconnect());
    }, delay);
    // Those waiting re-read now (and find nothing new, or what the lost connection missed).
    this.#wakeAll();
  }

  /** How many times the LISTEN connection was established; read it before a query. */
  get generation(): number {
    return this.#generation;
  }

  /**
   * Resolves once the LISTEN connection was established after `generation` (at once when that
   * already happened), or after a second at most (a pooled connection can fail on its own while
   * this one stays up); rejects with `signal.reason` on abort. A reader whose query failed for
   * want of a connection waits here with the generation it read before the query, then reads again.
   */
  async reconnected(generation: number, signal?: AbortSignal): Promise<void> {
    signal?.throwIfAborted();
    if (this.#closed) throw new Error("fleet closed");
    if (this.#generation > generation) return;
    let wake!: () => void;
    const done = new Promise<void>((resolve) => (wake = resolve));
    this.#reconnected.add(wake);
    const onAbort = (): void => wake();
    signal?.addEventListener("abort", onAbort, { once: true });
    const fallback = setTimeout(wake, 1000);
    try {
      await done;
    } finally {
      clearTimeout(fallback);
      this.#reconnected.delete(wake);
      signal?.removeEventListener("abort", onAbort);
    }
    signal?.throwIfAborted();
    if (this.#closed) throw new Error("fleet closed");
  }

  /** A ticket for `topic`: take it before reading, wait on it after, and nothing is missed. */
  ticket(topic: string): Ticket {
    let wake!: () => void;
    let woken = false;
    const done = new Promise<void>((resolve) => {
      wake = () => {
        woken = true;
        resolve();
      };
    });
    let set = this.#waiting.get(topic);
    if (!set) this.#waiting.set(topic, (set = new Set()));
    set.add(wake);
    const drop = (): void => {
      const current = this.#waiting.get(topic);
      current?.delete(wake);
      if (current?.size === 0) this.#waiting.delete(topic);
    };
    if (this.#closed) wake();
    return {
      drop,
      wait: async (signal) => {
        if (woken) return drop();
        signal?.throwIfAborted();
        let onAbort: (() => void) | undefined;
        try {
          await Promise.race([
            done,
            new Promise<never>((_, reject) => {
              onAbort = () => reject(signal?.reason);
              signal?.addEventListener("abort", onAbort, { once: true });
            }),
          ]);
        } finally {
          if (onAbort) signal?.removeEventListener("abort", onAbort);
          drop();
        }
      },
    };
  }

  /**
   * Calls `onWake` on every notification of `topic` and whenever notifications may have been
   * missed (the connection was lost or re-established), until the returned function is called.
   */
  watch(topic: string, onWake: () => void): () => void {
    let set = this.#watchers.get(topic);
    if (!set) this.#watchers.set(topic, (set = new Set()));
    set.add(onWake);
    return () => {
      const current = this.#watchers.get(topic);
      current?.delete(onWake);
      if (current?.size === 0) this.#watchers.delete(topic);
    };
  }

  #wake(topic: string): void {
    for (const watcher of this.#watchers.get(topic) ?? []) watcher();
    const set = this.#waiting.get(topic);
    if (!set) return;
    this.#waiting.delete(topic);
    for (const wake of set) wake();
  }

  #wakeAll(): void {
    for (const set of this.#watchers.values()) for (const watcher of set) watcher();
    const all = [...this.#waiting.values()];
    this.#waiting.clear();
    for (const set of all) for (const wake of set) wake();
  }

  /** Stops listening and wakes every ticket. Idempotent. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = undefined;
    const client = this.#client;
    this.#client = undefined;
    this.#watchers.clear();
    this.#wakeAll();
    for (const wake of this.#reconnected) wake();
    this.#reconnected.clear();
    await this.#connecting?.catch(() => {});
    await client?.end().catch(() => {});
  }
}
