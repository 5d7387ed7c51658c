import PQueue from "p-queue";
import { DriverError, ErrCode } from "@adaptor/errors";
import type { DriverSink } from "../../spi/driver.js";
import type { DriverRequest } from "../../spi/request.js";
import { WarmPool } from "../../process/warm-pool.js";
import { processGone } from "../process-gone/process-gone.js";

/** Default time in ms a parked or pre-warmed process may wait before it is ended (five minutes). */
export const DEFAULT_IDLE_MS = 5 * 60_000;

/** Default number of processes a {@link ProcessPool} spawns at once. */
export const DEFAULT_MAX_CONCURRENT_SPAWNS = 4;

/** Something that can be ended: what a {@link ProcessPool} tracks while it serves a run. */
export interface Closable {
  /** Ends it and releases what it holds. Idempotent; never rejects. */
  close(): Promise<void>;
}

/**
 * A live CLI process (usually a driver's session object around a `CliProcess`) that a
 * {@link ProcessPool} can park between the turns of its conversation and hand to the next one.
 */
export interface PooledProcess extends Closable {
  /** OS process id, reported in the `process reused` notice. */
  readonly pid: number;
  /** The {@link launchSignature} it was launched with: reused only for a turn with an equal one. */
  readonly signature: string;
  /**
   * Lets the host exit while the process is parked or pre-warmed, as Node's http Agent lets it exit
   * with free sockets: `CliProcess.unref()` on its process. A host that exits still ends it.
   */
  unref(): void;
  /** Holds the host again when a turn takes the process: `CliProcess.ref()` on its process. */
  ref(): void;
  /** True while it can take another turn (alive, not closed, its conversation still loaded). */
  readonly usable: boolean;
  /**
   * Where its conversation stands: the id of the last message or turn it completed healthily
   * (what a checkpoint records). A turn continuing from a checkpoint takes it only when this is
   * exactly the checkpoint's; undefined when unknown.
   */
  readonly version: string | undefined;
}

/** Options of a {@link ProcessPool}; a driver config (`CommonDriverConfig`) is one. */
export interface ProcessPoolOptions {
  /** ms a parked or pre-warmed process may wait before it is ended. Default {@link DEFAULT_IDLE_MS}. */
  readonly idleMs?: number | undefined;
  /** Processes spawned at once through {@link ProcessPool.spawn}; more wait in order. Default 4. */
  readonly maxConcurrentSpawns?: number | undefined;
}

/**
 * Runs before a parked process is ended, whatever ends it ({@link ProcessPool.evict}, the idle
 * timeout, {@link ProcessPool.close}, a turn it cannot serve): `key` is its conversation id. A CLI
 * may write to its session files as it exits; a driver removes what must not be written through
 * here (links planted in their place). A rejection is ignored: the process is ended all the same.
 */
export type BeforeEndParked<P> = (key: string, process: P) => Promise<void>;

/** The turn {@link ProcessPool.acquire} looks for a process for. */
export interface PoolTurn {
  /** The run's request: its `session` (resume id, fork) and `reuseProcess` decide what may serve it. */
  readonly request: Pick<DriverRequest, "session" | "reuseProcess">;
  /** The turn's {@link launchSignature}. */
  readonly signature: string;
  /** The version (last message or turn id) of the checkpoint it continues from, if the driver knows it. */
  readonly version?: string | undefined;
  /** Where the `process reused` notice goes. */
  readonly sink: DriverSink;
}

