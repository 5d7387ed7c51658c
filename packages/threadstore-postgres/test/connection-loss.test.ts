import { afterAll, describe, expect, it } from "vitest";
import pg from "pg";
import { DriverError, ErrCode, findError } from "@adaptor/errors";
import { PostgresThreadStore } from "@adaptor/threadstore-postgres";
import { PG_URL, freshSchema, skipWithoutServer } from "./support/pg-env.js";

// A connection the server ends while the store has it checked out for a transaction (a restart,
// a failover, pg_terminate_backend) must fail that operation with an ordinary DriverError, not
// crash the host with an unhandled 'error' event of the pg client.
if (!PG_URL) {
  skipWithoutServer("PostgresThreadStore connection loss");
} else {
  const url = PG_URL;
  const admin = new pg.Pool({ connectionString: url, max: 2 });
  afterAll(() => admin.end());

  /**
   * A pool whose next checked-out client has its backend terminated by the server just before the
   * transaction's second statement: the client is idle inside the transaction when it learns
   * the connection is gone, exactly when no query of its own can take the error.
   */
  function poolTerminatingNextTransaction(): { pool: pg.Pool; terminated: Promise<number>; unheard: unknown[] } {
    /** 'error' events the client emitted with nobody listening: each one ends a host process. */
    const unheard: unknown[] = [];
    const pool = new pg.Pool({ connectionString: url, max: 2 });
    let report!: (pid: number) => void;
    const terminated = new Promise<number>((resolve) => (report = resolve));
    type Connect = () => Promise<pg.PoolClient>;
    const patched = pool as unknown as { connect: Connect };
    const original = patched.connect;
    patched.connect = async () => {
      // Once only: later calls (also pool.query's, which passes a callback) get the pool's own.
      patched.connect = original;
      const client = await original.call(pool);
      const emit = client.emit.bind(client);
      client.emit = (name: string | symbol, ...args: unknown[]): boolean => {
        if (name === "error" && client.listenerCount("error") === 0) unheard.push(args[0]);
        return emit(name, ...args);
      };
      const query = client.query.bind(client) as (...args: unknown[]) => Promise<unknown>;
      let calls = 0;
      (client as unknown as { query: (...args: unknown[]) => Promise<unknown> }).query = async (...args: unknown[]) => {
        if (++calls === 2) {
          const pid = (client as unknown as { processID: number }).processID;
          // Only 'end' is awaited here: a listener for 'error' would hide the fault under test.
          const ended = new Promise<void>((resolve) => client.once("end", () => resolve()));
          await admin.query("SELECT pg_terminate_backend($1)", [pid]);
          await Promise.race([ended, new Promise((r) => setTimeout(r, 10_000))]);
          report(pid);
        }
        return query(...args);
      };
      return client;
    };
    return { pool, terminated, unheard };
  }

  describe("PostgresThreadStore when the server ends a checked-out connection", () => {
    it("a backend terminated mid-transaction fails the operation with DriverError SERVICE_UNAVAILABLE; the host survives and the next call works", async () => {
      const schema = freshSchema("conn_loss");
      const setup = new PostgresThreadStore({ pool: admin, schema });
      await setup.migrate();
      const { pool, terminated, unheard } = poolTerminatingNextTransaction();
      const store = new PostgresThreadStore({ pool, schema });
      try {
        const err = await store.deleteThread("k1").catch((e: unknown) => e);
        expect(await terminated).toBeGreaterThan(0);
        expect(unheard).toEqual([]);
        expect(findError(err, DriverError)?.code).toBe(ErrCode.ServiceUnavailable);
        // The broken client was not returned to the pool: the store goes on with a new connection.
        expect(await store.deleteThread("k1")).toEqual({ records: 0, approvals: 0 });
        expect(await store.listThreads({})).toMatchObject({ threads: [] });
      } finally {
        await store.close();
        await pool.end();
        await admin.query(`DROP SCHEMA "${schema}" CASCADE`);
      }
    });
  });
}
