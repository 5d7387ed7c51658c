import { randomBytes } from "node:crypto";
import { afterAll, describe, expect, it } from "vitest";
import pg from "pg";
import { DriverError, ErrCode, findError } from "@adaptor/errors";
import { PostgresThreadStore } from "@adaptor/threadstore-postgres";
import { PG_URL, freshSchema, skipWithoutServer } from "./support/pg-env.js";

// A host connected as a role that lacks a right on the store's tables (a read-only reporting role,
// a grant revoked by an operator) gets DriverError PERMISSION with the pg error as its cause, not
// INTERNAL: the code says what to fix.
if (!PG_URL) {
  skipWithoutServer("PostgresThreadStore with a limited database role");
} else {
  const url = PG_URL;
  const admin = new pg.Pool({ connectionString: url, max: 2 });
  afterAll(() => admin.end());

  describe("PostgresThreadStore as a role without a right", () => {
    it("a SELECT-only role reads the catalog, and a lease it may not write is DriverError PERMISSION (SQLSTATE 42501 as cause)", async () => {
      const schema = freshSchema("role_rights");
      const owner = new PostgresThreadStore({ pool: admin, schema });
      await owner.migrate();
      const role = `store_reader_${randomBytes(4).toString("hex")}`;
      await admin.query(`CREATE ROLE ${role} LOGIN`);
      await admin.query(`GRANT USAGE ON SCHEMA "${schema}" TO ${role}`);
      await admin.query(`GRANT SELECT ON ALL TABLES IN SCHEMA "${schema}" TO ${role}`);
      const through = new URL(url);
      through.username = role;
      const reader = new PostgresThreadStore({ connectionString: through.toString(), schema });
      try {
        expect(await reader.listThreads({})).toMatchObject({ threads: [] });
        const refused = await reader.acquireLease("k1", "host-a", 30_000).catch((e: unknown) => e);
        const error = findError(refused, DriverError);
        expect(error?.code).toBe(ErrCode.Permission);
        expect((error?.cause as { code?: unknown } | undefined)?.code).toBe("42501");
      } finally {
        await reader.close();
        await admin.query(`DROP SCHEMA "${schema}" CASCADE`);
        await admin.query(`DROP ROLE ${role}`);
      }
    });
  });
}
