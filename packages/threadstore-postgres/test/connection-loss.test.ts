import { afterAll, describe, expect, it } from "vitest";
import pg from "pg";
import { DriverError, ErrCode, findError } from "@adaptor/errors";
import { terminateNextTransaction } from "@adaptor/testkit";
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

  describe("PostgresThreadStore when the server ends a checked-out connection", () => {
    it("a backend terminated mid-transaction fails the operation with DriverError SERVICE_UNAVAILABLE; the host survives and the next call works", async () => {
      const schema = freshSchema("conn_loss");
      const setup = new PostgresThreadStore({ pool: admin, schema });
      await setup.migrate();
      // The next client the store checks out has its backend terminated before the transaction's second statement.
      const pool = new pg.Pool({ connectionString: url, max: 2 });
      const { terminated, unheard } = terminateNextTransaction(pool, (pid) => admin.query("SELECT pg_terminate_backend($1)", [pid]));
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