/**
 * The processes of one driver: those parked between the turns of a conversation (thread reuse),
 * those pre-warmed for a first turn, and those serving a run right now, plus the limit on
 * concurrent spawns. It owns the rules every driver with process reuse needs:
 *
 * - **single writer**: a parked process is handed to exactly one turn, and a turn of a
 *   conversation that cannot take it (fresh process asked for, another signature) ends it first,
 *   so two processes never write one conversation;
 * - **reuse or replace**: a parked process serves the turn only when it is `usable` (and, by the OS,
 *   still running: one that died while parked may not have been reaped yet), launched with
 *   the same signature and at exactly the checkpoint's version; otherwise it is ended and the
 *   driver spawns;
 * - **idle eviction**: parked and pre-warmed processes end after `idleMs`; neither they nor their timers
 *   keep Node alive (a host that exits without `close()` still ends them), a turn that takes one refs it again;
 * - `close()` ends everything, live processes included.
 *
 * Conversations are keyed by the CLI's own id (a session or thread id: `request.session.resumeId`
 * on the next turn).
 */
export class ProcessPool<P extends PooledProcess> {
  readonly #idleMs: number;
  readonly #parked = new Map<string, { process: P; timer: NodeJS.Timeout }>();
  readonly #warm: WarmPool<P>;
  readonly #live = new Set<Closable>();
  readonly #spawns: PQueue;
  readonly #beforeEnd: BeforeEndParked<P> | undefined;
  #closed = false;

  /** @param beforeEnd - see {@link BeforeEndParked}. */
  constructor(options: ProcessPoolOptions = {}, beforeEnd?: BeforeEndParked<P>) {
    this.#beforeEnd = beforeEnd;
    this.#idleMs = options.idleMs ?? DEFAULT_IDLE_MS;
    this.#warm = new WarmPool<P>(this.#idleMs, (process) => process.usable && !processGone(process.pid));
    this.#spawns = new PQueue({ concurrency: options.maxConcurrentSpawns ?? DEFAULT_MAX_CONCURRENT_SPAWNS });
  }

  /** Number of processes parked between turns. */
  get parkedCount(): number {
    return this.#parked.size;
  }

  /** Number of pre-warmed processes waiting for a first turn. */
  get prewarmedCount(): number {
    return this.#warm.size;
  }

  /** Runs `start` (a spawn) when fewer than `maxConcurrentSpawns` others are running; resolves with its result. */
  spawn<T>(start: () => Promise<T>): Promise<T> {
    return this.#spawns.add(start);
  }

  /**
   * The process that may serve `turn`, or undefined (spawn one):
   * - a turn continuing a conversation with `reuseProcess` (not a fork) takes its parked process
   *   when usable, launched alike and at `turn.version`; one that does not qualify is ended;
   * - a turn continuing a conversation in a fresh process first ends the parked one (single writer);
   * - a fresh conversation takes a pre-warmed process of the same signature.
   * A taken process is announced on `turn.sink` as a `notice` `process reused` (`data.pid`, and
   * `prewarmed: true` for a pre-warmed one).
   */
  async acquire(turn: PoolTurn): Promise<P | undefined> {
    const { session, reuseProcess } = turn.request;
    let process: P | undefined;
    let prewarmed = false;
    if (session && reuseProcess === true && !session.fork) process = await this.#take(session.resumeId, turn.signature, turn.version);
    else if (session && !session.fork) await this.evict(session.resumeId);
    if (!session) {
      process = await this.#warm.take(turn.signature);
      prewarmed = process !== undefined;
    }
    if (process) {
      turn.sink.emit({
        type: "notice",
        kind: "lifecycle",
        message: "process reused",
        data: { pid: process.pid, ...(prewarmed ? { prewarmed: true } : {}) },
      });
    }
    return process;
  }

