// Turns of one thread key run in submission order, and `submittedAt` is that order: the time the
// database took the submission, not when its transaction began. A submission held inside its
// transaction (here on a row of the test's own uncommitted transaction with the run's id) while a
// later one of the same key comes in keeps its place: the later one waits for it, and runs after it.
import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import pg from "pg";
import { Agent } from "adaptor";
import type { RunHandle } from "@adaptor/fleet";
import { fakeCodex, fakeCodexSteps, fakeRun } from "./support/fake-codex.js";
import { onFakeCliFleet } from "./support/fake-cli-host.js";
import { freshSchema } from "./support/pg.js";
import { until } from "./support/processes.js";

/** When run `handle`'s first attempt started (its `attempt-started` event, the database's clock). */
async function startedAt(handle: RunHandle): Promise<string> {
  for await (const e of handle.events()) if (e.event.type === "attempt-started") return e.recordedAt;
  throw new Error("the run never started");
}

onFakeCliFleet("fleet thread order", ({ url, closers, host }) => {
  describe("fleet thread order", () => {
    it("a turn submitted while an earlier submission of its key is still in its transaction runs after it, and submittedAt says so", async () => {
      const schema = freshSchema("order");
      const front = await host(schema);
      const other = await host(schema);
      const back = await host(schema);
      await back.worker(({ threadStore }) => new Agent(fakeCodex("unused"), { threadStore: threadStore! }));
      const admin = new pg.Client({ connectionString: url });
      await admin.connect();
      closers.push(() => admin.end());
      const holder = new pg.Client({ connectionString: url });
      await holder.connect();
      closers.push(() => holder.end());
      // The first submission is held at its insert by an uncommitted row with its run id.
      const firstId = randomUUID();
      await holder.query("BEGIN");
      await holder.query(`INSERT INTO ${schema}.adaptor_fleet_runs (id, prompt, options) VALUES ($1, 'held', '{}')`, [firstId]);
      // Both turns end the same way whichever runs first (the CLI exits mid-turn): only the order counts.
      const runOptions = fakeRun(fakeCodexSteps("never reached", { exitEarly: true }));
      const first = front.submit("first", { threadKey: "ordered", runId: firstId, runOptions });
      const waiting = async (what: string): Promise<boolean> => {
        const { rows } = await admin.query<{ n: number }>(
          `SELECT count(*)::int AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND wait_event = $1 AND pid <> pg_backend_pid()`,
          [what],
        );
        return (rows[0]?.n ?? 0) > 0;
      };
      await until(() => waiting("transactionid"), "the first submission to wait at its insert");
      let secondSubmitted = false;
      const second = other.submit("second", { threadKey: "ordered", runOptions }).then((handle) => {
        secondSubmitted = true;
        return handle;
      });
      // The second submission either waits for the first (its key's turn to be taken) or goes ahead.
      await until(async () => secondSubmitted || (await waiting("advisory")), "the second submission to be taken or to wait");
      if (secondSubmitted) await (await second).result().catch(() => undefined);
      await holder.query("ROLLBACK");
      const handles = [await first, await second];
      for (const h of handles) await h.result().catch(() => undefined);
      const runs = await Promise.all(
        handles.map(async (h, i) => ({ i, submitted: new Date((await h.info()).submittedAt).getTime(), started: await startedAt(h) })),
      );
      const byStart = [...runs].sort((a, b) => a.started.localeCompare(b.started)).map((r) => r.i);
      const bySubmitted = [...runs].sort((a, b) => a.submitted - b.submitted).map((r) => r.i);
      expect(byStart).toEqual([0, 1]);
      expect(bySubmitted).toEqual([0, 1]);
    });
  });
});
