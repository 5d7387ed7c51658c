import type { AgentEvent, ApprovalRequest, Result, Stream } from "adaptor";
import { HttpError } from "../http/http-error.js";
import type { Frame } from "../protocols/frame.js";
import type { SseConnection } from "../sse/sse-connection.js";
import { ReplayBuffer } from "./replay-buffer.js";

/**
 * Events the pump encodes before it lets the event loop turn: a backlog already buffered would
 * otherwise be drained in one chain of microtasks, holding every other client, timer and approval.
 */
const PUMP_BATCH = 64;

/** The verdict of a run as the channel saw it. */
export type ChannelVerdict = { readonly ok: true; readonly result: Result } | { readonly ok: false; readonly error: unknown };

/** How a channel turns events into frames, and what it tells its owner. */
export interface RunChannelInit {
  /** The key clients reconnect with (`runs/<key>/events`). */
  readonly key: string;
  readonly stream: Stream;
  /** Encodes one event (the verdict is given with `run-finished`). */
  readonly encode: (event: AgentEvent, verdict?: ChannelVerdict) => Frame[];
  /** Encodes the notice of frames lost to eviction, sent to a reconnecting client. */
  readonly encodeGap: (gap: { firstId: number; lastId: number }) => string;
  readonly replayFrames: number;
  readonly replayBytes: number;
  /** How long the run survives without a connected client, ms (0: cancelled at once); extended while an approval of the run is pending. */
  readonly reconnectGraceMs: number;
  /** Clients that may follow the run at once. */
  readonly maxWatchers: number;
  readonly onApproval: (request: ApprovalRequest) => void;
  readonly onSettled: (verdict: ChannelVerdict) => void;
}

/**
 * One run served over SSE: consumes the run's stream (whether or not a client is connected),
 * keeps the last frames for `Last-Event-ID` replay, writes them to every connected client (up to
 * `maxWatchers`, each from its own cursor) with backpressure, and cancels the run when no client
 * has been connected for the grace period (a run waiting on one of its approvals waits for that
 * approval's own deadline instead).
 */
export class RunChannel {
  readonly key: string;
  readonly #init: RunChannelInit;
  readonly #buffer: ReplayBuffer;
  readonly #connections = new Set<SseConnection>();
  #grace: NodeJS.Timeout | undefined;
  #finished = false;
  #wake: (() => void)[] = [];
  /** Approvals this run asked that may still be pending. */
  readonly #asked = new Set<ApprovalRequest>();
  /** Settles when the stream was consumed to its end. */
  readonly done: Promise<void>;

  constructor(init: RunChannelInit) {
    this.key = init.key;
    this.#init = init;
    this.#buffer = new ReplayBuffer(init.replayFrames, init.replayBytes);
    this.done = this.#pump();
  }

  /** Id of the run's newest frame so far, 0 before the first. */
  get headId(): number {
    return this.#buffer.headId;
  }

  /** True once the run's last frame is buffered. */
  get finished(): boolean {
    return this.#finished;
  }

  /** Interrupts the running turn, keeping the conversation (see `Stream.interrupt`). */
  interrupt(): Promise<boolean> {
    return this.#init.stream.interrupt();
  }

  /** Cancels the run (idempotent); the stream still ends with its `run-finished`. */
  cancel(reason: unknown): void {
    this.#init.stream.cancel(reason);
  }

