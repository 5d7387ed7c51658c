import { AsyncLocalStorage } from "node:async_hooks";
import type { ServerResponse } from "node:http";
import { writableOrDropped } from "adaptor";
import type express from "express";
import { timerOption } from "./body-deadline.js";

/** Default of `A2AServerOptions.writeTimeoutMs`: 30 s, as the bridge's. */
export const DEFAULT_WRITE_TIMEOUT_MS = 30_000;

/**
 * The `writeTimeoutMs` a server runs with: the option or {@link DEFAULT_WRITE_TIMEOUT_MS}.
 * @throws InvalidOptionError (field `writeTimeoutMs`) for a value that is not a number of ms in (0, 2^31-1].
 */
export const writeTimeoutOf = (value: unknown): number => timerOption(value, "writeTimeoutMs", DEFAULT_WRITE_TIMEOUT_MS);

/** The response a request's event stream goes to, and the pacing of its server. */
interface Outlet {
  readonly res: ServerResponse;
  readonly pacing: StreamPacing;
}

const outlets = new AsyncLocalStorage<Outlet>();

/**
 * Backpressure for a server's SSE streams (`SendStreamingMessage`, `SubscribeToTask`; JSON-RPC
 * and HTTP+JSON). The SDK's Express handlers write every event of a stream as it comes; paced
 * ({@link paced}), a stream hands its next event to the writer only once the response's buffer
 * is under its high-water mark, so a client that reads slowly holds at most that and one event in
 * the socket. A response that does not drain within `writeTimeoutMs` is destroyed (the client is
 * dropped). The task is not slowed by its clients: its events are consumed, and so recorded in
 * the task store, as fast as they come; a stream's events not yet written wait in its own queue,
 * which a dropped client's stream empties and stops filling.
 */
export class StreamPacing {
  readonly writeTimeoutMs: number;
  /** Responses waiting for their socket to drain. */
  readonly #waiting = new Set<ServerResponse>();

  constructor(writeTimeoutMs: number) {
    this.writeTimeoutMs = writeTimeoutMs;
  }

  /** Express middleware: the streams of the requests after it are paced on their response. */
  readonly middleware: express.RequestHandler = (_req, res, next) => {
    outlets.run({ res, pacing: this }, next);
  };

  /** Drops every connection still waiting for its socket to drain, so no write timer outlives the server. */
  close(): void {
    for (const res of this.#waiting) res.destroy();
    this.#waiting.clear();
  }

  /** Resolves once `res` takes the next event, or was dropped (see {@link writableOrDropped}). */
  async writable(res: ServerResponse): Promise<void> {
    if (!res.writableNeedDrain) return;
    this.#waiting.add(res);
    try {
      await writableOrDropped(res, this.writeTimeoutMs);
    } finally {
      this.#waiting.delete(res);
    }
  }
}

/** True once nothing more can be written to `res` (destroyed, ended, or its client gone). */
function gone(res: ServerResponse): boolean {
  return res.destroyed || res.writableEnded;
}

/**
 * `events` paced on the response of the request being handled (see {@link StreamPacing}):
 * consumed to their end whatever the client does (the SDK records a task's events as its
 * stream is pulled), handed on one at a time while the response takes them, and no longer once
 * it is gone. Outside a paced request, `events` as they are.
 */
export async function* paced<T>(events: AsyncGenerator<T, void, undefined>): AsyncGenerator<T, void, undefined> {
  const outlet = outlets.getStore();
  if (!outlet) return yield* events;
  const { res, pacing } = outlet;
  const queue: T[] = [];
  let ended = false;
  let failure: { readonly error: unknown } | undefined;
  let wake: (() => void) | undefined;
  const signal = (): void => {
    const resolve = wake;
    wake = undefined;
    resolve?.();
  };
  void (async () => {
    try {
      for await (const event of events) {
        if (gone(res)) continue;
        queue.push(event);
        signal();
      }
    } catch (error) {
      failure = { error };
    } finally {
      ended = true;
      signal();
    }
  })();
  try {
    for (;;) {
      if (queue.length > 0) {
        await pacing.writable(res);
        if (gone(res)) return;
        yield queue.shift()!;
        continue;
      }
      if (failure) throw failure.error;
      if (ended) return;
      await new Promise<void>((resolve) => (wake = resolve));
    }
  } finally {
    // The client is gone or done: what is left of its stream is consumed without being kept.
    queue.length = 0;
  }
}
