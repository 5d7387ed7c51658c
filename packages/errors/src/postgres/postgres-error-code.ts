import { ErrCode } from "../err-code.js";

/** Socket errors of a connection that could not be made or was lost. */
const CONNECTION_ERRNO = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ETIMEDOUT",
  "EPIPE",
  "ENOTFOUND",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "EAI_AGAIN",
]);

/**
 * The `ErrCode` of a failure of the `pg` client (by its SQLSTATE or socket `code`, else its
 * message), for the PostgreSQL stores' `DriverError`s: `SERVICE_UNAVAILABLE` for a connection that
 * could not be made or was lost (class 08, 57P, socket errors), a serialization failure, a deadlock
 * or a lock not available (retryable); `NOT_FOUND` for a missing table or schema (run
 * `migrate()`); `PERMISSION` for a right the role lacks (42501, e.g. a revoked grant); `TIMEOUT`
 * for a cancelled statement; `RESOURCE_EXHAUSTED` for a program limit
 * exceeded; `INTERNAL` otherwise.
 */
export function postgresErrorCode(cause: unknown): ErrCode {
  const code = typeof cause === "object" && cause !== null ? (cause as { code?: unknown }).code : undefined;
  if (typeof code === "string") {
    if (CONNECTION_ERRNO.has(code) || code.startsWith("08") || code.startsWith("57P")) return ErrCode.ServiceUnavailable;
    if (code === "40001" || code === "40P01" || code === "55P03") return ErrCode.ServiceUnavailable;
    if (code === "42P01" || code === "3F000") return ErrCode.NotFound;
    if (code === "42501") return ErrCode.Permission;
    if (code === "57014") return ErrCode.Timeout;
    if (code === "54000") return ErrCode.ResourceExhausted;
  }
  if (cause instanceof Error && /Connection terminated|not queryable|after calling end on the pool/i.test(cause.message)) {
    return ErrCode.ServiceUnavailable;
  }
  return ErrCode.Internal;
}
