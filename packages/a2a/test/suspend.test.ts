// Suspended turns behind A2A, driven by the official @a2a-js/sdk client: a thread turn that asks a
// human, run with `suspend`, ends its task input-required with no run open; the task's next
// message answers the stored approval and resumes the turn (Thread.streamAnswer), here on a
// second server that shares the task store and the thread store with the first, closed one.
import { TaskState, type Message, type Task } from "@a2a-js/sdk";
import { InMemoryTaskStore } from "@a2a-js/sdk/server";
import { ReferenceDriver } from "@adaptor/driver/testing";
import { MemoryThreadStore } from "@adaptor/threadstore";
import { Agent } from "adaptor";
import { describe, expect, it } from "vitest";
import { RESPONSE_ARTIFACT_ID } from "../src/index.js";
import { asTask, data, partsText, sdkClient, send, serve, text } from "./support.js";

const approvalOf = (task: Task) => {
  const part = task.status?.message?.parts.find((p) => p.content?.$case === "data");
  return part?.content?.$case === "data" ? (part.content.value as { approval: Record<string, unknown> }).approval : undefined;
};
/** A server whose tasks are turns of the thread `a2a:<contextId>`, suspended on their first ask. */
async function host(threadStore: MemoryThreadStore, taskStore: InMemoryTaskStore) {
  const agent = new Agent(new ReferenceDriver(), { threadStore });
  const served = await serve(({ contextId }) => agent.thread(`a2a:${contextId}`), { runOptions: { suspend: {} }, taskStore });
  return {
    agent,
    served,
    async close() {
      await served.close();
      await agent.close();
    },
  };
}

/** A server as {@link host} (own task store) and a task of it suspended on `shell: make`, with its approval id. */
async function suspendedTask(threadStore: MemoryThreadStore) {
  const served = await host(threadStore, new InMemoryTaskStore());
  const client = await sdkClient(served.served.url);
  const asked = asTask(await client.sendMessage(send([text("TOOL make")])));
  return { served, client, asked, id: String(approvalOf(asked)?.["id"]) };
}

describe("suspended turns behind A2A", () => {
  it("a turn waiting on a human ends input-required with no run open; the answer resumes it on a restarted server and the task completes", async () => {
    const threadStore = new MemoryThreadStore();
    const taskStore = new InMemoryTaskStore();
    const first = await host(threadStore, taskStore);
    let taskId: string;
    let contextId: string;
    try {
      const client = await sdkClient(first.served.url);
      const asked = asTask(await client.sendMessage(send([text("TOOL npm test")])));
      ({ id: taskId, contextId } = asked);
      expect(asked.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
      const [stored] = await first.agent.thread(`a2a:${contextId}`).pendingApprovals();
      expect(stored).toMatchObject({ status: "pending", kind: "permission", toolName: "shell", input: { command: "npm test" } });
      expect(approvalOf(asked)).toMatchObject({
        id: stored!.id,
        kind: "permission",
        toolName: "shell",
        input: { command: "npm test" },
        suspended: true,
      });
      expect(partsText(asked.status?.message?.parts)).toContain('answer with { decision: "approve" }');
    } finally {
      await first.close();
    }

    // The first server and its agent are gone; a new one shares only the two stores.
    const second = await host(threadStore, taskStore);
    try {
      const client = await sdkClient(second.served.url);
      const states: TaskState[] = [];
      let answer = "";
      for await (const event of client.sendMessageStream(send([data({ decision: "approve" })], taskId))) {
        const payload = event.payload;
        if (payload?.$case === "statusUpdate" && payload.value.status) states.push(payload.value.status.state);
        if (payload?.$case === "artifactUpdate" && payload.value.lastChunk) answer = partsText(payload.value.artifact?.parts);
      }
      expect(states.at(-1)).toBe(TaskState.TASK_STATE_COMPLETED);
      expect(answer).toContain("Done");
      const task = await client.getTask({ tenant: "", id: taskId });
      expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
      expect(task.artifacts.map((a) => a.artifactId)).toEqual([RESPONSE_ARTIFACT_ID]);
      expect(await second.agent.thread(`a2a:${contextId}`).pendingApprovals()).toEqual([]);
    } finally {
      await second.close();
    }
  });

  it("an answer that does not fit the suspended approval, or names another id, leaves it waiting and says so; nothing is recorded", async () => {
    const { served, client, asked, id } = await suspendedTask(new MemoryThreadStore());
    try {
      const wrongId = asTask(await client.sendMessage(send([data({ decision: "approve", id: "nope" })], asked.id)));
      expect(wrongId.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
      expect(partsText(wrongId.status?.message?.parts)).toMatch(/^no waiting approval has the id "nope" \(waiting: [^)]+\)\. shell: make/);
      const wrongKind = asTask(await client.sendMessage(send([data({ decision: "answer", choice: "x" })], asked.id)));
      expect(partsText(wrongKind.status?.message?.parts)).toMatch(/^that answer does not fit the waiting approval\. shell: make/);
      expect(approvalOf(wrongKind)).toMatchObject({ id, suspended: true });
      expect((await served.agent.thread(`a2a:${asked.contextId}`).pendingApprovals()).map((p) => p.status)).toEqual(["pending"]);
      const done = asTask(await client.sendMessage(send([text("deny")], asked.id)));
      expect(done.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    } finally {
      await served.close();
    }
  });

  it("an answer to a suspended task whose approval another server already answered is refused; the task stays input-required", async () => {
    const threadStore = new MemoryThreadStore();
    const { served, client, asked, id } = await suspendedTask(threadStore);
    try {
      // Another server, sharing the thread store, recorded its answer and resumes the turn there.
      await threadStore.answerPendingApproval(id, { outcome: "approve" });
      const refused = await client.sendMessage(send([data({ decision: "deny" })], asked.id)).then(
        () => undefined,
        (error: unknown) => error as Error,
      );
      expect(refused?.message).toContain(`approval ${id} of task ${asked.id} was already answered by another message`);
      expect((await client.getTask({ tenant: "", id: asked.id })).status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    } finally {
      await served.close();
    }
  });

  it("two answers racing for one suspended task: exactly one resumes it, the other gets an A2A error", async () => {
    const served = await host(new MemoryThreadStore(), new InMemoryTaskStore());
    try {
      const [alice, bob] = [await sdkClient(served.served.url), await sdkClient(served.served.url)];
      for (let round = 0; round < 6; round++) {
        const asked = asTask(await alice.sendMessage(send([text(`TOOL make r${round}`)])));
        expect(asked.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
        const settled = await Promise.allSettled([
          alice.sendMessage(send([data({ decision: "approve" })], asked.id)),
          bob.sendMessage(send([data({ decision: "deny" })], asked.id)),
        ]);
        const won = settled.filter((s): s is PromiseFulfilledResult<Task | Message> => s.status === "fulfilled");
        const lost = settled.filter((s): s is PromiseRejectedResult => s.status === "rejected");
        expect({ round, won: won.length, lost: lost.length }).toEqual({ round, won: 1, lost: 1 });
        expect(asTask(won[0]!.value).status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
        expect((lost[0]!.reason as Error).message).toMatch(/already being resumed|is not waiting for input|terminal state \(completed\)/);
      }
    } finally {
      await served.close();
    }
  });
});
