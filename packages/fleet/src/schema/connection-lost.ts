/**
 * True for a query that failed because the database connection was lost or refused (a restart, a
 * failover, a backend ended by an administrator or a pooler): the pool connects afresh for the next
 * query, so reading again once the fleet reconnected can succeed.
 */
export function connectionLost(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code !== "string") return /Connection terminated|connection/i.test(String((error as Error | null)?.message ?? ""));
  return code.startsWith("08") || code.startsWith("57P") || ["ECONNREFUSED", "ECONNRESET", "EPIPE", "ETIMEDOUT"].includes(code);
}
