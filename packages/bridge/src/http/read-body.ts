import { JSON_DEPTH_MAX, nestsDeeperThan } from "adaptor/internal";
import type { IncomingMessage } from "node:http";
import { HttpError } from "./http-error.js";

/** Limits of one body read. */
export interface BodyLimits {
  /** Largest body, bytes. */
  readonly maxBytes: number;
  /** Longest time the whole body may take to arrive, ms. */
  readonly timeoutMs: number;
}

/**
 * Reads a JSON request body of at most `maxBytes` bytes within `timeoutMs`. A body a framework
 * already parsed (`req.body`, as Express's `json()` leaves it) is taken as is.
 * @throws HttpError 413 for a larger body (the rest is not read), 408 for a body still incomplete
 *   after `timeoutMs` (a client trickling it byte by byte), 415 for a missing or non-JSON content
 *   type, 400 for malformed JSON, a body cut short, or one nesting objects or arrays deeper than 64
 *   levels (`JSON_DEPTH_MAX`).
 */
export async function readJsonBody(req: IncomingMessage, limits: BodyLimits): Promise<unknown> {
  // A missing type is refused too: browsers send bodies without one (or as text/plain) cross-origin without a preflight.
  const type = req.headers["content-type"];
  if (type === undefined || !/^application\/(?:[\w.+-]+\+)?json\s*(?:;|$)/i.test(type)) {
    throw new HttpError(415, "unsupported_media_type", "the body must be sent with content-type application/json");
  }
  const parsed = (req as IncomingMessage & { body?: unknown }).body;
  if (parsed !== undefined && typeof parsed === "object" && parsed !== null && !Buffer.isBuffer(parsed)) return shallowEnough(parsed);
  const { maxBytes, timeoutMs } = limits;
  const declared = Number(req.headers["content-length"]);
  if (Number.isFinite(declared) && declared > maxBytes) {
    throw new HttpError(413, "payload_too_large", `the body is larger than ${maxBytes} bytes`);
  }
  if (req.readableEnded || req.destroyed) throw new HttpError(400, "bad_request", "the body was already read by another handler");
  const text = await new Promise<string>((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const finish = (error: HttpError | undefined): void => {
      clearTimeout(timer);
      req.off("data", onData);
      req.off("end", onEnd);
      req.off("error", onGone);
      req.off("close", onGone);
      if (error) {
        req.pause();
        reject(error);
      } else resolve(Buffer.concat(chunks).toString("utf8"));
    };
    const onData = (chunk: Buffer): void => {
      size += chunk.length;
      if (size > maxBytes) finish(new HttpError(413, "payload_too_large", `the body is larger than ${maxBytes} bytes`));
      else chunks.push(chunk);
    };
    const onEnd = (): void => finish(undefined);
    const onGone = (): void => finish(new HttpError(400, "bad_request", "the body was cut short: the client went away"));
    const timer = setTimeout(
      () => finish(new HttpError(408, "request_timeout", `the body did not arrive within ${timeoutMs} ms`)),
      timeoutMs,
    );
    req.on("data", onData);
    req.once("end", onEnd);
    req.once("error", onGone);
    req.once("close", onGone);
  });
  if (text.trim() === "") throw new HttpError(400, "bad_request", "the body is empty; send a JSON object");
  let body: unknown;
  try {
    body = JSON.parse(text) as unknown;
  } catch {
    throw new HttpError(400, "bad_request", "the body is not valid JSON");
  }
  return shallowEnough(body);
}

/** `body`, unless it nests deeper than `JSON_DEPTH_MAX` levels: a run's input reaches its events, state frames and stores, which must encode it again. */
function shallowEnough(body: unknown): unknown {
  if (nestsDeeperThan(body)) {
    throw new HttpError(400, "bad_request", `the body nests objects or arrays deeper than ${JSON_DEPTH_MAX} levels`);
  }
  return body;
}