  /**
   * Checks that one more client may follow the run, before its response is opened.
   * @throws HttpError 429 `too_many_watchers` when `maxWatchers` clients follow it already.
   */
  admit(): void {
    if (this.#connections.size >= this.#init.maxWatchers)
      throw new HttpError(
        429,
        "too_many_watchers",
        `run ${this.key} is followed by ${this.#connections.size} clients already (the most this bridge allows); close one first`,
      );
  }

  /**
   * Serves this run to `connection` from the frame after `afterId`, beside any other connected
   * client (see {@link admit}). Resolves when the connection ended.
   */
  async attach(connection: SseConnection, afterId: number): Promise<void> {
    this.admit();
    this.#connections.add(connection);
    clearTimeout(this.#grace);
    this.#grace = undefined;
    connection.cursor = afterId;
    connection.onClose(() => {
      if (!this.#connections.delete(connection)) return;
      this.#notify();
      if (!this.#finished && this.#connections.size === 0) this.#startGrace();
    });
    while (!connection.closed) {
      const slice = this.#buffer.after(connection.cursor);
      if (slice.gap) {
        await connection.write(this.#init.encodeGap(slice.gap));
        connection.cursor = slice.gap.lastId;
      }
      if (slice.frames.length === 0) {
        if (this.#finished) {
          connection.end();
          break;
        }
        await new Promise<void>((resolve) => this.#wake.push(resolve));
        continue;
      }
      for (const frame of slice.frames) {
        if (connection.closed) break;
        await connection.write(frame.text);
        connection.cursor = frame.id;
        this.#notify();
      }
    }
  }

  /** Stops the grace timer (the owner forgets the run); a connected client still reads to the end. */
  dispose(): void {
    clearTimeout(this.#grace);
    this.#grace = undefined;
  }

  /**
   * An approval of this run was answered: a run without a client gets a fresh grace from now, so
   * the person who answered (from a page that lost its stream) has time to reconnect.
   */
  approvalAnswered(): void {
    if (this.#connections.size > 0 || this.#finished || this.#grace === undefined) return;
    clearTimeout(this.#grace);
    this.#startGrace();
  }

  #startGrace(): void {
    const reason = new DOMException("The client disconnected", "AbortError");
    if (this.#init.reconnectGraceMs <= 0) {
      this.cancel(reason);
      return;
    }
    const expire = (): void => {
      this.#grace = undefined;
      if (this.#connections.size > 0 || this.#finished) return;
      // A run waiting on a person lives on while the question is open: the approval's own
      // deadline (policy.approvals.timeoutMs) bounds the wait, not the reconnect grace.
      if (this.#waitingOnPerson()) {
        this.#grace = setTimeout(expire, this.#init.reconnectGraceMs);
        return;
      }
      this.cancel(reason);
    };
    this.#grace = setTimeout(expire, this.#init.reconnectGraceMs);
  }

  /** True while an approval this run asked is still pending (resolved ones are forgotten). */
  #waitingOnPerson(): boolean {
    for (const request of this.#asked) if (request.status !== "pending") this.#asked.delete(request);
    return this.#asked.size > 0;
  }

  #notify(): void {
    const wake = this.#wake;
    this.#wake = [];
    for (const resolve of wake) resolve();
  }

  /** Waits until every connected client wrote everything buffered (a slow one is dropped after its write timeout). */
  async #caughtUp(): Promise<void> {
    for (;;) {
      let behind = false;
      for (const connection of this.#connections) if (!connection.closed && connection.cursor < this.#buffer.headId) behind = true;
      if (!behind) return;
      await new Promise<void>((resolve) => this.#wake.push(resolve));
    }
  }

  async #pump(): Promise<void> {
    const stream = this.#init.stream;
    let verdict: ChannelVerdict | undefined;
    let batch = 0;
    try {
      for await (const event of stream) {
        if (++batch >= PUMP_BATCH) {
          batch = 0;
          await new Promise<void>((resolve) => setImmediate(resolve));
        }
        if (event.type === "approval-request") {
          this.#asked.add(event.request);
          this.#init.onApproval(event.request);
        }
        if (event.type === "run-finished") {
          verdict = await stream.result().then(
            (result): ChannelVerdict => ({ ok: true, result }),
            (error: unknown): ChannelVerdict => ({ ok: false, error }),
          );
        }
        for (const frame of this.#init.encode(event, verdict)) this.#buffer.push(frame);
        this.#notify();
        await this.#caughtUp();
      }
    } finally {
      verdict ??= await stream.result().then(
        (result): ChannelVerdict => ({ ok: true, result }),
        (error: unknown): ChannelVerdict => ({ ok: false, error }),
      );
      this.#finished = true;
      clearTimeout(this.#grace);
      this.#grace = undefined;
      this.#notify();
      this.#init.onSettled(verdict);
    }
  }
}
