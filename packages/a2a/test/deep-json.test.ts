// A hostile agent or model may ask an approval whose input is nested thousands of levels deep (the
// SDK denies it without asking: nobody could read it all), or one JSON cannot encode at all: the
// task still becomes input-required, the official @a2a-js/sdk client answers it, and the task completes.
import { TaskState, type Task } from "@a2a-js/sdk";
import type { Driver } from "@adaptor/driver";
import { REFERENCE_DESCRIPTOR } from "@adaptor/driver/testing";
import { Agent } from "adaptor";
import { afterEach, describe, expect, it } from "vitest";
import { asTask, sdkClient, send, serve, text, type Served } from "./support.js";

/** Arrays nested `depth` levels. */
function nested(depth: number): unknown {
  let value: unknown = [];
  for (let i = 1; i < depth; i++) value = [value];
  return value;
}

/** A driver whose run asks one permission with `input`, then answers with the outcome. */
function askingDriver(input: unknown): Driver {
  return {
    descriptor: REFERENCE_DESCRIPTOR,
    validateConfig() {},
    async run(_request, sink) {
      const decision = await sink.requestApproval({ kind: "permission", title: "shell: ls", toolName: "shell", toolCallId: "c1", input });
      const text = `ls: ${decision.outcome}`;
      sink.emit({ type: "text-delta", text });
      return { text, transcript: [], raw: { stdout: "", stderr: "" } };
    },
  };
}

function approvalOf(task: Task): Record<string, unknown> | undefined {
  const part = task.status?.message?.parts.find((p) => p.content?.$case === "data");
  return part?.content?.$case === "data" ? (part.content.value as { approval: Record<string, unknown> }).approval : undefined;
}

let served: Served | undefined;
let agent: Agent | undefined;
afterEach(async () => {
  await served?.close();
  await agent?.close();
  served = agent = undefined;
});

describe("an approval whose input is nested too deep or not encodable as JSON", () => {
  it("nested 5000 deep: denied without asking (nobody can read it all), the task completes without asking for input", async () => {
    agent = new Agent(askingDriver({ command: "ls", x: nested(5000) }));
    served = await serve(agent);
    const client = await sdkClient(served.url);
    const first = asTask(await client.sendMessage(send([text("go")])));
    expect(first.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(JSON.stringify(first)).toContain("ls: deny");
  });

  it("holding a BigInt: the task is input-required, the approval without its input and saying so; denied, it completes", async () => {
    agent = new Agent(askingDriver({ command: "ls", n: 1n }));
    served = await serve(agent);
    const client = await sdkClient(served.url);
    const first = asTask(await client.sendMessage(send([text("go")])));
    expect(first.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    const approval = approvalOf(first);
    expect(approval?.["input"]).toBeUndefined();
    expect(approval?.["unencodable"]).toEqual(["input"]);
    const answered = asTask(await client.sendMessage(send([text("deny")], first.id)));
    expect(answered.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
  });
});
