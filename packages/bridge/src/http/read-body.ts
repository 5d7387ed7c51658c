import type { IncomingMessage } from "node:http";
import { HttpError } from "./http-error.js";

/**
 * Reads a JSON request body of at most `maxBytes` bytes. A body a framework already parsed
 * (`req.body`, as Express's `json()` leaves it) is taken as is.
 * @throws HttpError 413 for a larger body (the rest is not read), 415 for a missing or non-JSON
 *   content type, 400 for malformed JSON.
 */
export async function readJsonBody(req: IncomingMessage, maxBytes: number): Promise<unknown> {
  // A missing type is refused too: browsers send bodies without one (or as text/plain) cross-origin without a preflight.
  const type = req.headers["content-type"];
  if (type === undefined || !/^application\/(?:[\w.+-]+\+)?json\s*(?:;|$)/i.test(type)) {
    throw new HttpError(415, "unsupported_media_type", "the body must be sent with content-type application/json");
  }
  const parsed = (req as IncomingMessage & { body?: unknown }).body;
  if (parsed !== undefined && typeof parsed === "object" && parsed !== null && !Buffer.isBuffer(parsed)) return parsed;
  const declared = Number(req.headers["content-length"]);
  if (Number.isFinite(declared) && declared > maxBytes) {
    throw new HttpError(413, "payload_too_large", `the body is larger than ${maxBytes} bytes`);
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > maxBytes) {
      throw new HttpError(413, "payload_too_large", `the body is larger than ${maxBytes} bytes`);
    }
    chunks.push(chunk);
  }
  const text = Buffer.concat(chunks).toString("utf8");
  if (text.trim() === "") throw new HttpError(400, "bad_request", "the body is empty; send a JSON object");
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new HttpError(400, "bad_request", "the body is not valid JSON");
  }
}
