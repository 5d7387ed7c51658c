import type { ServerResponse } from "node:http";
import { writableOrDropped } from "adaptor";

/** Settings of one SSE response. */
export interface SseConnectionSettings {
  /** Interval of `: ping` comments, ms. */
  readonly pingIntervalMs: number;
  /** How long one write may wait for the socket to drain before the connection is dropped, ms. */
  readonly writeTimeoutMs: number;
}

/**
 * One SSE response: writes frames with backpressure (a write the socket does not take within
 * `writeTimeoutMs` destroys the connection), sends keep-alive pings, and reports its end once.
 */
export class SseConnection {
  readonly #res: ServerResponse;
  readonly #settings: SseConnectionSettings;
  #ping: NodeJS.Timeout | undefined;
  #closed = false;
  readonly #onClose: (() => void)[] = [];
  /** Id of the last frame written. */
  cursor = 0;

  constructor(res: ServerResponse, settings: SseConnectionSettings) {
    this.#res = res;
    this.#settings = settings;
    res.on("close", () => this.#finish());
    res.on("error", () => this.#finish());
    // The client may have gone while the request was read or the runner picked: no close event comes then.
    if (res.destroyed || res.writableEnded || !res.socket || res.socket.destroyed) this.#closed = true;
  }

  /** True once the response ended or the client went away. */
  get closed(): boolean {
    return this.#closed;
  }

  /** Calls `listener` once when the connection ends (at once if it already has). */
  onClose(listener: () => void): void {
    if (this.#closed) listener();
    else this.#onClose.push(listener);
  }

  /** Sends the status line and headers, and starts the pings. */
  open(headers: Record<string, string>): void {
    if (this.#closed) return;
    this.#res.writeHead(200, {
      "content-type": "text/event-stream; charset=utf-8",
      "cache-control": "no-cache, no-transform",
      connection: "keep-alive",
      "x-accel-buffering": "no",
      ...headers,
    });
    this.#res.flushHeaders();
    this.#res.socket?.setNoDelay(true);
    this.#ping = setInterval(() => {
      if (!this.#res.writableNeedDrain) void this.write(": ping\n\n");
    }, this.#settings.pingIntervalMs);
  }

  /** Writes `text`; resolves once the socket took it (or the connection ended). */
  write(text: string): Promise<void> {
    if (this.#closed) return Promise.resolve();
    let accepted: boolean;
    try {
      accepted = this.#res.write(text);
    } catch {
      this.destroy();
      return Promise.resolve();
    }
    if (accepted) return Promise.resolve();
    return writableOrDropped(this.#res, this.#settings.writeTimeoutMs);
  }

  /** Ends the response normally. */
  end(): void {
    if (this.#closed) return;
    this.#stopTimers();
    this.#res.end();
  }

  /** Drops the connection at once. */
  destroy(): void {
    this.#res.destroy();
    this.#finish();
  }

  #stopTimers(): void {
    clearInterval(this.#ping);
    this.#ping = undefined;
  }

  #finish(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#stopTimers();
    for (const listener of this.#onClose.splice(0)) listener();
  }
}
