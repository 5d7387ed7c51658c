import { ErrCode } from "../err-code.js";

/** Socket errors of a connection that was lost, or could not be made whatever the call that failed. */
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

/** Socket errors of a connect the process is not allowed to make (a Unix socket's mode, a local firewall rule). */
const CONNECT_FORBIDDEN = new Set(["EACCES", "EPERM"]);

/**
 * True for a failure of the `pg` client for want of a connection to the server: one that could not
 * be made (any socket error of the connect itself, e.g. `ENOENT` for a Unix socket whose server is
 * stopped, `ECONNREFUSED`, an unknown host; not `EACCES` or `EPERM`, a socket the process may not
 * open, nor a login or database the server refuses, such as `28P01` or `3D000`) or that was lost (class 08, 57P such as a server
 * shutting down or starting up, a reset or ended socket). A later query on a fresh connection can
 * succeed once the server is back.
 */
export function postgresConnectionLost(cause: unknown): boolean {
  if (typeof cause !== "object" || cause === null) return false;
  const { code, syscall } = cause as { code?: unknown; syscall?: unknown };
  if (typeof code === "string") {
    if (CONNECTION_ERRNO.has(code) || code.startsWith("08") || code.startsWith("57P")) return true;
    // A socket the process may not open (its directory's or file's mode) stays so: no outage.
    if (syscall === "connect" && /^E[A-Z]+$/.test(code) && !CONNECT_FORBIDDEN.has(code)) return true;
  }
  return cause instanceof Error && /Connection terminated|not queryable/i.test(cause.message);
}

/**
 * The `ErrCode` of a failure of the `pg` client (by its SQLSTATE or socket `code`, else its
 * message), for the PostgreSQL stores' `DriverError`s: `SERVICE_UNAVAILABLE` for a connection that
 * could not be made or was lost (see `postgresConnectionLost`), a serialization failure, a deadlock
 * or a lock not available (retryable); `NOT_FOUND` for a missing table or schema (run
 * `migrate()`); `PERMISSION` for a right the role lacks (42501, e.g. a revoked grant); `TIMEOUT`
 * for a cancelled statement; `RESOURCE_EXHAUSTED` for a program limit
 * exceeded; `INTERNAL` otherwise.
 */
export function postgresErrorCode(cause: unknown): ErrCode {
  if (postgresConnectionLost(cause)) return ErrCode.ServiceUnavailable;
  const code = typeof cause === "object" && cause !== null ? (cause as { code?: unknown }).code : undefined;
  if (typeof code === "string") {
    if (code === "40001" || code === "40P01" || code === "55P03") return ErrCode.ServiceUnavailable;
    if (code === "42P01" || code === "3F000") return ErrCode.NotFound;
    if (code === "42501") return ErrCode.Permission;
    if (code === "57014") return ErrCode.Timeout;
    if (code === "54000") return ErrCode.ResourceExhausted;
  }
  if (cause instanceof Error && /after calling end on the pool/i.test(cause.message)) {
    return ErrCode.ServiceUnavailable;
  }
  return ErrCode.Internal;
}
