import type { ServerResponse } from "node:http";

/**
 * Waits until `res` takes more writes: at once while its buffer is under its high-water mark
 * (`writableNeedDrain` false, i.e. the last `write` returned true), else until the socket drains
 * it. A response that does not drain within `timeoutMs` is destroyed, which drops a client that
 * stopped reading; the promise resolves then too, as it does when the response closes: it never
 * rejects. Check `res.destroyed` after it to know whether the connection is still there.
 * @param res the response being written, as Node's `http` server hands it over.
 * @param timeoutMs longest wait for the socket to drain, ms.
 */
export function writableOrDropped(res: ServerResponse, timeoutMs: number): Promise<void> {
  if (!res.writableNeedDrain || res.destroyed) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      done();
      res.destroy();
    }, timeoutMs);
    const done = (): void => {
      clearTimeout(timer);
      res.off("drain", done);
      res.off("close", done);
      resolve();
    };
    res.once("drain", done);
    res.once("close", done);
  });
}
