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
 * @throws the database's error (busy past {@link BUSY_TIMEOUT_MS}, unreadable) as is; Error
 * naming better-sqlite3 when it cannot be loaded (its native binary not built), its error as cause.
 */
export async function dropHistoryProjection(home: string, threadIds: readonly string[]): Promise<void> {
  let names: string[];
  try {
    names = (await readdir(home)).filter((name) => HISTORY_DB.test(name));
  } catch {
    return;
  }
  if (names.length === 0 || threadIds.length === 0) return;
  for (const name of names) {
    const db = await open(join(home, name));
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

/**
 * The history database at `path`, opened with better-sqlite3.
 * @throws Error naming better-sqlite3 when it cannot be loaded or its native binary is missing
 * (an install that did not build it), its error as cause; the database's error as is.
 */
async function open(path: string): Promise<import("better-sqlite3").Database> {
  let Database: typeof import("better-sqlite3");
  try {
    Database = (await import("better-sqlite3")).default;
  } catch (cause) {
    throw unloadable(cause);
  }
  try {
    return new Database(path, { fileMustExist: true, timeout: BUSY_TIMEOUT_MS });
  } catch (cause) {
    // The native binary is loaded with the first database opened.
    if (cause instanceof Error && /bindings file|better_sqlite3\.node|NODE_MODULE_VERSION/.test(cause.message)) throw unloadable(cause);
    throw cause;
  }
}

/** The error of a better-sqlite3 that cannot be loaded. */
function unloadable(cause: unknown): Error {
  return new Error(
    "codex's thread history database cannot be updated: better-sqlite3 (a dependency of @adaptor/codex) could not be loaded; install or rebuild it (its native binary)",
    { cause },
  );
}
