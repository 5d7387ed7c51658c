import type { ChildProcess } from "node:child_process";
import { randomUUID } from "node:crypto";
import { HttpAgent } from "@ag-ui/client";
import { afterEach, describe, expect, it } from "vitest";
import { Fleet } from "@adaptor/fleet";
import { PostgresThreadStore } from "@adaptor/threadstore-postgres";
import { fakeCodexSteps, fakeRun } from "../../fleet/test/support/fake-codex.js";
import { PG_URL, freshSchema, skipWithoutServer } from "../../fleet/test/support/pg.js";
import { processesWith, startWorker, until } from "../../fleet/test/support/processes.js";
import { AG_UI_CUSTOM_EVENTS } from "../src/index.js";
import { postJson, serve } from "./support.js";

// The bridge over a fleet whose worker process is SIGKILLed while its question waits: the question
// the lost attempt asked ends in the client's state (expired) once the retried attempt starts,
// instead of staying pending forever beside the retried attempt's question.
if (!PG_URL) {
  skipWithoutServer("bridge over a fleet, a worker lost while asking");
} else {
  const url = PG_URL;
  const children = new Set<ChildProcess>();
  const closers: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const child of children) child.kill("SIGKILL");
    children.clear();
    for (const close of closers.splice(0).reverse()) await close();
  });

  describe("bridge over a fleet, a worker lost while asking", () => {
    it("ag-ui: the lost attempt's unanswered question reads expired in @ag-ui/client's state after RUN_FINISHED; the retried attempt's question reads approved", async () => {
      const schema = freshSchema("bridge_lost");
      const marker = `BRIDGE_LOST_${randomUUID()}`;
      const store = new PostgresThreadStore({ connectionString: url, schema: `${schema}_threads` });
      await store.migrate();
      const fleet = new Fleet({ connectionString: url, schema, heartbeatSeconds: 10, monitorIntervalSeconds: 1 });
      await fleet.start();
      const env = { ...fakeRun(fakeCodexSteps("after the lost question", { ask: "rm -rf dist" })).env, [marker]: "1" };
      const front = await serve({ fleet, runOptions: () => ({ env }) });
      closers.push(async () => {
        await front.close();
        await fleet.close();
        await store.close();
        await until(() => processesWith(marker).length === 0, "the fake CLIs to exit");
      });
      const worker = async (name: string): Promise<ChildProcess> => {
        const child = await startWorker(url, schema, name, ["3"]);
        children.add(child);
        return child;
      };
      const first = await worker("first");
      const asked: string[] = [];
      const replacement: Promise<ChildProcess>[] = [];
      const agent = new HttpAgent({ url: `${front.url}/ag-ui`, threadId: randomUUID() });
      agent.addMessage({ id: randomUUID(), role: "user", content: "clean" });
      const { result } = await agent.runAgent(
        { runId: randomUUID() },
        {
          onCustomEvent: async ({ event }) => {
            if (event.name !== AG_UI_CUSTOM_EVENTS.approvalRequest) return;
            const id = (event.value as { id: string }).id;
            asked.push(id);
            if (asked.length === 1) {
              // The worker dies while its question waits; another one takes the run.
              first.kill("SIGKILL");
              replacement.push(worker("second"));
            } else expect((await postJson(`${front.url}/approvals/${id}`, { decision: "approve" })).status).toBe(200);
          },
        },
      );
      await Promise.all(replacement);
      expect(result).toEqual({ text: "after the lost question" });
      expect(asked).toHaveLength(2);
      const approvals = (agent.state as { adaptor: { approvals: Record<string, { status: string }> } }).adaptor.approvals;
      expect(Object.fromEntries(Object.entries(approvals).map(([id, approval]) => [id, approval.status]))).toEqual({
        [asked[0]!]: "expired",
        [asked[1]!]: "approved",
      });
    }, 120_000);
  });
}
