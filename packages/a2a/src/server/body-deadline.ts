import { optionChecks } from "@adaptor/errors";
import { announcesBody } from "adaptor";
import type express from "express";

/** Default of `A2AServerOptions.bodyTimeoutMs`: 30 s, as the bridge's. */
export const DEFAULT_BODY_TIMEOUT_MS = 30_000;

const checkTimerMs = optionChecks.timerMs({ positive: true });

/**
 * A server's timer option, in ms: `value`, or `fallback` when it is not set.
 * @throws InvalidOptionError (field `field`) for a value that is not a number of ms in (0, 2^31-1].
 */
export function timerOption(value: unknown, field: string, fallback: number): number {
  if (value === undefined) return fallback;
  checkTimerMs(value, field, "a2a server options");
  return value as number;
}

/**
 * The `bodyTimeoutMs` a server runs with: the option or {@link DEFAULT_BODY_TIMEOUT_MS}.
 * @throws InvalidOptionError (field `bodyTimeoutMs`) for a value that is not a number of ms in (0, 2^31-1].
 */
export const bodyTimeoutOf = (value: unknown): number => timerOption(value, "bodyTimeoutMs", DEFAULT_BODY_TIMEOUT_MS);

/**
 * Express middleware bounding how long a request body may take to arrive: one still incomplete
 * after `timeoutMs` (a client trickling it byte by byte) gets HTTP 408 `{ error: "request timeout" }`
 * with `connection: close`, and the connection is closed after the answer (the rest is not read).
 * A response that is already under way when the deadline passes is cut instead.
 */
export function bodyDeadline(timeoutMs: number): express.RequestHandler {
  return (req, res, next) => {
    if (req.complete || !announcesBody(req)) {
      next();
      return;
    }
    const timer = setTimeout(() => {
      done();
      if (req.complete) return;
      if (res.headersSent) {
        res.destroy();
        return;
      }
      res.once("finish", () => req.socket.destroy());
      res.status(408).set("connection", "close").json({ error: "request timeout" });
    }, timeoutMs);
    const done = (): void => {
      clearTimeout(timer);
      req.off("end", done);
      req.off("close", done);
      res.off("close", done);
    };
    req.once("end", done);
    req.once("close", done);
    res.once("close", done);
    next();
  };
}
