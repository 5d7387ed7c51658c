// The shared EventBackend behaviour on PostgreSQL: every test in a fresh schema; `another` is a
// second backend object (its own pool and LISTEN connection) on the same schema.
import { afterAll } from "vitest";
import pg from "pg";
import { describeEventBackendConformance } from "@adaptor/sessionrecorder/testing";
import { PostgresEventBackend } from "@adaptor/sessionrecorder-postgres";
import { PG_URL, freshSchema, skipWithoutServer } from "./support/pg-env.js";

if (!PG_URL) {
  skipWithoutServer("EventBackend conformance: postgres");
} else {
  const url = PG_URL;
  const admin = new pg.Pool({ connectionString: url, max: 2 });
  afterAll(() => admin.end());

  describeEventBackendConformance("postgres", async () => {
    const schema = freshSchema("rec_kit");
    const backend = new PostgresEventBackend({ connectionString: url, schema });
    await backend.migrate();
    return {
      backend,
      another: () => new PostgresEventBackend({ connectionString: url, schema }),
      cleanup: async () => void (await admin.query(`DROP SCHEMA "${schema}" CASCADE`)),
    };
  });
}
