import { randomInt } from "node:crypto";
import pg from "pg";
import { backendError } from "./backend-error.js";

/** A pending wake-up of one session key: take it before reading, wait on it after, and no append is missed. */
export interface Ticket {
  /** Resolves on the key's next notification, a lost connection, or close; rejects with `signal.reason`. */
  wait(signal?: AbortSignal): Promise<void>;
  /** Drops the ticket without waiting. */
  drop(): void;
}

/** The advisory lock that marks a backend object's writers alive, as two non-negative 31-bit halves. */
export interface PresenceLock {
  readonly hi: number;
  readonly lo: number;
}

const RETRY_MS = [100, 250, 500, 1000, 2000];

/**
 * A backend object's one dedicated connection (not from the pool). It holds the session-level
 * advisory lock that marks the object's writers alive (a writer's row names it; the lock ends with
 * the connection, so a dead process's keys are free at once), and LISTENs on the schema's channel,
 * waking the tickets of the key each notification names. Notifications are only wake-ups: a
 * follower reads the table after waking, so one lost while the connection was down costs nothing
 * (every ticket is woken when the connection is lost).
 */
export class SessionChannel {
  readonly #config: pg.ClientConfig;
  readonly #channel: string;
  readonly #waiting = new Map<string, Set<() => void>>();
  #lock: PresenceLock = { hi: randomInt(2 ** 31), lo: randomInt(2 ** 31) };
  #client: pg.Client | undefined;
  #connecting: Promise<PresenceLock> | undefined;
  #closed = false;

  constructor(config: pg.ClientConfig, channel: string) {
    this.#config = config;
    this.#channel = channel;
  }

  /**
   * Connects if needed (a few tries over about 4 s) and resolves with the presence lock the
   * connection holds.
   * @throws DriverError (`SERVICE_UNAVAILABLE` …) when the server cannot be reached.
   */
  ready(signal?: AbortSignal): Promise<PresenceLock> {
    if (this.#client) return Promise.resolve(this.#lock);
    this.#connecting ??= this.#connectWithRetry(signal).finally(() => (this.#connecting = undefined));
    return this.#connecting;
  }

  async #connectWithRetry(signal: AbortSignal | undefined): Promise<PresenceLock> {
    for (let attempt = 0; ; attempt++) {
      try {
        return await this.#connect();
      } catch (error) {
        const delay = RETRY_MS[attempt];
        if (delay === undefined || this.#closed) throw backendError("listen", error);
        await new Promise((resolve) => setTimeout(resolve, delay));
        signal?.throwIfAborted();
      }
    }
  }

  async #connect(): Promise<PresenceLock> {
    const client = new pg.Client(this.#config);
    client.on("error", () => this.#lost(client));
    client.on("end", () => this.#lost(client));
    client.on("notification", (message) => {
      if (message.channel === this.#channel && message.payload) this.#wake(message.payload);
    });
    try {
      await client.connect();
      // The same lock again after a reconnect keeps this object's writers alive; if the old
      // connection still holds it on the server (not yet seen gone), take a new one: the writers'
      // keys then look free, and a writer that loses its key to another is fenced by its token.
      const { rows } = await client.query<{ ok: boolean }>("SELECT pg_try_advisory_lock($1, $2) AS ok", [this.#lock.hi, this.#lock.lo]);
      if (!rows[0]?.ok) {
        this.#lock = { hi: randomInt(2 ** 31), lo: randomInt(2 ** 31) };
        await client.query("SELECT pg_advisory_lock($1, $2)", [this.#lock.hi, this.#lock.lo]);
      }
      await client.query(`LISTEN "${this.#channel}"`);
    } catch (error) {
      await client.end().catch(() => {});
      throw error;
    }
    if (this.#closed) {
      await client.end().catch(() => {});
      throw new Error("closed");
    }
    this.#client = client;
    // Followers waiting while there was no connection re-read now.
    this.#wakeAll();
    return this.#lock;
  }

  #lost(client: pg.Client): void {
    if (this.#client !== client) return;
    this.#client = undefined;
    client.end().catch(() => {});
    this.#wakeAll();
  }

  /** A ticket for `key`. */
  ticket(key: string): Ticket {
    let wake!: () => void;
    let woken = false;
    const done = new Promise<void>((resolve) => {
      wake = () => {
        woken = true;
        resolve();
      };
    });
    let set = this.#waiting.get(key);
    if (!set) this.#waiting.set(key, (set = new Set()));
    set.add(wake);
    const drop = (): void => {
      const current = this.#waiting.get(key);
      current?.delete(wake);
      if (current?.size === 0) this.#waiting.delete(key);
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

  #wake(key: string): void {
    const set = this.#waiting.get(key);
    if (!set) return;
    this.#waiting.delete(key);
    for (const wake of set) wake();
  }

  #wakeAll(): void {
    const all = [...this.#waiting.values()];
    this.#waiting.clear();
    for (const set of all) for (const wake of set) wake();
  }

  /** Ends the connection (releasing the presence lock) and wakes every ticket. Idempotent. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.#connecting?.catch(() => {});
    const client = this.#client;
    this.#client = undefined;
    this.#wakeAll();
    await client?.end().catch(() => {});
  }
}
