import { randomUUID } from "node:crypto";
import { HttpAgent } from "@ag-ui/client";
import type { Interrupt, Message } from "@ag-ui/core";
import { MemoryThreadStore } from "@adaptor/threadstore";
import type { Agent } from "adaptor";
import { afterEach, describe, expect, it } from "vitest";
import { AG_UI_APPROVAL_INTERRUPT, INTERRUPT_CANCELLED_REASON } from "../src/index.js";
import { postJson, referenceAgent, serve, sseMessages, type Served } from "./support.js";

// A thread turn run with `suspend` through the bridge: it ends its run paused on the stored
// approval (AG-UI: RUN_FINISHED with an interrupt outcome; raw: run-finished with the approval), and
// a later run answers it (AG-UI: `resume` entries, through the real @ag-ui/client; raw: `resume`).

let served: Served | undefined;
let agent: Agent | undefined;
afterEach(async () => {
  await served?.close();
  await agent?.close();
  served = undefined;
  agent = undefined;
});

function userMessage(content: string): Message {
  return { id: randomUUID(), role: "user", content };
}

/** The `run-finished` event of a `raw` run's stream. */
async function finished(response: Response): Promise<Record<string, unknown>> {
  let last: Record<string, unknown> | undefined;
  for await (const message of sseMessages(response)) if (message.data.type === "run-finished") last = message.data;
  return last!;
}

/** A bridge whose runs are turns of the thread named by the request, suspended on their first ask. */
async function suspendingBridge(): Promise<{ served: Served; agent: Agent }> {
  const a = referenceAgent({ threadStore: new MemoryThreadStore() });
  const s = await serve({ runner: ({ threadKey }) => a.thread(threadKey ?? "default"), runOptions: { suspend: {} } });
  return { served: s, agent: a };
}

