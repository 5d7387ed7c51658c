import { randomUUID } from "node:crypto";
import { HttpAgent } from "@ag-ui/client";
import type { BaseEvent, Message } from "@ag-ui/core";
import { afterEach, describe, expect, it } from "vitest";
import { AG_UI_CUSTOM_EVENTS } from "../src/index.js";
import { postJson, referenceAgent, serve, type Served } from "./support.js";

// The `ag-ui` protocol consumed by the real @ag-ui/client HttpAgent, on the scripted reference driver.

let served: Served | undefined;
afterEach(async () => {
  await served?.close();
  served = undefined;
});

function userMessage(content: string): Message {
  return { id: randomUUID(), role: "user", content };
}

describe("ag-ui protocol: @ag-ui/client's HttpAgent", () => {
  it("runs a prompt: the client verifies the event order and ends with the assistant's message and the run's result", async () => {
    served = await serve({ runner: referenceAgent() });
    const agent = new HttpAgent({ url: `${served.url}/ag-ui`, threadId: "thread-1", initialMessages: [userMessage("hello ag-ui")] });
    const types: string[] = [];
    const { result, newMessages } = await agent.runAgent({ runId: "run-1" }, { onEvent: ({ event }) => void types.push(event.type) });
    expect(types[0]).toBe("RUN_STARTED");
    expect(types).toContain("TEXT_MESSAGE_CONTENT");
    expect(types.at(-1)).toBe("RUN_FINISHED");
    expect(newMessages).toEqual([expect.objectContaining({ role: "assistant", content: "Reference reply #1: hello ag-ui" })]);
    expect(result).toEqual({ text: "Reference reply #1: hello ag-ui" });
    expect(agent.state).toEqual({ adaptor: { approvals: {} } });
    expect((await served.settledRun("run-1")).result?.text).toBe("Reference reply #1: hello ag-ui");
  });

  it("an approval answered through the client: a CUSTOM event and the state carry it (with inputEditable), the POST resolves it, the tool call and result become messages", async () => {
    served = await serve({ runner: referenceAgent() });
    const url = served.url;
    const agent = new HttpAgent({ url: `${url}/ag-ui`, initialMessages: [userMessage("TOOL npm test")] });
    const statuses: string[] = [];
    const editable: boolean[] = [];
    const { newMessages } = await agent.runAgent(
      {},
      {
        onCustomEvent: async ({ event }) => {
          if (event.name !== AG_UI_CUSTOM_EVENTS.approvalRequest) return;
          const request = event.value as { id: string; kind: string; toolName: string };
          expect(request).toMatchObject({ kind: "permission", toolName: "shell" });
          const answer = await postJson(`${url}/approvals/${request.id}`, { decision: "approve" });
          expect(answer.status).toBe(200);
        },
        onStateChanged: ({ state }) => {
          const approvals = (state as { adaptor: { approvals: Record<string, { status: string; inputEditable: boolean }> } }).adaptor
            .approvals;
          for (const approval of Object.values(approvals)) {
            statuses.push(approval.status);
            editable.push(approval.inputEditable);
          }
        },
      },
    );
    expect(statuses[0]).toBe("pending");
    expect(statuses.at(-1)).toBe("approved");
    // The reference driver runs an edited input: the state says so, as the CUSTOM event's value does.
    expect(editable[0]).toBe(true);
    const call = newMessages.find((m) => m.role === "assistant" && m.toolCalls?.length);
    expect(call?.role === "assistant" && call.toolCalls?.[0]).toMatchObject({
      function: { name: "shell", arguments: JSON.stringify({ command: "npm test" }) },
    });
    expect(newMessages.find((m) => m.role === "tool")).toMatchObject({ content: "ran npm test" });
    expect(newMessages.at(-1)).toMatchObject({ role: "assistant", content: "Done: ran npm test" });
  });

  it("a failed run ends with RUN_ERROR: code = the reason, a redacted one-line message", async () => {
    served = await serve({ runner: referenceAgent() });
    const agent = new HttpAgent({
      url: `${served.url}/ag-ui`,
      initialMessages: [userMessage("FAIL bad token=abc123def456ghi\n    at x (/srv/y.js:1:1)")],
    });
    const errors: BaseEvent[] = [];
    const { newMessages } = await agent.runAgent({}, { onRunErrorEvent: ({ event }) => void errors.push(event) });
    expect(newMessages).toEqual([]);
    expect(errors).toEqual([expect.objectContaining({ type: "RUN_ERROR", code: "agent_error", message: "bad token=[redacted]" })]);
  });

  it("a client that aborts mid-run cancels the run", async () => {
    served = await serve({ runner: referenceAgent(), reconnectGraceMs: 0 });
    const agent = new HttpAgent({ url: `${served.url}/ag-ui`, initialMessages: [userMessage("SLOW")] });
    const running = agent.runAgent({ runId: "slow-run" }, { onRunStartedEvent: () => agent.abortRun() });
    await running.catch(() => undefined);
    const settled = await served.settledRun("slow-run");
    expect((settled.error as Error).name).toBe("AbortError");
  });

  it("refuses an input that is not a RunAgentInput, a last message that is not the user's, and a runId in use", async () => {
    served = await serve({ runner: referenceAgent() });
    expect((await postJson(`${served.url}/ag-ui`, { prompt: "hi" })).status).toBe(400);
    const assistantLast = { threadId: "t", runId: "r", messages: [{ id: "m", role: "assistant", content: "hi" }], tools: [], context: [] };
    const refused = await postJson(`${served.url}/ag-ui`, assistantLast);
    expect(refused.status).toBe(400);
    expect(await refused.json()).toMatchObject({ error: { message: "the last message must be a user message with the prompt" } });
    const input = { threadId: "t", runId: "same", messages: [{ id: "m", role: "user", content: "TOOL x" }], tools: [], context: [] };
    const first = await postJson(`${served.url}/ag-ui`, input);
    expect(first.status).toBe(200);
    const second = await postJson(`${served.url}/ag-ui`, input);
    expect(second.status).toBe(409);
    expect(await second.json()).toMatchObject({ error: { code: "run_id_in_use" } });
    await first.body?.cancel();
  });
});
