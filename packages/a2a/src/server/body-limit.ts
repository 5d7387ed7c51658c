import { announcesBody } from "adaptor";
import type express from "express";

/**
 * The largest request body the server reads, in bytes: the limit of the SDK's JSON parser (Express
 * `json()`, 100 kB).
 */
export const MAX_REQUEST_BODY_BYTES = 100 * 1024;

/** Answers 413 `{ error: "request body too large" }` with `connection: close`, and closes the connection once it is written. */
function refuse(req: express.Request, res: express.Response): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  res.once("finish", () => req.socket.destroy());
  res.status(413).set("connection", "close").json({ error: "request body too large" });
}

/**
 * Express middleware refusing at once a request whose `Content-Length` is over `maxBytes` (the
 * SDK's parser would read, and drop, the whole body before it refuses).
 */
export function declaredBodyLimit(maxBytes: number): express.RequestHandler {
  return (req, res, next) => {
    const declared = Number(req.headers["content-length"]);
    if (!req.complete && Number.isFinite(declared) && declared > maxBytes) refuse(req, res);
    else next();
  };
}

/**
 * Express middleware refusing a body (chunked, or longer than it said) as soon as more than
 * `maxBytes` of it arrived, rather than after the client stops sending it: it counts the body as
 * it is read. Mount it right before the handlers that parse the body, reached from it without an
 * asynchronous step, so that their parser is listening before the body flows.
 */
export function arrivingBodyLimit(maxBytes: number): express.RequestHandler {
  return (req, res, next) => {
    if (req.complete || !announcesBody(req)) {
      next();
      return;
    }
    let size = 0;
    const onData = (chunk: Buffer): void => {
      size += chunk.length;
      if (size <= maxBytes) return;
      req.off("data", onData);
      refuse(req, res);
    };
    req.on("data", onData);
    next();
  };
}
