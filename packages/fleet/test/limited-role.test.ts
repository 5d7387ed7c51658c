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

  /** Only reads, on both schemas of `schema`: USAGE and SELECT. */
  async function grantReadRights(admin: pg.Client, schema: string, role: string): Promise<void> {
    for (const s of [schema, `${schema}_boss`]) {
      await admin.query(`GRANT USAGE ON SCHEMA "${s}" TO ${role}`);
      await admin.query(`GRANT SELECT ON ALL TABLES IN SCHEMA "${s}" TO ${role}`);
    }
  }

  /** Takes INSERT and UPDATE on every table of both schemas of `schema` from `role`. */
  async function revokeWrites(admin: pg.Client, schema: string, role: string): Promise<void> {
    await admin.query(`REVOKE INSERT, UPDATE ON ALL TABLES IN SCHEMA "${schema}", "${schema}_boss" FROM ${role}`);
  }

  /** What `promise` rejects with (fails the test when it resolves). */
  async function refusal(promise: Promise<unknown>): Promise<unknown> {
    return promise.then(
      (value) => expect.fail(`expected a refusal, got ${JSON.stringify(value)}`),
      (error: unknown) => error,
    );
  }

  /** Asserts `error` is the fleet's DriverError PERMISSION of `op` with PostgreSQL's refusal as `cause`. */
  function expectPermission(error: unknown, op: string): void {
    expect(error).toBeInstanceOf(DriverError);
    expect(error).toMatchObject({ code: ErrCode.Permission, device: "fleet", op });
    expect((error as DriverError).cause).toMatchObject({ code: "42501" });
  }

  /** Asserts `error` is a reader host's own DriverError PERMISSION of `op` (refused before any statement). */
  function expectReaderRefusal(error: unknown, op: string): void {
    expect(error).toBeInstanceOf(DriverError);
    expect(error).toMatchObject({ code: ErrCode.Permission, device: "fleet", op });
    expect(String((error as DriverError).cause)).toContain("may only read");
  }

  /** Run options that make the fake ask to run `ls`, then answer `text` once approved. */
  function askingRun(text: string) {
    return { ...fakeRun(fakeCodexSteps(text, { ask: "ls" })), policy: { approvals: { permission: "ask" as const, timeoutMs: 120_000 } } };
  }

  /** The id of the first approval run `runId` asks, read through `fleet`. */
  async function firstApproval(fleet: Fleet, runId: string): Promise<string> {
    for await (const { event } of fleet.handle(runId).events())
      if (event.type === "approval-request") return (event.request as { id: string }).id;
    throw new Error(`run ${runId} ended without asking`);
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

    it("a right revoked after start() makes every method that needs it reject with DriverError PERMISSION (the pg error as cause), recording nothing", async () => {
      const schema = freshSchema("revoked");
      const { admin, owner } = await migratedByOwner(schema);
      await owner.worker(new Agent(fakeCodex("unused")));
      const app = await limitedRole(admin);
      await grantHostRights(admin, schema, app.role);
      const host = new Fleet({ connectionString: app.url, schema });
      closers.push(() => host.close());
      const asking = await host.submit("please run ls", { runOptions: askingRun("answered after the revoke") });
      const approvalId = await firstApproval(host, asking.id);
      await revokeWrites(admin, schema, app.role);
      expectPermission(await refusal(host.submit("refused")), "fleet submit");
      expectPermission(await refusal(host.answer(approvalId, { outcome: "approve" })), "fleet answer");
      expectPermission(await refusal(asking.cancel("refused")), "fleet cancel");
      expect(await owner.approval(approvalId)).toMatchObject({ status: "pending" });
      await admin.query(`REVOKE SELECT ON ALL TABLES IN SCHEMA "${schema}" FROM ${app.role}`);
      expectPermission(await refusal(host.approval(approvalId)), "fleet approval");
      expectPermission(await refusal(host.pendingApprovals()), "fleet pendingApprovals");
      expectPermission(await refusal(asking.info()), "fleet info");
      expectPermission(await refusal(asking.pendingApprovals()), "fleet pendingApprovals");
      expectPermission(await refusal(asking.result()), "fleet verdict");
      expectPermission(await refusal(asking.events({ follow: false }).next()), "fleet events");
      expectPermission(await refusal(host.prune(0)), "fleet prune");
      await owner.answer(approvalId, { outcome: "approve" });
      expect((await owner.handle(asking.id).result()).text).toBe("answered after the revoke");
    });

    it("a host whose role lacks a grant on tables that exist is refused at start() with DriverError PERMISSION naming that grant, not migrate()", async () => {
      const schema = freshSchema("ungranted");
      const { admin } = await migratedByOwner(schema);
      const app = await limitedRole(admin);
      const host = new Fleet({ connectionString: app.url, schema });
      closers.push(() => host.close());
      const ungranted = await refusal(host.start());
      expect(ungranted).toBeInstanceOf(DriverError);
      expect(ungranted).toMatchObject({ code: ErrCode.Permission, op: "fleet start" });
      expect(String((ungranted as DriverError).cause)).toContain(`GRANT USAGE ON SCHEMA ${schema} TO the role`);
      expect(String((ungranted as DriverError).cause)).not.toContain("migrate()");
      expect(((ungranted as DriverError).cause as Error).cause).toMatchObject({ code: "42501" });
      // The fleet's own schema granted, pg-boss's not: that one is named.
      await admin.query(`GRANT USAGE ON SCHEMA "${schema}" TO ${app.role}`);
      await admin.query(`GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA "${schema}" TO ${app.role}`);
      const bossUngranted = await refusal(host.start());
      expect(bossUngranted).toMatchObject({ code: ErrCode.Permission, op: "fleet start" });
      expect(String((bossUngranted as DriverError).cause)).toContain(`GRANT USAGE ON SCHEMA ${schema}_boss TO the role`);
      expect(String((bossUngranted as DriverError).cause)).not.toContain("migrate()");
      await grantHostRights(admin, schema, app.role);
      await host.start();
    });

    it("a host whose role has SELECT only reads a run's info, events and verdict and its approvals, pending and fleet-wide", async () => {
      const schema = freshSchema("reader");
      const { admin, owner } = await migratedByOwner(schema);
      await owner.worker(new Agent(fakeCodex("unused")));
      const handle = await owner.submit("please run ls", { runOptions: askingRun("asked") });
      const approvalId = await firstApproval(owner, handle.id);
      const reader = await limitedRole(admin);
      await grantReadRights(admin, schema, reader.role);
      const host = new Fleet({ connectionString: reader.url, schema });
      closers.push(() => host.close());
      await host.start();
      const run = host.handle(handle.id);
      // Followed live: the reader's LISTEN connection wakes it.
      const followed = (async () => {
        const types: string[] = [];
        for await (const { event } of run.events()) types.push(event.type);
        return types;
      })();
      expect(await run.info()).toMatchObject({ id: handle.id, settled: false });
      expect((await run.pendingApprovals()).map((a) => a.id)).toEqual([approvalId]);
      expect(await host.approval(approvalId)).toMatchObject({ id: approvalId, runId: handle.id, status: "pending" });
      expect((await host.pendingApprovals()).map((a) => a.id)).toEqual([approvalId]);
      // Writes are refused as such.
      expectReaderRefusal(await refusal(host.answer(approvalId, { outcome: "approve" })), "fleet answer");
      expectReaderRefusal(await refusal(host.submit("refused")), "fleet submit");
      await owner.answer(approvalId, { outcome: "approve" });
      expect((await run.result()).text).toBe("asked");
      expect((await followed).at(-1)).toBe("verdict");
      expectReaderRefusal(await refusal(host.worker(new Agent(fakeCodex("unused")))), "fleet worker");
      expect(await host.approval(approvalId)).toMatchObject({ status: "answered" });
    });

    it("a host whose role lacks only UPDATE on the runs table starts as a reader and refuses submit, answer and worker itself with DriverError PERMISSION", async () => {
      const schema = freshSchema("partial");
      const { admin, owner } = await migratedByOwner(schema);
      await owner.worker(new Agent(fakeCodex("unused")));
      const handle = await owner.submit("please run ls", { runOptions: askingRun("answered by the owner") });
      const approvalId = await firstApproval(owner, handle.id);
      const app = await limitedRole(admin);
      await grantHostRights(admin, schema, app.role);
      await admin.query(`REVOKE UPDATE ON "${schema}".adaptor_fleet_runs FROM ${app.role}`);
      const host = new Fleet({ connectionString: app.url, schema });
      closers.push(() => host.close());
      await host.start();
      expectReaderRefusal(await refusal(host.submit("refused")), "fleet submit");
      expectReaderRefusal(await refusal(host.answer(approvalId, { outcome: "approve" })), "fleet answer");
      expectReaderRefusal(await refusal(host.worker(new Agent(fakeCodex("unused")))), "fleet worker");
      expect(await host.approval(approvalId)).toMatchObject({ status: "pending" });
      await owner.answer(approvalId, { outcome: "approve" });
      expect((await host.handle(handle.id).result()).text).toBe("answered by the owner");
    });

    it("a worker whose role loses INSERT and UPDATE mid-run is lost, and the run gets one verdict from a worker that may write", async () => {
      const schema = freshSchema("revoked_worker");
      const { admin, owner } = await migratedByOwner(schema);
      const app = await limitedRole(admin);
      await grantHostRights(admin, schema, app.role);
      const revoked = new Fleet({ connectionString: app.url, schema, retryRuns: true });
      closers.push(() => revoked.close());
      await revoked.worker(new Agent(fakeCodex("unused")), { name: "revoked" });
      // The run waits on its question on the worker whose rights are then revoked.
      const asking = await owner.submit("please run ls", { runOptions: askingRun("answered on the other worker") });
      const approvalId = await firstApproval(owner, asking.id);
      await revokeWrites(admin, schema, app.role);
      await owner.answer(approvalId, { outcome: "approve" });
      const other = new Fleet({ connectionString: url, schema, retryRuns: true });
      closers.push(() => other.close());
      await other.worker(new Agent(fakeCodex("unused")), { name: "other" });
      expect((await asking.result()).text).toBe("answered on the other worker");
      const attempts: { attempt: number; type: string; worker?: string }[] = [];
      for await (const { event, attempt } of asking.events({ follow: false }))
        if (event.type === "attempt-started" || event.type === "verdict")
          attempts.push({ attempt, type: event.type, ...(event.type === "attempt-started" ? { worker: String(event.worker) } : {}) });
      expect(attempts).toEqual([
        { attempt: 1, type: "attempt-started", worker: "revoked" },
        { attempt: 2, type: "attempt-started", worker: "other" },
        { attempt: 2, type: "verdict" },
      ]);
    }, 90_000);
  });
}
