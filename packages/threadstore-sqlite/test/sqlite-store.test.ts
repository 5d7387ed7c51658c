import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import Database from "better-sqlite3";
import { DriverError, ErrCode, findError, isError } from "@adaptor/errors";
import { BusyError, ErrBusy, segmentSummaryAfter } from "@adaptor/threadstore";
import { SqliteThreadStore } from "@adaptor/threadstore-sqlite";

const dir = mkdtempSync(join(tmpdir(), "adaptor-sqlite-unit-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let n = 0;
const file = () => join(dir, `store-${n++}.db`);

describe("SqliteThreadStore", () => {
  it("needs exactly one of path and database (TypeError)", () => {
    expect(() => new SqliteThreadStore({})).toThrow(TypeError);
    const database = new Database(":memory:");
    expect(() => new SqliteThreadStore({ path: file(), database })).toThrow(TypeError);
    database.close();
  });

  it("opens the file in WAL mode and creates its tables (records, leases, session state and its segments)", async () => {
    const path = file();
    await new SqliteThreadStore({ path }).close();
    const db = new Database(path, { readonly: true });
    expect(db.pragma("journal_mode", { simple: true })).toBe("wal");
    const tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").pluck().all();
    expect(tables).toEqual([
      "adaptor_pending_approvals",
      "adaptor_thread_leases",
      "adaptor_thread_session_segments",
      "adaptor_thread_sessions",
      "adaptor_threads",
    ]);
    db.close();
  });

  it("leaves a caller-owned database open on close()", async () => {
    const database = new Database(file());
    const store = new SqliteThreadStore({ database });
    await store.close();
    expect(database.open).toBe(true);
    expect(database.prepare("SELECT count(*) FROM adaptor_threads").pluck().get()).toBe(0);
    database.close();
  });

  it("two stores on one file share leases and tokens", async () => {
    const path = file();
    const a = new SqliteThreadStore({ path });
    const b = new SqliteThreadStore({ path });
    const lease = await a.acquireLease("t", "owner-a", 60_000);
    await expect(b.acquireLease("t", "owner-b", 60_000)).rejects.toBeInstanceOf(BusyError);
    await a.releaseLease(lease);
    expect((await b.acquireLease("t", "owner-b", 60_000)).token).toBe(lease.token + 1);
    await a.close();
    await b.close();
  });

  it("a write lock held past busyTimeoutMs is a backend failure (DriverError TIMEOUT), not ErrBusy", async () => {
    const path = file();
    const store = new SqliteThreadStore({ path, busyTimeoutMs: 50 });
    const other = new Database(path);
    other.exec("BEGIN IMMEDIATE");
    try {
      const started = Date.now();
      const err = await store.acquireLease("t", "owner-a", 60_000).catch((e: unknown) => e);
      expect(Date.now() - started).toBeGreaterThanOrEqual(40);
      expect(isError(err, ErrBusy)).toBe(false);
      const driverError = findError(err, DriverError);
      expect(driverError?.code).toBe(ErrCode.Timeout);
      expect(driverError?.message).toBe("[TIMEOUT] acquireLease: threadstore-sqlite (database is locked)");
      expect((driverError?.cause as { code?: string }).code).toBe("SQLITE_BUSY");
    } finally {
      other.exec("ROLLBACK");
      other.close();
      await store.close();
    }
  });

  it("a file from before record revisions is upgraded on open: old records read as revision 1 and count on from there", async () => {
    const path = file();
    const old = new Database(path);
    old.exec(`CREATE TABLE adaptor_threads (
      id TEXT PRIMARY KEY, key TEXT NOT NULL, status TEXT NOT NULL CHECK (status IN ('active', 'archived')),
      driver_type TEXT NOT NULL, identity TEXT NOT NULL, fingerprint TEXT NOT NULL, codec TEXT NOT NULL,
      resume_id TEXT NOT NULL, display_id TEXT, data_json TEXT, created_at_ms INTEGER NOT NULL, updated_at_ms INTEGER NOT NULL
    ) STRICT`);
    old
      .prepare(
        "INSERT INTO adaptor_threads VALUES ('old-id', 'old-key', 'active', 'claude', 'u', 'f', 'json/v1', 'r-old', NULL, NULL, 0, 0)",
      )
      .run();
    old.close();
    const store = new SqliteThreadStore({ path });
    const before = await store.resolve({ key: "old-key" });
    expect(before?.revision).toBe(1);
    expect(before?.checkpoint).toStrictEqual({ resumeId: "r-old" });
    const { revision: _revision, ...draft } = before!;
    expect((await store.finalize({ leases: [], record: draft })).revision).toBe(2);
    expect((await store.resolve({ id: "old-id" }))?.revision).toBe(2);
    await store.close();
    // Opening an upgraded file again changes nothing.
    const again = new SqliteThreadStore({ path });
    expect((await again.resolve({ id: "old-id" }))?.revision).toBe(2);
    await again.close();
  });

  it("a file from before segment tags is upgraded on open (tag before data); its old segments are tagged at the first summary, which then adds up", async () => {
    const path = file();
    const old = new Database(path);
    old.exec(`CREATE TABLE adaptor_thread_session_segments (
      record_id TEXT NOT NULL, seq INTEGER NOT NULL, data BLOB NOT NULL, PRIMARY KEY (record_id, seq)) STRICT`);
    const segments = [Buffer.from("first"), Buffer.from("second!")];
    for (const [seq, data] of segments.entries())
      old.prepare("INSERT INTO adaptor_thread_session_segments VALUES ('rec', ?, ?)").run(seq, data);
    old.close();
    const store = new SqliteThreadStore({ path });
    const db = new Database(path, { readonly: true });
    expect(db.prepare("SELECT name FROM pragma_table_info('adaptor_thread_session_segments')").pluck().all()).toEqual([
      "record_id",
      "seq",
      "tag",
      "data",
    ]);
    db.close();
    expect(await store.sessionState!.summary!("rec")).toStrictEqual(segmentSummaryAfter(undefined, { mode: "replace", segments }));
    expect((await store.sessionState!.segments("rec")).map((s) => Buffer.from(s).toString())).toEqual(["first", "second!"]);
    await store.close();
  });

  it("summary is computed from the segment rows, not the session row's counters: a row deleted, shortened or two rows swapped show in it", async () => {
    const path = file();
    const store = new SqliteThreadStore({ path });
    const record = { id: "rec", key: "k", status: "active" as const, driverType: "d", identity: "", fingerprint: "f", codec: "c" };
    const segments = ["aaaa", "bbbb", "cccc"].map((t) => Buffer.from(t));
    await store.finalize({
      leases: [],
      record: { ...record, checkpoint: { resumeId: "s" }, createdAt: new Date(0), updatedAt: new Date(0) },
      sessionState: { mode: "replace", segments, manifest: {}, limitBytes: 100 },
    });
    const honest = segmentSummaryAfter(undefined, { mode: "replace", segments });
    expect(await store.sessionState!.summary!("rec")).toStrictEqual(honest);
    const db = new Database(path);
    const damage = [
      "UPDATE adaptor_thread_session_segments SET data = substr(data, 1, 3) WHERE seq = 1",
      // Two rows of one length swap places (their tags go with them).
      `UPDATE adaptor_thread_session_segments SET seq = -1 WHERE seq = 0;
       UPDATE adaptor_thread_session_segments SET seq = 0 WHERE seq = 1;
       UPDATE adaptor_thread_session_segments SET seq = 1 WHERE seq = -1;`,
      "DELETE FROM adaptor_thread_session_segments WHERE seq = 0",
    ];
    for (const [i, statement] of damage.entries()) {
      const copy = file();
      await db.backup(copy);
      const damaged = new Database(copy);
      damaged.exec(statement);
      damaged.close();
      const other = new SqliteThreadStore({ path: copy });
      expect({ i, counters: await other.sessionState!.read("rec") }).toMatchObject({ i, counters: { segments: 3, bytes: 12 } });
      expect({ i, same: await other.sessionState!.summary!("rec") }).not.toStrictEqual({ i, same: honest });
      await other.close();
    }
    db.close();
    await store.close();
  });

  it("a session-state row whose manifest is not JSON (a damaged row) reads as its raw text, not as a backend failure", async () => {
    const path = file();
    const store = new SqliteThreadStore({ path });
    const now = new Date();
    const record = {
      id: "r-damaged",
      key: "k",
      status: "active" as const,
      driverType: "d",
      identity: "",
      fingerprint: "f",
      codec: "json/v1",
      checkpoint: { resumeId: "s" },
      createdAt: now,
      updatedAt: now,
    };
    await store.finalize({
      leases: [],
      record,
      sessionState: { mode: "replace", segments: [new Uint8Array([1])], manifest: { v: 1 }, limitBytes: 10 },
    });
    const db = new Database(path);
    db.prepare("UPDATE adaptor_thread_sessions SET manifest_json = ? WHERE record_id = ?").run('{"v":1,"files":[{"na', "r-damaged");
    db.close();
    expect(await store.sessionState!.read("r-damaged")).toStrictEqual({ manifest: '{"v":1,"files":[{"na', segments: 1, bytes: 1 });
    await store.close();
  });

  it("calls after close() fail with DriverError DEVICE_DISCONNECTED", async () => {
    const store = new SqliteThreadStore({ path: file() });
    await store.close();
    const err = await store.resolve({ id: "x" }).catch((e: unknown) => e);
    expect(findError(err, DriverError)?.code).toBe(ErrCode.DeviceDisconnected);
    expect((err as Error).message).toBe("[DEVICE_DISCONNECTED] resolve: threadstore-sqlite (store closed)");
  });
});
