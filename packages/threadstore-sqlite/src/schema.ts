import type { ThreadRecord, ThreadRecordDraft } from "@adaptor/threadstore";

/** The session segments table: `tag` (the segment's `segmentTag`) before `data`. */
const SEGMENTS_TABLE = `CREATE TABLE IF NOT EXISTS adaptor_thread_session_segments (
  record_id TEXT NOT NULL,
  seq INTEGER NOT NULL,
  tag INTEGER,
  data BLOB NOT NULL,
  PRIMARY KEY (record_id, seq)
) STRICT;`;

/**
 * Tables of the SQLite store, created on open with `IF NOT EXISTS` (safe when several processes
 * open one file at once). Times are integer milliseconds since the Unix epoch (UTC). A lease row is
 * never deleted: release clears `owner`, so the per-target `token` counter never resets. Session
 * state (the optional capability) is one row per record plus its numbered segments, each with its
 * `segmentTag` (before the data, so the summary reads it without walking the data's overflow pages).
 */
export const SCHEMA = `
CREATE TABLE IF NOT EXISTS adaptor_threads (
  id TEXT PRIMARY KEY,
  key TEXT NOT NULL,
  status TEXT NOT NULL CHECK (status IN ('active', 'archived')),
  driver_type TEXT NOT NULL,
  identity TEXT NOT NULL,
  fingerprint TEXT NOT NULL,
  codec TEXT NOT NULL,
  resume_id TEXT NOT NULL,
  display_id TEXT,
  data_json TEXT,
  created_at_ms INTEGER NOT NULL,
  updated_at_ms INTEGER NOT NULL,
  revision INTEGER NOT NULL DEFAULT 1
) STRICT;
CREATE UNIQUE INDEX IF NOT EXISTS adaptor_threads_one_active_per_key ON adaptor_threads (key) WHERE status = 'active';
CREATE INDEX IF NOT EXISTS adaptor_threads_by_key ON adaptor_threads (key, created_at_ms);
CREATE TABLE IF NOT EXISTS adaptor_thread_leases (
  target TEXT PRIMARY KEY,
  owner TEXT,
  token INTEGER NOT NULL,
  expires_at_ms INTEGER NOT NULL
) STRICT;
CREATE TABLE IF NOT EXISTS adaptor_thread_sessions (
  record_id TEXT PRIMARY KEY,
  manifest_json TEXT NOT NULL,
  segments INTEGER NOT NULL,
  bytes INTEGER NOT NULL
) STRICT;
${SEGMENTS_TABLE}
`;

/**
 * Upgrades a file made by an earlier version, inside the opening transaction: adds the
 * `revision` column (existing records start at revision 1) and the segments' `tag` column (after
 * rebuilding that table so the tag comes before the data; existing segments get their tag at their
 * record's first summary).
 */
export function migrateSchema(db: { prepare(sql: string): { all(): unknown[] }; exec(sql: string): unknown }): void {
  const columns = db.prepare("PRAGMA table_info(adaptor_threads)").all() as { name: string }[];
  if (!columns.some((c) => c.name === "revision")) db.exec("ALTER TABLE adaptor_threads ADD COLUMN revision INTEGER NOT NULL DEFAULT 1");
  const segmentColumns = db.prepare("PRAGMA table_info(adaptor_thread_session_segments)").all() as { name: string }[];
  if (!segmentColumns.some((c) => c.name === "tag")) {
    // Rebuilt rather than altered, so `tag` comes before `data` as in a new file (a column after a
    // large BLOB is read by walking the BLOB's overflow pages).
    db.exec(`${SEGMENTS_TABLE.replace("adaptor_thread_session_segments", "adaptor_thread_session_segments_tagged")}
      INSERT INTO adaptor_thread_session_segments_tagged (record_id, seq, data) SELECT record_id, seq, data FROM adaptor_thread_session_segments;
      DROP TABLE adaptor_thread_session_segments;
      ALTER TABLE adaptor_thread_session_segments_tagged RENAME TO adaptor_thread_session_segments;`);
  }
}

/** A row of `adaptor_threads` as written (the store assigns `revision`). */
export interface ThreadRow {
  id: string;
  key: string;
  status: string;
  driver_type: string;
  identity: string;
  fingerprint: string;
  codec: string;
  resume_id: string;
  display_id: string | null;
  data_json: string | null;
  created_at_ms: number;
  updated_at_ms: number;
}

/** A row of `adaptor_threads` as read. */
export interface StoredThreadRow extends ThreadRow {
  revision: number;
}

/** A row of `adaptor_thread_leases`. */
export interface LeaseRow {
  owner: string | null;
  token: number;
  expires_at_ms: number;
}

/** The record a row holds; absent `displayId` / `data` stay absent. */
export function recordFromRow(row: StoredThreadRow): ThreadRecord {
  const checkpoint: { resumeId: string; displayId?: string; data?: unknown } = { resumeId: row.resume_id };
  if (row.display_id !== null) checkpoint.displayId = row.display_id;
  if (row.data_json !== null) checkpoint.data = JSON.parse(row.data_json) as unknown;
  return {
    id: row.id,
    key: row.key,
    status: row.status === "archived" ? "archived" : "active",
    driverType: row.driver_type,
    identity: row.identity,
    fingerprint: row.fingerprint,
    codec: row.codec,
    checkpoint,
    createdAt: new Date(row.created_at_ms),
    updatedAt: new Date(row.updated_at_ms),
    revision: row.revision,
  };
}

/** The row for a record. @throws TypeError when `checkpoint.data` is not JSON-serialisable or a time is invalid. */
export function rowFromRecord(record: ThreadRecordDraft): ThreadRow {
  const { checkpoint } = record;
  return {
    id: record.id,
    key: record.key,
    status: record.status,
    driver_type: record.driverType,
    identity: record.identity,
    fingerprint: record.fingerprint,
    codec: record.codec,
    resume_id: checkpoint.resumeId,
    display_id: checkpoint.displayId ?? null,
    data_json: checkpoint.data === undefined ? null : JSON.stringify(checkpoint.data),
    created_at_ms: timeOf(record.createdAt, "createdAt"),
    updated_at_ms: timeOf(record.updatedAt, "updatedAt"),
  };
}

function timeOf(value: Date, field: string): number {
  const ms = value instanceof Date ? value.getTime() : Number.NaN;
  if (!Number.isFinite(ms)) throw new TypeError(`finalize: record.${field} must be a valid Date`);
  return ms;
}
