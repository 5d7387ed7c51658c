// An attempt's end closes its open approvals in the write that ends it: a worker lost (SIGKILLed,
// its heartbeat stopped) or cut off from the database past `heartbeatSeconds` has its approvals
// read `closed` from the moment pg-boss fails its job, before any retried attempt starts, and an
// answer is refused `closed` instead of being recorded for a worker that will never apply it.
import type { ChildProcess } from "node:child_process";
import { afterEach, describe, expect, it } from "vitest";
import pg from "pg";
import { Agent } from "adaptor";
import { ApprovalNotPendingError } from "@adaptor/threadstore";
import { PostgresThreadStore } from "@adaptor/threadstore-postgres";
import { Fleet, type RecordedAgentEvent, type RunHandle } from "@adaptor/fleet";
import { fakeCodex, fakeCodexSteps, fakeRun } from "./support/fake-codex.js";
import { PG_URL, freshSchema, skipWithoutServer } from "./support/pg.js";
import { startWorker, until } from "./support/processes.js";
import { TcpProxy } from "./support/tcp-proxy.js";

/** The id of the first approval the run asks (waits for it). */
async function askedId(handle: RunHandle): Promise<string> {
  for await (const { event } of handle.events())
    if (event.type === "approval-request") return ((event as RecordedAgentEvent).request as { id: string }).id;
  throw new Error("no approval-request event");
}

if (!PG_URL) {
  skipWithoutServer("fleet approvals when their attempt ends");
} else {
  const url = PG_URL;
  const closers: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const close of closers.splice(0).reverse()) await close();
  });

  /** A started host supervising the fleet every second (it fails jobs whose heartbeat stopped). */
  async function host(connectionString: string, schema: string): Promise<Fleet> {
    const fleet = new Fleet({ connectionString, schema, heartbeatSeconds: 10, monitorIntervalSeconds: 1 });
    await fleet.start();
    closers.push(() => fleet.close());
    return fleet;
  }

  /** The stored approval row: its decision and whether it is closed. */
  async function row(schema: string, id: string): Promise<{ decision: unknown; closed: boolean }> {
    const db = new pg.Client({ connectionString: url });
    await db.connect();
    try {
      const { rows } = await db.query<{ decision: unknown; closed: boolean }>(
        `SELECT decision, closed_at IS NOT NULL AS closed FROM "${schema}".adaptor_fleet_approvals WHERE id = $1`,
        [id],
      );
      return rows[0]!;
    } finally {
      await db.end();
    }
  }

  describe("fleet approvals when their attempt ends", () => {
    it("a worker SIGKILLed while its question waits: once pg-boss fails its job the approval reads closed and an answer is refused, with no retried attempt started", async () => {
      const schema = freshSchema("appr_lost");
      const store = new PostgresThreadStore({ connectionString: url, schema: `${schema}_threads` });
      await store.migrate();
      closers.push(() => store.close());
      const front = await host(url, schema);
      const child: ChildProcess = await startWorker(url, schema, "lost", ["3"]);
      closers.push(async () => {
        child.kill("SIGKILL");
      });
      const handle = await front.submit("clean", {
        threadKey: "lost",
        runOptions: fakeRun(fakeCodexSteps("never", { ask: "rm -rf build" })),
      });
      const id = await askedId(handle);
      expect((await front.approval(id))?.status).toBe("pending");
      const exited = new Promise((resolve) => child.once("exit", resolve));
      child.kill("SIGKILL");
      await exited;
      // No worker is left: nothing but pg-boss's failing of the job can close it.
      await until(async () => (await front.approval(id))?.status === "closed", "the approval closed", 60_000);
      const late = await front.answer(id, { outcome: "approve" }).catch((error: unknown) => error);
      expect(late).toBeInstanceOf(ApprovalNotPendingError);
      expect(late).toMatchObject({ status: "closed" });
      expect(await handle.pendingApprovals()).toEqual([]);
      expect(await front.pendingApprovals()).toEqual([]);
      expect(await row(schema, id)).toEqual({ decision: null, closed: false });
      expect((await handle.info()).settled).toBe(false);
    }, 90_000);

    it("a worker cut off from the database past heartbeatSeconds while its question waits: the approval reads closed, an answer from another host is refused, and the worker closes it and fails the run once back", async () => {
      const schema = freshSchema("appr_cut");
      const proxy = new TcpProxy(url);
      closers.push(() => proxy.close());
      const through = await proxy.listen(url);
      const front = await host(url, schema);
      const back = await host(through, schema);
      await back.worker(new Agent(fakeCodex("unused")));
      const runOptions = { ...fakeRun(fakeCodexSteps("never", { ask: "make" })), policy: { approvals: { timeoutMs: 120_000 } } };
      const handle = await front.submit("build", { runOptions });
      const id = await askedId(handle);
      await proxy.cut();
      await until(async () => (await front.approval(id))?.status === "closed", "the approval closed", 60_000);
      expect(await front.answer(id, { outcome: "approve" }).catch((error: unknown) => error)).toMatchObject({ status: "closed" });
      await proxy.restore(url);
      await expect(handle.result()).rejects.toBeInstanceOf(Error);
      expect(await row(schema, id)).toEqual({ decision: null, closed: true });
      expect((await front.approval(id))?.status).toBe("closed");
    }, 120_000);
  });
}
