/** Quotes a PostgreSQL identifier (a schema name). */
export function quoteIdent(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

/** The LISTEN/NOTIFY channel of a schema's logs (payload: the session key). At most 63 bytes. */
export function channelOf(schema: string): string {
  return `adaptor_sessions_${schema}`.slice(0, 63);
}

/**
 * DDL of the backend in schema `s` (already quoted), every statement idempotent. One row per log
 * (`adaptor_session_logs`: the last sequence, the fencing token, the writer holding the key) and one
 * row per record (`adaptor_session_events`, primary key `(key, sequence)`, so a sequence can never
 * be stored twice). Events are `json`, which keeps the text as written (key order included).
 */
export function schemaDdl(s: string): string[] {
  return [
    `CREATE SCHEMA IF NOT EXISTS ${s}`,
    `CREATE TABLE IF NOT EXISTS ${s}.adaptor_session_logs (
      key text PRIMARY KEY,
      last_sequence bigint NOT NULL DEFAULT 0,
      token bigint NOT NULL DEFAULT 0,
      holder_pid int,
      holder_host text,
      holder_lock_hi int,
      holder_lock_lo int,
      acquired_at timestamptz,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now()
    )`,
    `CREATE INDEX IF NOT EXISTS adaptor_session_logs_by_update ON ${s}.adaptor_session_logs (updated_at)`,
    `CREATE TABLE IF NOT EXISTS ${s}.adaptor_session_events (
      key text NOT NULL REFERENCES ${s}.adaptor_session_logs (key) ON DELETE CASCADE,
      sequence bigint NOT NULL,
      recorded_at timestamptz NOT NULL,
      event json NOT NULL,
      PRIMARY KEY (key, sequence)
    )`,
  ];
}

/**
 * SQL true while the writer named by the row `l` is alive: its backend object's presence
 * connection still holds the session-level advisory lock `(holder_lock_hi, holder_lock_lo)` in this
 * database. `pg_locks` is readable by every role, and the lock ends with the connection (a process
 * that dies, a host that loses the server), so a dead writer is seen at once.
 */
export const HOLDER_ALIVE = `EXISTS (SELECT 1 FROM pg_locks k WHERE k.locktype = 'advisory' AND k.granted AND k.objsubid = 2
  AND k.database = (SELECT oid FROM pg_database WHERE datname = current_database())
  AND k.classid = l.holder_lock_hi::oid AND k.objid = l.holder_lock_lo::oid)`;
