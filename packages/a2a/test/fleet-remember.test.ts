// "Always allow" through the A2A server fronting a fleet: the approval's data part lists its
// suggestions, an answer's `remember` is recorded with the answer, and the worker's run answers
// its later matching asks itself (the task never asks again).
import { TaskState, type Task } from "@a2a-js/sdk";
import { ReferenceDriver } from "@adaptor/driver/testing";
import { Fleet } from "@adaptor/fleet";
import { PostgresThreadStore } from "@adaptor/threadstore-postgres";
import { Agent } from "adaptor";
import { afterEach, describe, expect, it } from "vitest";
import { a2aFleetServer, FLEET_RUN_METADATA_KEY } from "../src/index.js";
import { PostgresTaskStore } from "../src/postgres/index.js";
import { freshSchema, PG_URL, skipWithoutServer } from "../../fleet/test/support/pg.js";
import { asTask, data, listen, partsText, sdkClient, send, text } from "./support.js";

const NPM_TEST = { toolName: "shell", command: "npm test" };

const approvalOf = (task: Task) => {
  const part = task.status?.message?.parts.find((p) => p.content?.$case === "data");
  return part?.content?.$case === "data"
    ? (part.content.value as { approval: { id: string; suggestions?: unknown[] } }).approval
    : undefined;
};

if (!PG_URL) {
  skipWithoutServer("a2aFleetServer: remember");
} else {
  const url = PG_URL;
  const closers: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const close of closers.splice(0).reverse()) await close();
  });

  describe("a2aFleetServer: remember", () => {
    it("an approve remembering the approval's suggestion completes the task: the worker answers the second ask by the rule; a rule that does not match asks again", async () => {
      const schema = freshSchema("a2a_remember");
      const store = new PostgresThreadStore({ connectionString: url, schema: `${schema}_threads` });
      await store.migrate();
      const worker = new Fleet({ connectionString: url, schema, threadStore: store });
      await worker.worker(({ threadStore }) => new Agent(new ReferenceDriver({ latencyMs: 0 }), { threadStore: threadStore! }), {
        concurrency: 1,
      });
      const front = new Fleet({ connectionString: url, schema, threadStore: store });
      await front.start();
      const taskStore = new PostgresTaskStore({ connectionString: url, schema: `${schema}_a2a` });
      await taskStore.migrate();
      const listening = await listen();
      const server = a2aFleetServer(front, { url: listening.url, card: { name: "Fleet", description: "remember" }, taskStore });
      listening.handle(server.handler);
      closers.push(
        () => store.close(),
        () => worker.close(),
        () => front.close(),
        () => taskStore.close(),
        () => listening.close(),
        () => server.close(),
      );
      const client = await sdkClient(listening.url);

      const asked = asTask(await client.sendMessage(send([text("TOOL npm test\nTOOL npm test")])));
      expect(asked.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
      const approval = approvalOf(asked)!;
      expect(approval.suggestions).toEqual([NPM_TEST]);
      const wrong = asTask(
        await client.sendMessage(send([data({ decision: "approve", remember: { toolName: "shell", command: "make" } })], asked.id)),
      );
      expect(wrong.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
      expect(partsText(wrong.status?.message?.parts)).toMatch(/^that answer does not fit the waiting approval\./);

      const answered = asTask(
        await client.sendMessage(send([data({ decision: "approve", remember: approval.suggestions![0] })], asked.id)),
      );
      expect(answered.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
      expect(partsText(answered.artifacts[0]?.parts)).toBe("Done: ran npm test");
      const runId = (asked.metadata?.[FLEET_RUN_METADATA_KEY] as { runId: string }).runId;
      const kinds: string[] = [];
      for await (const { event } of front.handle(runId).events()) {
        const e = event as { type: string; kind?: string };
        kinds.push(e.type === "notice" ? String(e.kind) : e.type);
      }
      expect(kinds.filter((kind) => kind === "approval-request")).toHaveLength(1);
      expect(kinds).toContain("approval.remembered");
    });
  });
}
