/** Quotes a PostgreSQL identifier (a schema name). */
export function quoteIdent(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

/** The table of A2A tasks. */
export const TASKS_TABLE = "adaptor_a2a_tasks";

/**
 * DDL of the task store in schema `s` (already quoted), every statement idempotent. A task is one
 * row under its scope (tenant, owner) and id: the task as the protocol's JSON (`task`), the columns
 * `ListTasks` filters and orders on, and per unit the values it has left behind (`superseded`, see
 * the merge on save).
 */
export function taskStoreDdl(s: string): string[] {
  return [
    `CREATE SCHEMA IF NOT EXISTS ${s}`,
    `CREATE TABLE IF NOT EXISTS ${s}.${TASKS_TABLE} (
      tenant text NOT NULL,
      owner text NOT NULL,
      id text NOT NULL,
      context_id text NOT NULL,
      state text NOT NULL,
      status_time bigint NOT NULL,
      task json NOT NULL,
      superseded json NOT NULL,
      revision bigint NOT NULL,
      updated_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (tenant, owner, id)
    )`,
    `CREATE INDEX IF NOT EXISTS ${TASKS_TABLE}_by_time ON ${s}.${TASKS_TABLE} (tenant, owner, status_time DESC, id DESC)`,
    `CREATE INDEX IF NOT EXISTS ${TASKS_TABLE}_by_context ON ${s}.${TASKS_TABLE} (tenant, owner, context_id)`,
  ];
}
