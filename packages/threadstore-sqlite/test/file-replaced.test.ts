import { copyFileSync, linkSync, mkdtempSync, renameSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import Database from "better-sqlite3";
import { DriverError, ErrCode, errorCode, findError, isError } from "@adaptor/errors";
import { ErrLeaseLost, LeaseLostError, type ThreadRecordDraft } from "@adaptor/threadstore";
import { SqliteThreadStore } from "@adaptor/threadstore-sqlite";

const dir = mkdtempSync(join(tmpdir(), "adaptor-sqlite-swap-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let n = 0;
const file = () => join(dir, `store-${n++}.db`);

function draft(key: string, resumeId: string): ThreadRecordDraft {
  const now = new Date();
  return {
    id: crypto.randomUUID(),
    key,
    status: "active",
    driverType: "claude",
    identity: "acme",
    fingerprint: "fp",
    codec: "json/v1",
    checkpoint: { resumeId },
    createdAt: now,
    updatedAt: now,
  };
}

/** A copy of the database at `path` as it is now (its WAL checkpointed into it first). */
function snapshot(path: string): string {
  const db = new Database(path);
  db.pragma("wal_checkpoint(TRUNCATE)");
  db.close();
  copyFileSync(path, `${path}.copy`);
  return `${path}.copy`;
}

/** Replaces the file at `path` as a whole with `copy` (renamed over it), its -wal and -shm deleted. */
function replaceFile(path: string, copy = snapshot(path)): void {
  renameSync(copy, path);
  rmSync(`${path}-wal`, { force: true });
  rmSync(`${path}-shm`, { force: true });
}

/** The `DriverError` (`DEVICE_DISCONNECTED`) on `err`'s chain that says the file changed. */
function fileChange(err: unknown): string | undefined {
  const driverError = findError(err, DriverError);
  if (driverError?.code !== ErrCode.DeviceDisconnected) return undefined;
  return driverError.cause instanceof Error ? driverError.cause.message : undefined;
}

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (err) {
    return err;
  }
  throw new Error("expected the call to reject, but it resolved");
}

describe("SqliteThreadStore whose database file is replaced under it", () => {
  it("a file replaced under a running turn: its renew and finalize fail with LeaseLostError and write nothing, while a new store takes the lease in the new file", async () => {
    const path = file();
    const running = new SqliteThreadStore({ path });
    const seed = draft("k-swap", "seed");
    const seedLease = await running.acquireLease("k-swap", "host-a", 60_000);
    await running.finalize({ leases: [seedLease], record: seed, releaseLeases: true });
    const copy = snapshot(path); // the file as it was between two turns
    const lease = await running.acquireLease("k-swap", "host-a", 60_000); // turn A starts

    replaceFile(path, copy);

    const renewLost = await rejection(running.renewLease(lease, 60_000));
    expect(renewLost).toBeInstanceOf(LeaseLostError);
    expect(isError(renewLost, ErrLeaseLost)).toBe(true);
    expect(fileChange(renewLost)).toMatch(/database file .* was replaced by another file/);
    const turnA = draft("k-swap", "turn A");
    const finalizeLost = await rejection(running.finalize({ leases: [lease], record: turnA, archiveId: seed.id }));
    expect(finalizeLost).toBeInstanceOf(LeaseLostError);
    expect((finalizeLost as LeaseLostError).target).toBe("k-swap");
    expect(errorCode(finalizeLost)).toBe(ErrCode.DeviceDisconnected);

    // Another host opens the file now at the path, where the key is free (turn A's lease is not in
    // it) and takes the lease, with turn A's very token: turn A must not have committed anywhere.
    const other = new SqliteThreadStore({ path });
    const taken = await other.acquireLease("k-swap", "host-b", 60_000);
    expect(taken.token).toBe(lease.token);
    const turnB = draft("k-swap", "turn B");
    await other.finalize({ leases: [taken], record: turnB, archiveId: seed.id });
    expect((await other.resolve({ key: "k-swap" }))?.checkpoint.resumeId).toBe("turn B");
    expect(await other.resolve({ id: turnA.id })).toBeUndefined();

    // The stale store refuses everything from now on, reads included (they would read the old file).
    const acquireErr = await rejection(running.acquireLease("k-other", "host-a", 60_000));
    expect(acquireErr).toBeInstanceOf(DriverError);
    expect((acquireErr as DriverError).code).toBe(ErrCode.DeviceDisconnected);
    expect((acquireErr as DriverError).op).toBe("acquireLease");
    expect(fileChange(await rejection(running.resolve({ key: "k-swap" })))).toMatch(/replaced by another file/);
    expect(fileChange(await rejection(running.finalize({ leases: [], record: draft("k-free", "x") })))).toMatch(/replaced/);
    await running.close();
    await other.close();
  });

  it("a file deleted under the store: acquireLease fails with DEVICE_DISCONNECTED instead of granting a lease in the deleted file", async () => {
    const path = file();
    const store = new SqliteThreadStore({ path });
    await store.acquireLease("k-gone", "host-a", 60_000);
    for (const suffix of ["", "-wal", "-shm"]) rmSync(`${path}${suffix}`, { force: true });
    const err = await rejection(store.acquireLease("k-gone-2", "host-b", 60_000));
    expect(err).toBeInstanceOf(DriverError);
    expect((err as DriverError).code).toBe(ErrCode.DeviceDisconnected);
    expect(fileChange(err)).toMatch(/was deleted after this store opened it/);
    await store.close();
  });

  it("a file only renamed away and back is still the opened file: the store keeps working", async () => {
    const path = file();
    const store = new SqliteThreadStore({ path });
    const lease = await store.acquireLease("k-moved", "host-a", 60_000);
    renameSync(path, `${path}.moved`);
    renameSync(`${path}.moved`, path);
    expect((await store.renewLease(lease, 60_000)).token).toBe(lease.token);
    const rec = draft("k-moved", "after move");
    await store.finalize({ leases: [lease], record: rec });
    expect((await store.resolve({ key: "k-moved" }))?.id).toBe(rec.id);
    await store.close();
  });

  it("an adopted database is watched through its file too; an in-memory one has no file to watch", async () => {
    const path = file();
    const database = new Database(path);
    const adopted = new SqliteThreadStore({ database });
    const lease = await adopted.acquireLease("k-adopted", "host-a", 60_000);
    replaceFile(path);
    expect(await rejection(adopted.renewLease(lease, 60_000))).toBeInstanceOf(LeaseLostError);
    await adopted.close();
    database.close();

    const memory = new Database(":memory:");
    const inMemory = new SqliteThreadStore({ database: memory });
    const held = await inMemory.acquireLease("k-memory", "host-a", 60_000);
    expect((await inMemory.renewLease(held, 60_000)).token).toBe(held.token);
    await inMemory.close();
    memory.close();
  });
});

describe("SqliteThreadStore whose file has a second name, or whose -wal or -shm is deleted under it", () => {
  it("a file with a hard link is refused at open, by either name: DriverError DEVICE_DISCONNECTED, op open", () => {
    const path = file();
    new SqliteThreadStore({ path }).close();
    linkSync(path, `${path}.second-name`);
    for (const name of [path, `${path}.second-name`]) {
      let err: unknown;
      try {
        new SqliteThreadStore({ path: name });
      } catch (error) {
        err = error;
      }
      expect(err).toBeInstanceOf(DriverError);
      expect(err).toMatchObject({ op: "open", code: ErrCode.DeviceDisconnected });
      expect((err as DriverError).cause).toBeInstanceOf(Error);
      expect(((err as DriverError).cause as Error).message).toMatch(/has 2 names \(hard links\)/);
    }
  });

  it("a hard link made under a running turn: renew and finalize fail with LeaseLostError and write nothing", async () => {
    const path = file();
    const running = new SqliteThreadStore({ path });
    const lease = await running.acquireLease("k-link", "host-a", 60_000);
    linkSync(path, `${path}.second-name`);
    const renewLost = await rejection(running.renewLease(lease, 60_000));
    expect(renewLost).toBeInstanceOf(LeaseLostError);
    expect(fileChange(renewLost)).toMatch(/was given a second name \(a hard link; 2 names\) after this store opened it/);
    const turn = draft("k-link", "turn A");
    expect(await rejection(running.finalize({ leases: [lease], record: turn }))).toBeInstanceOf(LeaseLostError);
    await running.close();
    rmSync(`${path}.second-name`);
    const reader = new SqliteThreadStore({ path });
    expect(await reader.resolve({ key: "k-link" })).toBeUndefined();
    await reader.close();
  });

  it.each(["-wal", "-shm"])(
    "its %s file deleted under a running turn: renew and finalize fail with LeaseLostError naming it",
    async (suffix) => {
      const path = file();
      const running = new SqliteThreadStore({ path });
      const lease = await running.acquireLease("k-journal", "host-a", 60_000);
      rmSync(`${path}${suffix}`);
      const renewLost = await rejection(running.renewLease(lease, 60_000));
      expect(renewLost).toBeInstanceOf(LeaseLostError);
      expect(fileChange(renewLost)).toBe(
        `the database file ${path} had its ${suffix} file deleted after this store opened it: nothing more is read from or written to the old file; open a new store`,
      );
      const finalizeLost = await rejection(running.finalize({ leases: [lease], record: draft("k-journal", "turn A") }));
      expect(finalizeLost).toBeInstanceOf(LeaseLostError);
      expect(fileChange(await rejection(running.acquireLease("k-other", "host-a", 60_000)))).toMatch(new RegExp(`had its ${suffix} file`));
      await running.close();
    },
  );

  it("a symbolic link to the file, another connection's checkpoint and its close leave the store working", async () => {
    const path = file();
    const running = new SqliteThreadStore({ path });
    symlinkSync(path, `${path}.symlink`);
    const viaLink = new SqliteThreadStore({ path: `${path}.symlink` });
    const lease = await viaLink.acquireLease("k-fine", "host-a", 60_000);
    const other = new Database(path);
    other.pragma("wal_checkpoint(TRUNCATE)");
    other.close();
    await running.close();
    expect((await viaLink.renewLease(lease, 60_000)).token).toBe(lease.token);
    const rec = draft("k-fine", "kept");
    await viaLink.finalize({ leases: [lease], record: rec, releaseLeases: true });
    expect((await viaLink.resolve({ key: "k-fine" }))?.id).toBe(rec.id);
    await viaLink.close();
  });
});