  /**
   * Parks `process` under its conversation id until a turn takes it or it idles for `idleMs`. A
   * different process parked under the same id is ended (single writer). While parked it does not
   * keep the host alive (`unref()`); the turn that takes it refs it again.
   */
  park(key: string, process: P): void {
    const previous = this.#parked.get(key);
    if (previous && previous.process !== process) void this.evict(key);
    const timer = setTimeout(() => void this.evict(key), this.#idleMs);
    timer.unref();
    process.unref();
    this.#parked.set(key, { process, timer });
  }

  /**
   * Whether a process is parked under `key` and still running (`usable`, and not gone by the OS):
   * the one a reusing turn of that conversation would be offered. Neither takes nor ends it.
   */
  holdsParked(key: string): boolean {
    const entry = this.#parked.get(key);
    return entry !== undefined && entry.process.usable && !processGone(entry.process.pid);
  }

  /**
   * Ends the process parked under `key`, if any (another process is about to write to that
   * conversation, its thread was deleted, or it is known not to be reusable); with `only`, only
   * when that is the process parked there.
   */
  async evict(key: string, only?: P): Promise<void> {
    const entry = this.#parked.get(key);
    if (!entry || (only !== undefined && entry.process !== only)) return;
    this.#parked.delete(key);
    clearTimeout(entry.timer);
    await this.#end(key, entry.process);
  }

  /**
   * Pre-warms one process for a future first turn with `signature`: `start()` launches it (call
   * {@link spawn} inside), `ready(process)` brings it to where a turn can start (a handshake). The
   * process is tracked as live meanwhile, so {@link close} ends it; when `ready` throws, or the
   * process is no longer usable after it, the process is ended and the error (or `signal.reason`,
   * else "`<device>` ended before it was ready") is thrown. Otherwise it waits for a run
   * ({@link acquire}) for at most `idleMs`. `start` may also return a process that already served a
   * run, to be made ready for another first turn (a driver whose process can host several
   * conversations). After {@link close} the process is ended and a DriverError `SERVICE_UNAVAILABLE` thrown.
   */
  async prewarm(
    signature: string,
    start: () => Promise<P>,
    ready: (process: P) => Promise<void>,
    signal: AbortSignal,
    device: string,
  ): Promise<void> {
    const process = await start();
    const untrack = this.track(process);
    try {
      await ready(process);
    } catch (error) {
      await process.close();
      throw error;
    } finally {
      untrack();
    }
    if (this.#closed) {
      await process.close();
      throw new DriverError({ op: "prewarm", device, code: ErrCode.ServiceUnavailable, cause: "the driver was closed" });
    }
    if (!process.usable) {
      await process.close();
      throw signal.reason ?? new Error(`${device} ended before it was ready`);
    }
    this.#warm.add(signature, process);
  }

  /** Tracks `process` as live (serving a run), so {@link close} ends it; the returned function stops tracking. */
  track(process: Closable): () => void {
    this.#live.add(process);
    return () => void this.#live.delete(process);
  }

  /** Runs `serve` with `process` tracked as live (see {@link track}). */
  async serve<T>(process: Closable, serve: () => Promise<T>): Promise<T> {
    const untrack = this.track(process);
    try {
      return await serve();
    } finally {
      untrack();
    }
  }

  /** Ends every live, parked and pre-warmed process. Idempotent. */
  async close(): Promise<void> {
    this.#closed = true;
    await Promise.all([...this.#live].map((process) => process.close()));
    await Promise.all([...this.#parked.keys()].map((key) => this.evict(key)));
    await this.#warm.close();
  }

  async #take(key: string, signature: string, version: string | undefined): Promise<P | undefined> {
    const entry = this.#parked.get(key);
    if (!entry) return undefined;
    this.#parked.delete(key);
    clearTimeout(entry.timer);
    const { process } = entry;
    // A process that died while parked may not have been reaped yet (its exit not seen): ask the OS.
    if (
      process.usable &&
      !processGone(process.pid) &&
      process.signature === signature &&
      (version === undefined || process.version === version)
    ) {
      process.ref();
      return process;
    }
    await this.#end(key, process);
    return undefined;
  }

  /** Ends the parked `process` of conversation `key`, after the driver's {@link BeforeEndParked}. */
  async #end(key: string, process: P): Promise<void> {
    try {
      await this.#beforeEnd?.(key, process);
    } catch {
      // Ended all the same.
    }
    await process.close();
  }
}
