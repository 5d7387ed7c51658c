import type { A2AError } from "@a2a-js/sdk/errors";
import { AdaptorError, DriverError, ErrCode, findError, isError } from "@adaptor/errors";
import { ProtocolError } from "../errors/protocol-error.js";
import { redactCredentials } from "../errors/sanitize.js";
import { ErrNotFound, ErrProtocol, ErrUnauthorized, ErrUnsupported, ErrUntrustedOrigin } from "../errors/sentinels.js";
import { loadedA2AError } from "./protocol-values.js";
import { HttpFailure } from "./trust.js";

const UNSUPPORTED_REASONS = new Set([
  "UNSUPPORTED_OPERATION",
  "CONTENT_TYPE_NOT_SUPPORTED",
  "PUSH_NOTIFICATION_NOT_SUPPORTED",
  "EXTENDED_AGENT_CARD_NOT_CONFIGURED",
  "EXTENSION_SUPPORT_REQUIRED",
  "VERSION_NOT_SUPPORTED",
  "TASK_NOT_CANCELABLE",
]);

/** True for the failures `fetch` reports when a connection cannot be made or breaks. */
function isConnectionFailure(err: unknown): boolean {
  if (!(err instanceof Error)) return false;
  if (err.name === "TypeError" && /fetch failed|terminated|network|socket/i.test(err.message)) return true;
  const code = (err as { code?: unknown }).code;
  return typeof code === "string" && /^(ECONNREFUSED|ECONNRESET|EPIPE|ETIMEDOUT|UND_ERR_SOCKET|UND_ERR_CLOSED)$/.test(code);
}

/**
 * The `ProtocolError` for a failure of client operation `op`: the A2A SDK's errors, HTTP
 * failures and trust refusals keep their identity as the cause; a broken connection is a
 * `DriverError` coded `SERVICE_UNAVAILABLE`; an answer over the size limit keeps its
 * `RESOURCE_EXHAUSTED` `DriverError` (which carries `ErrProtocol`) as the cause; anything else is
 * a protocol violation (`ErrProtocol`). An abort of `signal` is returned unchanged (it is the caller's, not the remote's).
 */
export function classify(op: string, err: unknown, secrets: readonly string[], signal?: AbortSignal): unknown {
  if (signal?.aborted && (err === signal.reason || (err instanceof Error && err.name === "AbortError"))) return signal.reason ?? err;
  const existing = findError(err, ProtocolError);
  if (existing && existing === err) return err;
  if (isError(err, ErrUntrustedOrigin)) return new ProtocolError({ op, reason: "untrusted origin", cause: err, secrets });
  const http = findError(err, HttpFailure);
  if (http && isError(http, ErrUnauthorized)) {
    return new ProtocolError({ op, reason: http.message, cause: http, ...(http.raw !== undefined ? { raw: http.raw } : {}), secrets });
  }
  if (http) return new ProtocolError({ op, reason: http.message, ...(http.raw !== undefined ? { raw: http.raw } : {}), secrets });
  const remote = findA2AError(err);
  if (remote) {
    // The remote's error text and data may echo what the request carried (a token): the SDK's
    // error, which stays on the cause chain (and is what `console.error(err)` prints), keeps only
    // redacted text, like every message built from it.
    redactInPlace(err, secrets);
    const raw = remote.message;
    if (remote.reason === "TASK_NOT_FOUND") {
      return new ProtocolError({
        op,
        reason: "task not found",
        cause: new AdaptorError(remote.message, { sentinel: ErrNotFound, cause: remote }),
        raw,
        secrets,
      });
    }
    if (UNSUPPORTED_REASONS.has(remote.reason)) {
      const reason = remote.reason.toLowerCase().replaceAll("_", " ");
      return new ProtocolError({
        op,
        reason,
        cause: new AdaptorError(remote.message, { sentinel: ErrUnsupported, cause: remote }),
        raw,
        secrets,
      });
    }
    return new ProtocolError({
      op,
      reason: remote.reason.toLowerCase().replaceAll("_", " "),
      cause: new AdaptorError(remote.message, { sentinel: ErrProtocol, cause: remote }),
      raw,
      secrets,
    });
  }
  const exhausted = findError(err, DriverError);
  if (exhausted?.code === ErrCode.ResourceExhausted) {
    // An answer over the client's limit (`maxResponseBytes`): dropped unread, its identity kept.
    const reason = exhausted.cause instanceof Error ? exhausted.cause.message : "the response is too large";
    return new ProtocolError({ op, reason, cause: exhausted, secrets });
  }
  if (isConnectionFailure(err) || isConnectionFailure((err as { cause?: unknown } | undefined)?.cause)) {
    const cause = new DriverError({ op, device: "a2a", code: ErrCode.ServiceUnavailable, cause: err });
    return new ProtocolError({ op, reason: "connection failed", cause, secrets });
  }
  const message = redactCredentials(err instanceof Error ? err.message : String(err), secrets);
  redactInPlace(err, secrets);
  return new ProtocolError({
    op,
    reason: "unexpected response",
    cause: new AdaptorError(message, { sentinel: ErrProtocol, cause: err }),
    raw: message,
    secrets,
  });
}

function findA2AError(err: unknown): A2AError | undefined {
  // The SDK's errors module loads with the SDK: before that, none of its errors exists.
  const A2AErrorClass = loadedA2AError();
  if (!A2AErrorClass) return undefined;
  for (let node: unknown = err, depth = 0; node instanceof Error && depth < 8; node = node.cause, depth++) {
    if (node instanceof A2AErrorClass) return node;
  }
  return undefined;
}

/** How deep {@link redactInPlace} goes into an error's properties. */
const MAX_REDACT_DEPTH = 16;

/**
 * Redacts, in place, every string reachable from `value` through its own properties (an error's
 * `message`, `stack`, `cause`, the JSON-RPC error's `data`, the `metadata` of an `ErrorInfo`):
 * errors, arrays and plain objects are entered, up to {@link MAX_REDACT_DEPTH} levels; a property
 * that cannot be written (a DOMException's message) is left as is.
 */
function redactInPlace(value: unknown, secrets: readonly string[], seen = new Set<object>(), depth = 0): void {
  if (typeof value !== "object" || value === null || seen.has(value) || depth > MAX_REDACT_DEPTH) return;
  if (!(value instanceof Error) && !Array.isArray(value) && !isPlainObject(value)) return;
  seen.add(value);
  for (const key of Reflect.ownKeys(value)) {
    const descriptor = Reflect.getOwnPropertyDescriptor(value, key);
    // Accessors are not called: only what the object holds.
    if (!descriptor || !("value" in descriptor)) continue;
    const field: unknown = descriptor.value;
    if (typeof field === "string") {
      const redacted = redactCredentials(field, secrets);
      if (redacted !== field) {
        try {
          (value as Record<PropertyKey, unknown>)[key] = redacted;
        } catch {
          // read-only: left as is
        }
      }
    } else {
      redactInPlace(field, secrets, seen, depth + 1);
    }
  }
}

function isPlainObject(value: object): boolean {
  const prototype = Reflect.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}
