// A verdict written by another host (a cancel's fallback, the attempts budget) racing a live
// worker's own `approval.resolved` notice leaves one notice of the approval in the run's stream.
// The race is held at a known point with a row lock, not timed: the test holds the run's row
// (FOR SHARE, which an answer shares), answers, waits until the worker's write of the notice waits
// on the row, then starts the verdict's statement, waits until it waits too, and lets both go.
import { describe, expect, it } from "vitest";
import pg from "pg";
import { Agent } from "adaptor";
import type { FleetEvent, RecordedAgentEvent, RunHandle } from "@adaptor/fleet";
import { fakeCodex, fakeCodexSteps, fakeRun } from "./support/fake-codex.js";
import { onFakeCliFleet } from "./support/fake-cli-host.js";
import { freshSchema } from "./support/pg.js";
import { until } from "./support/processes.js";
import { FleetTables } from "../src/schema/fleet-tables.js";

onFakeCliFleet("fleet approval resolved once", ({ url, host, closers }) => {
  /** Reads the handle's events live until `match`; returns it. */
  async function waitFor(handle: RunHandle, match: (e: FleetEvent) => boolean): Promise<FleetEvent> {
    for await (const e of handle.events()) if (match(e)) return e;
    throw new Error("the run ended before the awaited event");
  }

  describe("approval.resolved at most once per approval", () => {
    it("a verdict from another host written while the worker's notice of an answered approval waits on the run's row leaves one notice of it", async () => {
      const schema = freshSchema("fleet_resolved_once");
      const front = await host(schema);
      const back = await host(schema);
      await back.worker(() => new Agent(fakeCodex("unused")));
      const handle = await front.submit("run the tests", { runOptions: fakeRun(fakeCodexSteps("done", { ask: "npm test" })) });
      const asked = await waitFor(handle, (e) => e.event.type === "approval-request");
      const id = ((asked.event as RecordedAgentEvent).request as { id: string }).id;

      const holder = new pg.Client({ connectionString: url });
      await holder.connect();
      closers.push(() => holder.end());
      const probe = new pg.Pool({ connectionString: url, max: 2 });
      closers.push(() => probe.end());
      /** Backends waiting on a lock in a statement on this test's schema (other test files share the database), with what they run. */
      const waiting = async () =>
        (
          await probe.query<{ query: string }>(
            `SELECT query FROM pg_stat_activity
             WHERE datname = current_database() AND wait_event_type = 'Lock' AND pid <> pg_backend_pid() AND strpos(query, $1) > 0`,
            [`"${schema}".`],
          )
        ).rows.map((row) => row.query);

      await holder.query("BEGIN");
      await holder.query(`SELECT 1 FROM "${schema}".adaptor_fleet_runs WHERE id = $1 FOR SHARE`, [handle.id]);
      // The answer shares the row; the worker applies it, and the SDK's approval.resolved notice
      // (the attempt's next write) waits on the row.
      await front.answer(id, { outcome: "approve" });
      await until(
        async () => (await waiting()).some((query) => query.includes("e.value FROM r, jsonb_array_elements")),
        "the worker's write waiting",
      );
      // What a cancel's fallback (a worker that wrote no verdict in time) runs from another host.
      const tables = new FleetTables(probe, schema, { schema: `${schema}_boss` });
      const settled = tables.settle(handle.id, 0, { kind: "cancelled", reason: "raced" });
      await until(async () => (await waiting()).length >= 2, "the verdict's write waiting too");
      await holder.query("COMMIT");
      expect(await settled).toBe(true);

      const notices: unknown[] = [];
      for await (const { event } of front.handle(handle.id).events()) {
        const e = event as { type: string; kind?: string; data?: { id?: string } };
        if (e.type === "notice" && e.kind === "approval.resolved" && e.data?.id === id) notices.push(e.data);
      }
      expect(notices).toHaveLength(1);
      expect(notices[0]).toMatchObject({ id, outcome: "approved" });
      expect((await handle.verdict()).kind).toBe("cancelled");
    });
  });
});
