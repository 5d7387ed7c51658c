// What only the PostgreSQL backend does: one writer per key across processes (a race of two
// writer processes, a SIGKILLed holder), live tails in another process woken by LISTEN/NOTIFY,
// replay from any sequence, retention, and who owns the pool.
import { spawn, type ChildProcess } from "node:child_process";
import { fileURLToPath } from "node:url";
import { createInterface, type Interface } from "node:readline";
import { afterAll, describe, expect, it } from "vitest";
import pg from "pg";
import { InvalidOptionError, findError, isError } from "@adaptor/errors";
import {
  AppendsPendingError,
  ErrAppendsPending,
  ErrEventLogLocked,
  ErrJSONLEventBackendClosed,
  EventLogCorruptError,
  EventLogLockedError,
  type EventLogWriter,
  type RecordedEvent,
} from "@adaptor/sessionrecorder";
import { PostgresEventBackend } from "@adaptor/sessionrecorder-postgres";
import { PG_URL, freshSchema, skipWithoutServer } from "./support/pg-env.js";

const packageDir = fileURLToPath(new URL("..", import.meta.url));

if (!PG_URL) {
  skipWithoutServer("PostgresEventBackend");
} else {
  const url = PG_URL;
  const admin = new pg.Pool({ connectionString: url, max: 3 });
  const children = new Set<ChildProcess>();
  const backends: PostgresEventBackend[] = [];
  afterAll(async () => {
    for (const child of children) child.kill("SIGKILL");
    for (const backend of backends) await backend.close();
    await admin.end();
  });

  async function fresh(prefix: string): Promise<{ schema: string; backend: PostgresEventBackend }> {
    const schema = freshSchema(prefix);
    const backend = new PostgresEventBackend({ connectionString: url, schema });
    backends.push(backend);
    await backend.migrate();
    return { schema, backend };
  }

  /** Starts support/session-process.ts; its stdout as lines. */
  function start(args: string[]): { child: ChildProcess; lines: Interface; exited: Promise<number | null> } {
    const child = spawn(process.execPath, ["--conditions=source", "--import", "tsx", "test/support/session-process.ts", ...args], {
      cwd: packageDir,
      stdio: ["pipe", "pipe", "inherit"],
    });
    children.add(child);
    const exited = new Promise<number | null>((resolve) => child.once("exit", resolve));
    return { child, lines: createInterface({ input: child.stdout! }), exited };
  }

  /** The next line a process prints. */
  function nextLine(lines: Interface): Promise<string> {
    return new Promise((resolve) => lines.once("line", resolve));
  }

  async function replayAll(backend: PostgresEventBackend, key: string, after?: number): Promise<RecordedEvent[]> {
    const out: RecordedEvent[] = [];
    for await (const record of backend.replay(key, after === undefined ? {} : { after })) out.push(record);
    return out;
  }

  describe("PostgresEventBackend across processes", () => {
    it("two writer processes racing on one key: exactly one wins each race, the log is 1..200 with no sequence twice, and each holder's appends are contiguous", async () => {
      const { schema, backend } = await fresh("rec_race");
      const procs = ["a", "b"].map((name) => ({ name, ...start(["race", url, schema, "contended", name, "5", "20"]) }));
      const outputs = procs.map((p) => {
        const seen: string[] = [];
        p.lines.on("line", (line) => seen.push(line));
        return seen;
      });
      // Both connect first; then both are told to go at once. The winner holds the key until both
      // have reported their first try, so the race has exactly one winner whatever the timing.
      await Promise.all(procs.map((p) => nextLine(p.lines)));
      const firsts = procs.map((p) => nextLine(p.lines));
      for (const p of procs) p.child.stdin!.write("go\n");
      expect((await Promise.all(firsts)).sort()).toEqual(["refused", "won"]);
      for (const p of procs) p.child.stdin!.write("release\n");
      expect(await Promise.all(procs.map((p) => p.exited))).toEqual([0, 0]);
      for (const seen of outputs) expect(seen.at(-1)).toBe("done");
      const records = await replayAll(backend, "contended");
      expect(records.map((r) => r.sequence)).toEqual(Array.from({ length: 200 }, (_, i) => i + 1));
      const { rows } = await admin.query<{ n: string; d: string }>(
        `SELECT count(*)::text AS n, count(DISTINCT sequence)::text AS d FROM "${schema}".adaptor_session_events`,
      );
      expect(rows[0]).toEqual({ n: "200", d: "200" });
      // One holder at a time: the records come in runs of 20 from one writer's round, i = 0..19.
      for (let start = 0; start < 200; start += 20) {
        const run = records.slice(start, start + 20).map((r) => r.event as { writer: string; round: number; i: number });
        expect(run.map((e) => e.i)).toEqual(Array.from({ length: 20 }, (_, i) => i));
        expect(new Set(run.map((e) => `${e.writer}/${e.round}`)).size).toBe(1);
      }
    });

    it("a writer process SIGKILLed while holding its key: the key is refused while it lives and free once it is gone (no lock file, no expiry), the sequence continues", async () => {
      const { schema, backend } = await fresh("rec_kill");
      const holder = start(["hold", url, schema, "k"]);
      expect(await nextLine(holder.lines)).toBe("holding");
      const refused = await backend.openWriter("k").catch((e: unknown) => e);
      expect(isError(refused, ErrEventLogLocked)).toBe(true);
      expect(findError(refused, EventLogLockedError)?.holder?.pid).toBe(holder.child.pid);
      holder.child.kill("SIGKILL");
      await holder.exited;
      // The server sees the connection close on its own schedule: poll (a safety net, not a timing assertion).
      let writer: EventLogWriter | undefined;
      const deadline = Date.now() + 30_000;
      while (!writer) {
        writer = await backend.openWriter("k").catch((e: unknown) => {
          if (!isError(e, ErrEventLogLocked) || Date.now() > deadline) throw e;
          return new Promise<undefined>((r) => setTimeout(() => r(undefined), 50));
        });
      }
      expect(writer.lastSequence).toBe(1);
      expect((await writer.append({ from: "successor" })).sequence).toBe(2);
      await writer.close();
      expect((await replayAll(backend, "k")).map((r) => r.event)).toEqual([{ from: "holder" }, { from: "successor" }]);
    });

    it("a follower in another process sees every append live (each appended only after it saw the one before), and a follower from sequence 5 replays 6.. then goes on live", async () => {
      const { schema, backend } = await fresh("rec_follow");
      const follower = start(["follow", url, schema, "live", "0"]);
      const followed: RecordedEvent[] = [];
      const arrivals: ((r: RecordedEvent) => void)[] = [];
      follower.lines.on("line", (line) => {
        const record = JSON.parse(line) as RecordedEvent;
        followed.push(record);
        arrivals.shift()?.(record);
      });
      const writer = await backend.openWriter("live");
      for (let n = 1; n <= 8; n++) {
        const arrived = new Promise<RecordedEvent>((resolve) => arrivals.push(resolve));
        const record = await writer.append({ n });
        expect(await arrived).toEqual(record);
      }
      const late = start(["follow", url, schema, "live", "5"]);
      const lateSeen: number[] = [];
      late.lines.on("line", (line) => lateSeen.push((JSON.parse(line) as RecordedEvent).sequence));
      await writer.append({ stop: true });
      expect(await follower.exited).toBe(0);
      expect(await late.exited).toBe(0);
      await writer.close();
      expect(followed.map((r) => r.sequence)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9]);
      expect(lateSeen).toEqual([6, 7, 8, 9]);
      expect((await replayAll(backend, "live", 7)).map((r) => r.event)).toEqual([{ n: 8 }, { stop: true }]);
    });
  });

  describe("PostgresEventBackend in one process", () => {
    it('follow() keeps going when its LISTEN connection is terminated by the server: appends made meanwhile arrive, none twice (on a key named "error")', async () => {
      const { backend } = await fresh("rec_relisten");
      const writer = await backend.openWriter("error");
      const controller = new AbortController();
      const got: number[] = [];
      let wake: (() => void) | undefined;
      const following = (async () => {
        for await (const record of backend.follow("error", { signal: controller.signal })) {
          got.push(record.sequence);
          wake?.();
        }
      })().catch((e: unknown) => e);
      const reach = async (n: number): Promise<void> => {
        while (got.length < n) await new Promise<void>((resolve) => (wake = resolve));
      };
      await writer.append(1);
      await reach(1);
      const { rowCount } = await admin.query(
        `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE query LIKE 'LISTEN "adaptor_sessions_%' AND pid <> pg_backend_pid() AND backend_type = 'client backend'`,
      );
      expect(rowCount).toBeGreaterThan(0);
      await writer.append(2);
      await writer.append(3);
      await reach(3);
      controller.abort(new Error("done"));
      expect(((await following) as Error).message).toBe("done");
      expect(got).toEqual([1, 2, 3]);
      await writer.close();
    });

    it("a record deleted by hand is reported as a sequence gap after the records before it, at the end of the log too; nothing is skipped", async () => {
      const { schema, backend } = await fresh("rec_gap");
      const writer = await backend.openWriter("k");
      for (let n = 1; n <= 5; n++) await writer.append(n);
      await writer.close();
      await admin.query(`DELETE FROM "${schema}".adaptor_session_events WHERE key = 'k' AND sequence IN (3, 5)`);
      const seen: number[] = [];
      const err = await (async () => {
        for await (const r of backend.replay("k")) seen.push(r.sequence);
      })().catch((e: unknown) => e);
      expect(seen).toEqual([1, 2]);
      expect(findError(err, EventLogCorruptError)).toMatchObject({ key: "k", kind: "sequence-gap", expectedSequence: 3, foundSequence: 4 });
      const tail = await replayAll(backend, "k", 3).catch((e: unknown) => e);
      expect(findError(tail, EventLogCorruptError)).toMatchObject({ kind: "sequence-gap", expectedSequence: 5, foundSequence: undefined });
    });

    it("retention: prune(olderThanMs) deletes logs not written to for that long, never one a live writer holds", async () => {
      const { schema, backend } = await fresh("rec_prune");
      for (const key of ["old-a", "old-b", "held"]) {
        const writer = await backend.openWriter(key);
        await writer.append({ key });
        if (key !== "held") await writer.close();
      }
      await admin.query(`UPDATE "${schema}".adaptor_session_logs SET updated_at = now() - interval '2 days'`);
      const fresh2 = await backend.openWriter("recent");
      await fresh2.append("new");
      await fresh2.close();
      expect(await backend.prune(24 * 3_600_000)).toBe(2);
      expect(await replayAll(backend, "old-a")).toEqual([]);
      expect((await replayAll(backend, "held")).map((r) => r.event)).toEqual([{ key: "held" }]);
      expect((await replayAll(backend, "recent")).map((r) => r.event)).toEqual(["new"]);
      const { rows } = await admin.query(`SELECT count(*)::int AS n FROM "${schema}".adaptor_session_events WHERE key LIKE 'old-%'`);
      expect(rows[0]).toEqual({ n: 0 });
      await expect(backend.prune(-1)).rejects.toThrow(RangeError);
    });

    it("appends a row lock holds: close({ signal }) ends on the abort with AppendsPendingError naming them; once they answer, close() completes and the key is free", async () => {
      const { schema, backend } = await fresh("rec_close");
      const writer = await backend.openWriter("k");
      await writer.append({ n: 1 });
      const locker = await admin.connect();
      try {
        await locker.query("BEGIN");
        await locker.query(`SELECT 1 FROM "${schema}".adaptor_session_logs WHERE key = 'k' FOR UPDATE`);
        const appends = [writer.append({ n: 2 }), writer.append({ n: 3 })];
        // The first of them waits on the row lock (a lock not granted); the second is queued behind it.
        while ((await admin.query("SELECT 1 FROM pg_locks WHERE NOT granted")).rowCount === 0) await new Promise((r) => setTimeout(r, 20));
        const host = new AbortController();
        const closing = backend.close({ signal: host.signal }).catch((e: unknown) => e);
        const reason = new Error("host gave up on closing");
        host.abort(reason);
        const error = await closing;
        expect(isError(error, ErrAppendsPending)).toBe(true);
        expect(findError(error, AppendsPendingError)?.pending).toEqual([{ key: "k", first: 2, last: 3 }]);
        expect((error as Error).cause).toBe(reason);
        expect(isError(await backend.openWriter("other").catch((e: unknown) => e), ErrJSONLEventBackendClosed)).toBe(true);
        await locker.query("COMMIT");
        expect((await Promise.all(appends)).map((r) => r.sequence)).toEqual([2, 3]);
        await backend.close();
      } finally {
        locker.release();
      }
      const after = new PostgresEventBackend({ connectionString: url, schema });
      backends.push(after);
      const next = await after.openWriter("k");
      expect(next.lastSequence).toBe(3);
      await next.close();
    });

    it("close() leaves a pool it was given open and ends its own; bad options are refused naming the field", async () => {
      const pool = new pg.Pool({ connectionString: url, max: 2 });
      const schema = freshSchema("rec_pool");
      const backend = new PostgresEventBackend({ pool, schema });
      await backend.migrate();
      const writer = await backend.openWriter("k");
      await writer.append(1);
      await backend.close();
      expect((await pool.query("SELECT 1 AS one")).rows).toEqual([{ one: 1 }]);
      await pool.end();
      const field = (options: unknown): string | undefined => {
        try {
          new PostgresEventBackend(options as never);
        } catch (error) {
          return findError(error, InvalidOptionError)?.field;
        }
        return undefined;
      };
      expect(field({})).toBe("pool");
      expect(field({ connectionString: url, pool })).toBe("pool");
      expect(field({ connectionString: url, schema: "bad-name" })).toBe("schema");
      expect(field({ connectionString: url, maxRecordBytes: 0 })).toBe("maxRecordBytes");
      expect(field({ connectionString: url, schemas: "x" })).toBe("schemas");
    });
  });
}

describe("PostgresEventBackend options", () => {
  it("refuses a malformed connectionString at construction, naming the field, never quoting the password", () => {
    for (const connectionString of ["postgres://u:SuperSecretPw42@127.0.0.1:notaport/db", "postgres://u:SuperSecretPw42@[::1", ""]) {
      let refused: unknown;
      try {
        new PostgresEventBackend({ connectionString });
      } catch (error) {
        refused = error;
      }
      expect(findError(refused, InvalidOptionError)?.field).toBe("connectionString");
      expect(String((refused as Error).message)).not.toContain("SuperSecretPw42");
    }
  });
});
