import { afterAll, describe, expect, it } from "vitest";
import pg from "pg";
import { Task, TaskState } from "@a2a-js/sdk";
import { ServerCallContext } from "@a2a-js/sdk/server";
import { DriverError, ErrCode, findError } from "@adaptor/errors";
import { terminateNextTransaction } from "@adaptor/testkit";
import { PostgresTaskStore } from "../src/postgres/index.js";
import { freshSchema, PG_URL, skipWithoutServer } from "../../fleet/test/support/pg.js";

// A connection the server ends while the task store has it checked out for a save (a restart, a
// failover, pg_terminate_backend) must fail that save with an ordinary DriverError, not crash the
// host with an unhandled 'error' event of the pg client.
if (!PG_URL) {
  skipWithoutServer("PostgresTaskStore connection loss");
} else {
  const url = PG_URL;
  const admin = new pg.Pool({ connectionString: url, max: 2 });
  afterAll(() => admin.end());

  describe("PostgresTaskStore when the server ends a checked-out connection", () => {
    it("a backend terminated mid-save fails it with DriverError SERVICE_UNAVAILABLE; the host survives and the next save works", async () => {
      const schema = freshSchema("a2a_conn_loss");
      const setup = new PostgresTaskStore({ pool: admin, schema });
      await setup.migrate();
      // The next client the store checks out has its backend terminated before the transaction's second statement.
      const pool = new pg.Pool({ connectionString: url, max: 2 });
      const { terminated, unheard } = terminateNextTransaction(pool, (pid) => admin.query("SELECT pg_terminate_backend($1)", [pid]));
      const store = new PostgresTaskStore({ pool, schema });
      const context = new ServerCallContext();
      const task = Task.fromJSON({ id: "t1", contextId: "c1", status: { state: "TASK_STATE_WORKING" }, history: [], artifacts: [] });
      try {
        const err = await store.save(task, context).catch((e: unknown) => e);
        expect(await terminated).toBeGreaterThan(0);
        expect(unheard).toEqual([]);
        expect(findError(err, DriverError)?.code).toBe(ErrCode.ServiceUnavailable);
        await store.save(task, context);
        expect((await store.load("t1", context))?.status?.state).toBe(TaskState.TASK_STATE_WORKING);
      } finally {
        await store.close();
        await pool.end();
        await admin.query(`DROP SCHEMA "${schema}" CASCADE`);
      }
    });
  });
}
