import { AdaptorError, DriverError, ErrCode } from "@adaptor/errors";
import { postgresConnectionLost, postgresErrorCode } from "@adaptor/errors/internal";

/**
 * True for a query that failed because the database connection was lost or could not be made (a
 * restart, a failover, a backend ended by an administrator or a pooler, a server that refuses
 * connections or is stopped, its Unix socket gone): the pool connects afresh for the next
 * query, so reading again once the fleet reconnected can succeed.
 */
export function connectionLost(error: unknown): boolean {
  if (postgresConnectionLost(error)) return true;
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code !== "string" && /connection/i.test(String((error as Error | null)?.message ?? ""));
}

/**
 * What a fleet call that failed on PostgreSQL rejects with (the one mapping of every fleet method
 * that reads or writes the database): a failure of the database itself (a connection refused or
 * lost, a serialization failure or deadlock) as the thread store reports it, a `DriverError`
 * (device `fleet`, code `SERVICE_UNAVAILABLE`, retryable) with the `pg` error as `cause`; a right
 * the connecting role lacks (SQLSTATE 42501: a grant the fleet README lists is missing or was
 * revoked) a `DriverError` of code `PERMISSION`; a value longer than PostgreSQL keeps (SQLSTATE
 * 54000) one of code `RESOURCE_EXHAUSTED`; a typed error, and any other error, as it is.
 */
export function databaseError(op: string, error: unknown): unknown {
  if (error instanceof AdaptorError) return error;
  if (permissionDenied(error)) return new DriverError({ op, device: "fleet", code: ErrCode.Permission, cause: error });
  const code = postgresErrorCode(error);
  if (code !== ErrCode.ServiceUnavailable && code !== ErrCode.ResourceExhausted) return error;
  return new DriverError({ op, device: "fleet", code, cause: error });
}

/** True for a statement PostgreSQL refused because the role lacks a right on what it touches (SQLSTATE 42501). */
export function permissionDenied(error: unknown): boolean {
  return (error as { code?: unknown } | null)?.code === "42501";
}
