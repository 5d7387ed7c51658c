import { randomInt } from "node:crypto";
import { EventEmitter, once } from "node:events";
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
  /** Followers' wake-ups: one event per session key (`key:<session key>`), emitted on its notification. */
  readonly #wakeUps = new EventEmitter().setMaxListeners(0);
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
      if (message.channel === this.#channel && message.payload) this.#wakeUps.emit(`key:${message.payload}`);
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

  /** A ticket for `key`: a `once` listener of its notifications, registered now. */
  ticket(key: string): Ticket {
    const dropped = new AbortController();
    // Registered at once, so nothing is missed between taking the ticket and waiting on it.
    const registered = this.#closed ? Promise.resolve() : once(this.#wakeUps, `key:${key}`, { signal: dropped.signal }).then(() => {});
    registered.catch(() => {});
    return {
      drop: () => dropped.abort(),
      wait: async (signal) => {
        signal?.throwIfAborted();
        const onAbort = (): void => dropped.abort();
        signal?.addEventListener("abort", onAbort, { once: true });
        try {
          await registered.catch(() => {});
        } finally {
          signal?.removeEventListener("abort", onAbort);
          dropped.abort();
        }
        signal?.throwIfAborted();
      },
    };
  }

  #wakeAll(): void {
    // Only the keys' events (named `key:<session key>`): `once` also listens for "error", never emitted.
    for (const name of this.#wakeUps.eventNames()) if (typeof name === "string" && name.startsWith("key:")) this.#wakeUps.emit(name);
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
