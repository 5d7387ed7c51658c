import { afterAll } from "vitest";
import pg from "pg";
import { describeSegmentsFromConformance, describeThreadStoreConformance } from "@adaptor/threadstore/testing";
import { PostgresThreadStore } from "@adaptor/threadstore-postgres";
import { PG_URL, freshSchema, skipWithoutServer } from "./support/pg-env.js";

// One pool per file; every test gets a fresh schema (migrated, then dropped). Expiry is judged by
// the database clock, so the kit waits in real time with short TTLs.
if (!PG_URL) {
  skipWithoutServer("ThreadStore conformance: postgres");
} else {
  const pool = new pg.Pool({ connectionString: PG_URL, max: 12 });
  afterAll(() => pool.end());

  describeThreadStoreConformance(
    "postgres",
    async ({ faults, broken }) => {
      if (broken) {
        // Nothing listens on port 1: every call fails to connect (ECONNREFUSED).
        return { store: new PostgresThreadStore({ connectionString: "postgres://postgres@127.0.0.1:1/postgres", faults }) };
      }
      const schema = freshSchema("kit");
      const store = new PostgresThreadStore({ pool, schema, faults });
      await store.migrate();
      return {
        store,
        cleanup: async () => void (await pool.query(`DROP SCHEMA "${schema}" CASCADE`)),
        // A second instance on the same schema with its own connections, as a restarted process opens it.
        reopen: async () => new PostgresThreadStore({ connectionString: PG_URL, schema }),
        // A lost segment row, deleted beneath the store.
        loseSegment: async (recordId, index) =>
          void (await pool.query(
            `DELETE FROM "${schema}".adaptor_thread_session_segments WHERE record_id = $1 AND seq =
               (SELECT seq FROM "${schema}".adaptor_thread_session_segments WHERE record_id = $1 ORDER BY seq LIMIT 1 OFFSET $2)`,
            [recordId, index],
          )),
      };
    },
    { sessionState: true, releaseLeases: true },
  );

  describeSegmentsFromConformance("postgres", async ({ faults }) => {
    const schema = freshSchema("kit");
    const store = new PostgresThreadStore({ pool, schema, faults });
    await store.migrate();
    return { store, cleanup: async () => void (await pool.query(`DROP SCHEMA "${schema}" CASCADE`)) };
  });
}
