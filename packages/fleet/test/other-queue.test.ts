import { afterEach, describe, expect, it } from "vitest";
import pg from "pg";
import { Agent } from "adaptor";
import { Fleet, type FleetEvent, type RecordedAgentEvent, type RunHandle } from "@adaptor/fleet";
import { fakeCodex, fakeCodexSteps, fakeRun } from "./support/fake-codex.js";
import { PG_URL, freshSchema, skipWithoutServer } from "./support/pg.js";

// Hosts of one schema whose `queue` options differ share the fleet's tables: a run of one queue is
// read, followed, cancelled and answered from a host of the other. Its approvals' state comes from
// the run's own job, wherever it is queued, so both hosts read the same status; a cancel from
// either cancels that job.
if (!PG_URL) {
  skipWithoutServer("hosts of another queue");
} else {
  const url = PG_URL;
  const closers: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const close of closers.splice(0).reverse()) await close();
  });

  async function host(schema: string, queue?: string): Promise<Fleet> {
    const fleet = new Fleet({ connectionString: url, schema, ...(queue !== undefined ? { queue } : {}) });
    await fleet.start();
    closers.push(() => fleet.close());
    return fleet;
  }

  async function asked(handle: RunHandle): Promise<string> {
    for await (const e of handle.events() as AsyncIterable<FleetEvent>)
      if (e.event.type === "approval-request") return ((e.event as RecordedAgentEvent).request as { id: string }).id;
    throw new Error("the run ended before it asked");
  }

  describe("hosts of another queue", () => {
    it("a question waiting on a worker of the default queue reads pending on a host of queue 'other', is listed there, and its answer from there is applied", async () => {
      const schema = freshSchema("fleet_queues");
      const own = await host(schema);
      const other = await host(schema, "other");
      await own.worker(() => new Agent(fakeCodex("unused")));
      const handle = await own.submit("ask", { runOptions: fakeRun(fakeCodexSteps("done", { ask: "npm test" })) });
      const id = await asked(handle);
      for (const fleet of [own, other]) {
        expect((await fleet.approval(id))?.status).toBe("pending");
        expect((await fleet.handle(handle.id).pendingApprovals()).map((a) => a.id)).toEqual([id]);
        expect((await fleet.pendingApprovals()).map((a) => a.id)).toEqual([id]);
      }
      await other.answer(id, { outcome: "approve" });
      expect((await handle.result()).text).toBe("done");
      for (const fleet of [own, other])
        expect(await fleet.approval(id)).toMatchObject({ status: "answered", decision: { outcome: "approve" } });
    });

    it("a queued run of the default queue cancelled from a host of queue 'other' has its own pg-boss job cancelled", async () => {
      const schema = freshSchema("fleet_queues");
      const own = await host(schema);
      const other = await host(schema, "other");
      const pool = new pg.Pool({ connectionString: url });
      closers.push(() => pool.end());
      const job = async (id: string) =>
        (await pool.query<{ name: string; state: string }>(`SELECT name, state FROM "${schema}_boss".job WHERE id = $1`, [id])).rows;
      const handle = await own.submit("never started");
      const [queued] = await job(handle.id);
      expect(queued!.state).toBe("created");
      expect(await other.handle(handle.id).cancel("from the other queue")).toBe(true);
      expect(await job(handle.id)).toEqual([{ name: queued!.name, state: "cancelled" }]);
      await expect(handle.result()).rejects.toMatchObject({ name: "FleetRunCancelledError" });
    });
  });
}
