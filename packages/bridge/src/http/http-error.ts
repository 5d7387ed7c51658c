import type { ServerResponse } from "node:http";

/** The `error.code` values of the bridge's JSON error responses. */
export type BridgeErrorCode =
  | "bad_request"
  | "forbidden_origin"
  | "forbidden_host"
  | "permission_denied"
  | "not_found"
  | "method_not_allowed"
  | "payload_too_large"
  | "request_timeout"
  | "invalid_id"
  | "unsupported_media_type"
  | "image_source_refused"
  | "unsupported_image_type"
  | "too_many_images"
  | "image_too_large"
  | "run_id_in_use"
  | "approval_resolved"
  | "approval_expired"
  | "approval_kind_mismatch"
  | "approval_invalid_choice"
  | "approval_invalid_input"
  | "approval_invalid_remember"
  | "approval_edit_unsupported"
  | "resume_unsupported"
  | "thread_unsupported"
  | "bridge_closed"
  | "queue_full"
  | "database_unavailable"
  | "too_many_watchers"
  | "interrupt_unsupported"
  | "internal";

/** A refusal the bridge answers with a JSON body `{ error: { code, message } }` before any stream starts. */
export class HttpError extends Error {
  override readonly name = "HttpError";
  constructor(
    readonly status: number,
    readonly code: BridgeErrorCode,
    message: string,
    readonly extra: Record<string, unknown> = {},
  ) {
    super(message);
  }
}

/** Writes a JSON response. */
export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    "content-type": "application/json; charset=utf-8",
    "content-length": String(Buffer.byteLength(text)),
    "cache-control": "no-store",
    ...headers,
  });
  res.end(text);
}

/** Writes an {@link HttpError} (or, for anything else, a generic 500 without detail). */
export function sendError(res: ServerResponse, error: unknown, headers: Record<string, string> = {}): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  const http = error instanceof HttpError ? error : new HttpError(500, "internal", "internal error");
  sendJson(res, http.status, { error: { code: http.code, message: http.message, ...http.extra } }, headers);
}
