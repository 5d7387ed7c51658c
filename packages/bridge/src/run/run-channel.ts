import type { AgentEvent, ApprovalRequest, Result, Stream } from "adaptor";
import type { Frame } from "../protocols/frame.js";
import type { SseConnection } from "../sse/sse-connection.js";
import { ReplayBuffer } from "./replay-buffer.js";

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
  /** How long the run survives without a connected client, ms (0: cancelled at once). */
  readonly reconnectGraceMs: number;
  readonly onApproval: (request: ApprovalRequest) => void;
  readonly onSettled: (verdict: ChannelVerdict) => void;
}

/**
 * One run served over SSE: consumes the run's stream (whether or not a client is connected),
 * keeps the last frames for `Last-Event-ID` replay, writes them to the connected client with
 * backpressure, and cancels the run when no client has been connected for the grace period.
 */
export class RunChannel {
  readonly key: string;
  readonly #init: RunChannelInit;
  readonly #buffer: ReplayBuffer;
  #connection: SseConnection | undefined;
  #grace: NodeJS.Timeout | undefined;
  #finished = false;
  #wake: (() => void)[] = [];
  /** Settles when the stream was consumed to its end. */
  readonly done: Promise<void>;

  constructor(init: RunChannelInit) {
    this.key = init.key;
    this.#init = init;
    this.#buffer = new ReplayBuffer(init.replayFrames, init.replayBytes);
    this.done = this.#pump();
  }

  /** True once the run's last frame is buffered. */
  get finished(): boolean {
    return this.#finished;
  }

  /** Cancels the run (idempotent); the stream still ends with its `run-finished`. */
  cancel(reason: unknown): void {
    this.#init.stream.cancel(reason);
  }

  /**
   * Serves this run to `connection` from the frame after `afterId`, replacing any connected
   * client (whose response ends). Resolves when the connection ended.
   */
  async attach(connection: SseConnection, afterId: number): Promise<void> {
    const previous = this.#connection;
    this.#connection = connection;
    clearTimeout(this.#grace);
    this.#grace = undefined;
    previous?.end();
    connection.cursor = afterId;
    connection.onClose(() => {
      if (this.#connection !== connection) return;
      this.#connection = undefined;
      this.#notify();
      if (!this.#finished) this.#startGrace();
    });
    while (!connection.closed && this.#connection === connection) {
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
        if (connection.closed || this.#connection !== connection) break;
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

  #startGrace(): void {
    const reason = new DOMException("The client disconnected", "AbortError");
    if (this.#init.reconnectGraceMs <= 0) {
      this.cancel(reason);
      return;
    }
    this.#grace = setTimeout(() => {
      this.#grace = undefined;
      if (!this.#connection) this.cancel(reason);
    }, this.#init.reconnectGraceMs);
  }

  #notify(): void {
    const wake = this.#wake;
    this.#wake = [];
    for (const resolve of wake) resolve();
  }

  /** Waits until the connected client (if any) wrote everything buffered. */
  async #caughtUp(): Promise<void> {
    for (;;) {
      const connection = this.#connection;
      if (!connection || connection.closed || connection.cursor >= this.#buffer.headId) return;
      await new Promise<void>((resolve) => this.#wake.push(resolve));
    }
  }

  async #pump(): Promise<void> {
    const stream = this.#init.stream;
    let verdict: ChannelVerdict | undefined;
    try {
      for await (const event of stream) {
        if (event.type === "approval-request") this.#init.onApproval(event.request);
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
