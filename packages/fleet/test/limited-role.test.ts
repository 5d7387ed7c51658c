// Hosts that connect as a role without DDL rights: once the owner ran migrate(), start() reads the
// tables' version and runs no DDL, so such a host starts, submits and answers, and creates a queue
// of its own (a row, no DDL); a role that would have to migrate is refused with a DriverError
// PERMISSION naming migrate().
import { randomBytes } from "node:crypto";
import { afterEach, describe, expect, it } from "vitest";
import pg from "pg";
import { Agent } from "adaptor";
import { DriverError, ErrCode } from "@adaptor/errors";
import { Fleet } from "@adaptor/fleet";
import { fakeCodex, fakeCodexSteps, fakeRun } from "./support/fake-codex.js";
import { PG_URL, freshSchema, skipWithoutServer } from "./support/pg.js";

if (!PG_URL) {
  skipWithoutServer("fleet hosts with a limited database role");
} else {
  const url = PG_URL;
  const closers: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const close of closers.splice(0).reverse()) await close();
  });

  /** An admin connection and the owner's Fleet on `schema`, migrated by the owner. */
  async function migratedByOwner(schema: string): Promise<{ admin: pg.Client; owner: Fleet }> {
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    closers.push(() => admin.end());
    const owner = new Fleet({ connectionString: url, schema });
    closers.push(() => owner.close());
    await owner.migrate();
    return { admin, owner };
  }

  /** A login role with no rights of its own; returns its connection string. */
  async function limitedRole(admin: pg.Client): Promise<{ role: string; url: string }> {
    const role = `fleet_app_${randomBytes(4).toString("hex")}`;
    await admin.query(`CREATE ROLE ${role} LOGIN`);
    const through = new URL(url);
    through.username = role;
    return { role, url: through.toString() };
  }

  /** The grants the fleet README lists for a host role, on both schemas of `schema`. */
  async function grantHostRights(admin: pg.Client, schema: string, role: string): Promise<void> {
    for (const s of [schema, `${schema}_boss`]) {
      await admin.query(`GRANT USAGE ON SCHEMA "${s}" TO ${role}`);
      await admin.query(`GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA "${s}" TO ${role}`);
      await admin.query(`GRANT USAGE, SELECT, UPDATE ON ALL SEQUENCES IN SCHEMA "${s}" TO ${role}`);
      await admin.query(`GRANT EXECUTE ON ALL FUNCTIONS IN SCHEMA "${s}" TO ${role}`);
    }
  }

  describe("fleet hosts with a limited database role", () => {
    it("after migrate() as the owner, a host whose role has only the listed grants starts without DDL, submits, and its run is served", async () => {
      const schema = freshSchema("limited");
      const { admin, owner } = await migratedByOwner(schema);
      await owner.worker(new Agent(fakeCodex("unused")));
      const app = await limitedRole(admin);
      await grantHostRights(admin, schema, app.role);
      const host = new Fleet({ connectionString: app.url, schema });
      closers.push(() => host.close());
      await host.start();
      const handle = await host.submit("hello", { runOptions: fakeRun(fakeCodexSteps("served for the app role")) });
      expect((await handle.result()).text).toBe("served for the app role");
    });

    it("a host whose role has only the listed grants creates a queue that does not exist yet itself (no DDL) and its run is served", async () => {
      const schema = freshSchema("limited_queue");
      const { admin } = await migratedByOwner(schema);
      const app = await limitedRole(admin);
      await grantHostRights(admin, schema, app.role);
      const host = new Fleet({ connectionString: app.url, schema, queue: "limited-role-own-queue" });
      closers.push(() => host.close());
      await host.start();
      const { rows } = await admin.query<{ name: string }>(
        `SELECT name FROM "${schema}_boss".queue WHERE name LIKE 'limited-role-own-queue%' ORDER BY name`,
      );
      expect(rows.map((row) => row.name)).toEqual([
        "limited-role-own-queue",
        "limited-role-own-queue-deadline",
        "limited-role-own-queue-prune",
        "limited-role-own-queue.format-2",
      ]);
      await host.worker(new Agent(fakeCodex("unused")));
      const handle = await host.submit("hello", { runOptions: fakeRun(fakeCodexSteps("served on a queue the app role made")) });
      expect((await handle.result()).text).toBe("served on a queue the app role made");
    });

    it("a host whose role may not create the tables, on a database never migrated, is refused with DriverError PERMISSION naming migrate()", async () => {
      const admin = new pg.Client({ connectionString: url });
      await admin.connect();
      closers.push(() => admin.end());
      const app = await limitedRole(admin);
      const host = new Fleet({ connectionString: app.url, schema: freshSchema("unmigrated") });
      closers.push(() => host.close());
      const error = await host.start().catch((e: unknown) => e);
      expect(error).toBeInstanceOf(DriverError);
      expect(error).toMatchObject({ code: ErrCode.Permission, op: "fleet start" });
      expect(String((error as DriverError).cause)).toContain("fleet.migrate()");
      expect(((error as DriverError).cause as Error).cause).toMatchObject({ code: "42501" });
    });
  });
}
