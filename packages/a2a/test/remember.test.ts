// "Always allow" over A2A: an `input-required` approval's data part lists its `suggestions`, and an
// answer's data part may carry one back as `remember`, which the run applies as
// `request.approve({ remember })` does: its later matching asks are answered without asking.
import { TaskState, type Task } from "@a2a-js/sdk";
import type { Client } from "@a2a-js/sdk/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { asTask, data, partsText, sdkClient, send, serve, text, type Served } from "./support.js";

const NPM_TEST = { toolName: "shell", command: "npm test" };

/** The approval a task's `input-required` status shows (its data part). */
function approvalOf(task: Task): { id: string; suggestions?: unknown[] } {
  const part = task.status?.message?.parts.find((p) => p.content?.$case === "data");
  if (part?.content?.$case !== "data") throw new Error("no data part");
  return (part.content.value as { approval: { id: string; suggestions?: unknown[] } }).approval;
}

describe("A2A: remember", () => {
  let served: Served;
  let client: Client;
  beforeAll(async () => {
    served = await serve();
    client = await sdkClient(served.url);
  });
  afterAll(async () => {
    await served?.close();
  });

  it("the approval lists its suggestions; an approve remembering one completes the task: the second ask is answered by the rule, not shown", async () => {
    const first = asTask(await client.sendMessage(send([text("TOOL npm test\nTOOL npm test")])));
    expect(first.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    const approval = approvalOf(first);
    expect(approval.suggestions).toEqual([NPM_TEST]);
    const answered = asTask(await client.sendMessage(send([data({ decision: "approve", remember: approval.suggestions![0] })], first.id)));
    expect(answered.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(partsText(answered.artifacts[0]?.parts)).toBe("Done: ran npm test");
  });

  it("a rule that does not match the approval, a malformed one or a remember that is not an object leaves the task input-required; nothing is decided", async () => {
    const first = asTask(await client.sendMessage(send([text("TOOL npm test")])));
    for (const answer of [
      { decision: "approve", remember: { toolName: "shell", command: "make" } },
      { decision: "deny", remember: { scope: "run" } },
      { decision: "approve", remember: "always" },
    ]) {
      const wrong = asTask(await client.sendMessage(send([data(answer)], first.id)));
      expect(wrong.status?.state, JSON.stringify(answer)).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
      expect(partsText(wrong.status?.message?.parts)).toMatch(/^that answer does not fit the waiting approval\./);
    }
    const answered = asTask(await client.sendMessage(send([data({ decision: "approve" })], first.id)));
    expect(answered.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
  });
});
