import { SEGMENT_CHECKSUM_MODULUS, type ThreadRecord, type ThreadRecordDraft } from "@adaptor/threadstore";

/** Quotes a PostgreSQL identifier (a schema name). */
export function quoteIdent(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

/**
 * DDL of the PostgreSQL store in schema `s` (already quoted), every statement idempotent. A lease
 * row is never deleted: release clears `owner`, so the per-target `token` counter (the fencing
 * token) never resets. The partial unique index keeps at most one active record per key, even
 * against a writer that skips the store's own checks.
 */
export function schemaDdl(s: string): string[] {
  return [
    `CREATE SCHEMA IF NOT EXISTS ${s}`,
    `CREATE TABLE IF NOT EXISTS ${s}.adaptor_threads (
      id text PRIMARY KEY,
      key text NOT NULL,
      status text NOT NULL CHECK (status IN ('active', 'archived')),
      driver_type text NOT NULL,
      identity text NOT NULL,
      fingerprint text NOT NULL,
      codec text NOT NULL,
      resume_id text NOT NULL,
      display_id text,
      data json,
      created_at timestamptz NOT NULL,
      updated_at timestamptz NOT NULL,
      revision bigint NOT NULL DEFAULT 1
    )`,
    // Tables made by an earlier version: existing records start at revision 1.
    `ALTER TABLE ${s}.adaptor_threads ADD COLUMN IF NOT EXISTS revision bigint NOT NULL DEFAULT 1`,
    `CREATE UNIQUE INDEX IF NOT EXISTS adaptor_threads_one_active_per_key ON ${s}.adaptor_threads (key) WHERE status = 'active'`,
    `CREATE INDEX IF NOT EXISTS adaptor_threads_by_key ON ${s}.adaptor_threads (key, created_at DESC)`,
    `CREATE TABLE IF NOT EXISTS ${s}.adaptor_thread_leases (
      target text PRIMARY KEY,
      owner text,
      token bigint NOT NULL,
      expires_at timestamptz
    )`,
    // Session state per record: segments are numbered by a per-record counter that never goes
    // back (`next_seq`), so a replace inserts after the old numbers and deletes them in the same
    // statement without the two ever meeting on the primary key.
    `CREATE TABLE IF NOT EXISTS ${s}.adaptor_thread_sessions (
      record_id text PRIMARY KEY,
      manifest json NOT NULL,
      first_seq bigint NOT NULL,
      next_seq bigint NOT NULL,
      bytes bigint NOT NULL
    )`,
    `CREATE TABLE IF NOT EXISTS ${s}.adaptor_thread_session_segments (
      record_id text NOT NULL,
      seq bigint NOT NULL,
      data bytea NOT NULL,
      PRIMARY KEY (record_id, seq)
    )`,
    // Each segment's `segmentTag`, computed from its bytes when it is inserted (NULL for segments
    // of an earlier version, until their record's first summary).
    `ALTER TABLE ${s}.adaptor_thread_session_segments ADD COLUMN IF NOT EXISTS tag bigint`,
  ];
}

/** Name of the partial unique index whose violation means "another active record under this key". */
export const ONE_ACTIVE_INDEX = "adaptor_threads_one_active_per_key";

/** Columns selected for a record; `data` comes back as text so SQL NULL (absent) and JSON `null` differ. */
export const THREAD_COLUMNS =
  "id, key, status, driver_type, identity, fingerprint, codec, resume_id, display_id, data::text AS data_json, created_at, updated_at, revision::text AS revision";

/** A selected record row. */
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
  created_at: Date;
  updated_at: Date;
  /** A bigint, as text. */
  revision: string;
}

/** The record a row holds; absent `displayId` / `data` stay absent. */
export function recordFromRow(row: ThreadRow): ThreadRecord {
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
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    revision: Number(row.revision),
  };
}

/** Parameters $1..$12 of the upsert, in {@link THREAD_COLUMNS} order (`revision` is the store's). @throws TypeError for bad times or unserialisable data. */
export function recordParams(record: ThreadRecordDraft): unknown[] {
  const { checkpoint } = record;
  for (const field of ["createdAt", "updatedAt"] as const) {
    const value = record[field];
    if (!(value instanceof Date) || !Number.isFinite(value.getTime()))
      throw new TypeError(`finalize: record.${field} must be a valid Date`);
  }
  return [
    record.id,
    record.key,
    record.status,
    record.driverType,
    record.identity,
    record.fingerprint,
    record.codec,
    checkpoint.resumeId,
    checkpoint.displayId ?? null,
    checkpoint.data === undefined ? null : JSON.stringify(checkpoint.data),
    // ISO 8601 in UTC: the same instant `pg` would send for the Date, without its local-time formatting.
    record.createdAt.toISOString(),
    record.updatedAt.toISOString(),
  ];
}

/**
 * SQL of a segment's `segmentTag` from its bytes `data`: the first four bytes of its SHA-256 as a
 * big-endian unsigned integer, modulo `SEGMENT_CHECKSUM_MODULUS`.
 */
export function segmentTagSql(data: string): string {
  const h = `sha256(${data})`;
  return `((get_byte(${h}, 0)::bigint << 24) | (get_byte(${h}, 1)::bigint << 16) | (get_byte(${h}, 2)::bigint << 8) | get_byte(${h}, 3)::bigint) % ${SEGMENT_CHECKSUM_MODULUS}`;
}
