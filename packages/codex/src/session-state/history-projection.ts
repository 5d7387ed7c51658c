import { readdir } from "node:fs/promises";
import { join } from "node:path";

/** Codex's own database of thread histories below `CODEX_HOME`: `thread_history_<version>.sqlite`. */
const HISTORY_DB = /^thread_history_\d+\.sqlite$/;
/** Its tables keyed by thread: the projected turns and items, and how far into the rollout it has read. */
const PROJECTION_TABLES = ["thread_history_projection_state", "thread_turns", "thread_items", "thread_realtime_items"];
/** How long a write waits for another codex process holding the database, in milliseconds. */
const BUSY_TIMEOUT_MS = 5_000;

/**
 * Drops codex's projection of threads `threadIds` (the turns and items it read from their rollouts,
 * and the rollout byte offset it read through) from its history database in `home`, so codex builds
 * it again from the rollout when the thread is next opened. Codex trusts that projection over the
 * rollout: a rollout written over with other bytes is listed from the stale one, and one cut shorter
 * than the offset fails every later resume ("durable rollout shrank before projection"). Called
 * after the rollouts were replaced or cut, with no codex process serving the threads. A home without
 * the database (codex never ran there) is left as it is.
 * @throws the database's error (busy past {@link BUSY_TIMEOUT_MS}, unreadable) as is.
 */
export async function dropHistoryProjection(home: string, threadIds: readonly string[]): Promise<void> {
  let names: string[];
  try {
    names = (await readdir(home)).filter((name) => HISTORY_DB.test(name));
  } catch {
    return;
  }
  if (names.length === 0 || threadIds.length === 0) return;
  const { default: Database } = await import("better-sqlite3");
  for (const name of names) {
    const db = new Database(join(home, name), { fileMustExist: true, timeout: BUSY_TIMEOUT_MS });
    try {
      const present = new Set(
        (db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all() as { name: string }[]).map((row) => row.name),
      );
      const deletes = PROJECTION_TABLES.filter((table) => present.has(table)).map((table) =>
        db.prepare(`DELETE FROM "${table}" WHERE thread_id = ?`),
      );
      db.transaction(() => {
        for (const id of threadIds) for (const statement of deletes) statement.run(id);
      }).immediate();
    } finally {
      db.close();
    }
  }
}