describe("suspended turns through the bridge", () => {
  it("ag-ui: the run ends with an interrupt for the stored approval (saying whether an edited input runs); a resume run approves it and the turn runs the tool", async () => {
    ({ served, agent } = await suspendingBridge());
    const client = new HttpAgent({ url: `${served.url}/ag-ui`, threadId: "thread-a", initialMessages: [userMessage("TOOL npm test")] });
    const outcomes: string[] = [];
    let interrupts: Interrupt[] = [];
    await client.runAgent(
      { runId: "run-1" },
      {
        onRunFinishedEvent: (params) => {
          outcomes.push(params.outcome);
          if (params.outcome === "interrupt") interrupts = params.interrupts;
        },
      },
    );
    expect(outcomes).toEqual(["interrupt"]);
    const [pending] = await agent.thread("thread-a").pendingApprovals();
    expect(interrupts).toEqual([
      expect.objectContaining({
        id: pending!.id,
        reason: AG_UI_APPROVAL_INTERRUPT,
        message: pending!.title,
        metadata: expect.objectContaining({ kind: "permission", toolName: "shell", input: { command: "npm test" }, inputEditable: true }),
      }),
    ]);
    expect(client.pendingInterrupts.map((interrupt) => interrupt.id)).toEqual([pending!.id]);
    // The answer's JSON Schema, derived from what the bridge accepts: one object per decision.
    const variants = (interrupts[0]!.responseSchema as { anyOf: { properties: { decision: { const: string } }; required: string[] }[] })
      .anyOf;
    expect(variants.map((v) => [v.properties.decision.const, v.required])).toEqual([
      ["approve", ["decision"]],
      ["deny", ["decision"]],
      ["answer", ["decision", "choice"]],
    ]);
    expect((await served.settledRun("run-1")).result?.status).toBe("suspended");

    const { newMessages } = await client.runAgent(
      { runId: "run-2", resume: [{ interruptId: pending!.id, status: "resolved", payload: { decision: "approve" } }] },
      { onRunFinishedEvent: (params) => void outcomes.push(params.outcome) },
    );
    expect(outcomes).toEqual(["interrupt", "success"]);
    expect(newMessages.find((m) => m.role === "tool")).toMatchObject({ content: "ran npm test" });
    expect(newMessages.at(-1)).toMatchObject({ role: "assistant", content: "Done: ran npm test" });
    expect(client.pendingInterrupts).toEqual([]);
    expect((await agent.thread("thread-a").pendingApprovals()).filter((p) => p.status === "pending")).toEqual([]);
    expect((await served.settledRun("run-2")).result?.status).toBe("completed");
  });

  it("ag-ui: the interrupt's RUN_FINISHED carries the usage and text of what ran before the question", async () => {
    ({ served, agent } = await suspendingBridge());
    const client = new HttpAgent({ url: `${served.url}/ag-ui`, threadId: "thread-u", initialMessages: [userMessage("TOOL npm test")] });
    let finished: Record<string, unknown> | undefined;
    await client.runAgent(
      { runId: "run-u" },
      { onRunFinishedEvent: ({ event }) => void (finished = event as unknown as Record<string, unknown>) },
    );
    expect(finished).toMatchObject({
      outcome: { type: "interrupt" },
      result: { text: "" },
      usage: [{ model: "reference-model", inputTokens: "TOOL npm test".length, outputTokens: 0 }],
    });
    const settled = (await served.settledRun("run-u")).result!;
    expect(settled.usage).toEqual({ inputTokens: "TOOL npm test".length, outputTokens: 0 });
    expect(settled.transcript().map((item) => item.kind)).toEqual(["user", "tool-call"]);
  });

  it("ag-ui: a resume entry with status cancelled denies the approval, and the turn goes on with the denial", async () => {
    ({ served, agent } = await suspendingBridge());
    const client = new HttpAgent({ url: `${served.url}/ag-ui`, threadId: "thread-b", initialMessages: [userMessage("TOOL rm -rf build")] });
    await client.runAgent({ runId: "run-1" });
    const [interrupt] = client.pendingInterrupts;
    const { newMessages } = await client.runAgent({ runId: "run-2", resume: [{ interruptId: interrupt!.id, status: "cancelled" }] });
    expect(newMessages.at(-1)).toMatchObject({ role: "assistant", content: `Done: denied: ${INTERRUPT_CANCELLED_REASON}` });
  });

  it("ag-ui: a resume the runner cannot take (an Agent) is 422, and a malformed payload or two entries are 400, before any run starts", async () => {
    const plain = referenceAgent();
    served = await serve({ runner: plain });
    const input = (resume: unknown[]) => ({ threadId: "t", runId: randomUUID(), messages: [], tools: [], context: [], resume });
    const resolved = { interruptId: "a1", status: "resolved", payload: { decision: "approve" } };
    const unsupported = await postJson(`${served.url}/ag-ui`, input([resolved]));
    expect(unsupported.status).toBe(422);
    expect(((await unsupported.json()) as { error: { code: string } }).error.code).toBe("resume_unsupported");
    const badPayload = await postJson(`${served.url}/ag-ui`, input([{ ...resolved, payload: { decision: "maybe" } }]));
    expect(badPayload.status).toBe(400);
    expect(((await badPayload.json()) as { error: { message: string } }).error.message).toContain("the resume payload");
    const two = await postJson(`${served.url}/ag-ui`, input([resolved, { ...resolved, interruptId: "a2" }]));
    expect(two.status).toBe(400);
    expect(served.settled).toEqual([]);
    await plain.close();
  });

  it("a resume that cannot go on ends its run with a code saying why: approval_not_pending, approval_kind_mismatch; a raw resume needs its threadKey", async () => {
    ({ served, agent } = await suspendingBridge());
    const url = served.url;
    const first = await finished(await postJson(`${url}/runs`, { threadKey: "thread-c", prompt: "TOOL ls" }));
    const id = (first.pendingApproval as { id: string }).id;
    const resume = (body: Record<string, unknown>) =>
      postJson(`${url}/runs`, { threadKey: "thread-c", resume: { approvalId: id, ...body } });
    expect(await finished(await resume({ decision: "answer", choice: "x" }))).toMatchObject({ ok: false, code: "approval_kind_mismatch" });
    expect(await finished(await resume({ decision: "approve" }))).toMatchObject({ ok: true });
    expect(await finished(await resume({ decision: "approve" }))).toMatchObject({ ok: false, code: "approval_not_pending" });
    const noKey = await postJson(`${served.url}/runs`, { resume: { approvalId: id, decision: "approve" } });
    expect(noKey.status).toBe(400);

    const client = new HttpAgent({ url: `${served.url}/ag-ui`, threadId: "thread-c", initialMessages: [userMessage("x")] });
    const codes: string[] = [];
    await client.runAgent(
      { runId: "late", resume: [{ interruptId: id, status: "resolved", payload: { decision: "approve" } }] },
      { onRunErrorEvent: ({ event }) => void codes.push(String(event.code)) },
    );
    expect(codes).toEqual(["approval_not_pending"]);
  });

  it("raw: run-finished carries the stored approval; a run with resume answers it, and a resume with a prompt is 400", async () => {
    ({ served, agent } = await suspendingBridge());
    const first = await finished(await postJson(`${served.url}/runs`, { threadKey: "thread-r", prompt: "TOOL ls" }));
    const pending = first.pendingApproval as { id: string; key: string; toolName: string; status: string; createdAt: string };
    expect(first).toMatchObject({ ok: true, suspended: true });
    expect(pending).toMatchObject({ key: "thread-r", toolName: "shell", status: "pending", input: { command: "ls" } });
    expect(new Date(pending.createdAt).toISOString()).toBe(pending.createdAt);
    expect(pending).not.toHaveProperty("turn");

    const withPrompt = await postJson(`${served.url}/runs`, {
      threadKey: "thread-r",
      prompt: "x",
      resume: { approvalId: pending.id, decision: "approve" },
    });
    expect(withPrompt.status).toBe(400);
    const resumed = await postJson(`${served.url}/runs`, {
      threadKey: "thread-r",
      resume: { approvalId: pending.id, decision: "approve" },
    });
    const second = await finished(resumed);
    expect(second).toMatchObject({ ok: true });
    expect(second).not.toHaveProperty("suspended");
    expect(second).not.toHaveProperty("pendingApproval");
    const settled = served.settled.at(-1)!;
    expect(settled.result?.text).toBe("Done: ran ls");
  });
});
