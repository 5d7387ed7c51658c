import { HttpAgent } from "@ag-ui/client";
import type { BaseEvent } from "@ag-ui/core";
import type { DriverRequest, DriverResponse, DriverSink } from "@adaptor/driver";
import { ReferenceDriver } from "@adaptor/driver/testing";
import { Agent } from "adaptor";
import { afterEach, describe, expect, it } from "vitest";
import { AG_UI_CUSTOM_EVENTS } from "../src/index.js";
import { postJson, rawRequest, serve, sseMessages, type Served, type SseMessage } from "./support.js";

// A hostile agent or model may send a value nested thousands of levels deep, or one JSON cannot
// encode at all: the stream still ends with its verdict (raw `run-finished`, AG-UI
// `RUN_FINISHED`/`RUN_ERROR`). A client's input nested too deep is refused before any run starts.

/** Arrays nested `depth` levels. */
function nested(depth: number): unknown {
  let value: unknown = [];
  for (let i = 1; i < depth; i++) value = [value];
  return value;
}

type Hostility = "deep-call" | "deep-ask" | "bigint-call";

/** The reference driver, after one hostile event: a tool call or an approval whose input is `deep-…` nested 5000 levels, or `bigint-…` holds a BigInt. */
class HostileDriver extends ReferenceDriver {
  constructor(readonly hostility: Hostility) {
    super({ latencyMs: 0 });
  }

  override async run(request: DriverRequest, sink: DriverSink, signal: AbortSignal): Promise<DriverResponse> {
    const input = this.hostility === "bigint-call" ? { command: "ls", n: 1n } : { command: "ls", x: nested(5000) };
    if (this.hostility === "deep-ask") {
      await sink.requestApproval({ kind: "permission", title: "Bash: ls", toolName: "Bash", toolCallId: "t1", input });
    }
    sink.emit({ type: "tool-call", phase: "start", id: "t1", name: "Bash" });
    sink.emit({ type: "tool-call", phase: "end", id: "t1", name: "Bash", input });
    sink.emit({ type: "tool-result", id: "t1", name: "Bash", output: "ok", isError: false });
    return super.run(request, sink, signal);
  }
}

let served: Served | undefined;
let runsStarted = 0;
let lastRunId = "";
afterEach(async () => {
  await served?.close();
  served = undefined;
});

async function serveHostile(): Promise<Served> {
  const agents = new Map<string, Agent>();
  served = await serve({
    runner: ({ prompt }) => {
      runsStarted++;
      const hostility = prompt.split(" ")[0] as Hostility;
      let agent = agents.get(hostility);
      if (!agent) agents.set(hostility, (agent = new Agent(new HostileDriver(hostility))));
      return agent;
    },
  });
  return served;
}

async function rawRun(url: string, prompt: string): Promise<SseMessage[]> {
  const response = await postJson(`${url}/runs`, { prompt });
  expect(response.status).toBe(200);
  lastRunId = response.headers.get("x-adaptor-run-id")!;
  const messages: SseMessage[] = [];
  for await (const message of sseMessages(response)) {
    messages.push(message);
    const data = message.data as { type?: string; request?: { id: string } };
    if (data.type === "approval-request") {
      const answer = await postJson(`${url}/approvals/${data.request!.id}`, { decision: "approve" });
      expect(answer.status).toBeLessThan(300);
    }
  }
  return messages;
}

async function agUiRun(url: string, prompt: string): Promise<BaseEvent[]> {
  const agent = new HttpAgent({ url: `${url}/ag-ui`, initialMessages: [{ id: "u1", role: "user", content: prompt }] });
  const events: BaseEvent[] = [];
  await agent
    .runAgent(
      {},
      {
        onEvent: ({ event }) => {
          events.push(event);
          const custom = event as BaseEvent & { name?: string; value?: { id?: string } };
          if (custom.name === AG_UI_CUSTOM_EVENTS.approvalRequest)
            void postJson(`${url}/approvals/${custom.value!.id!}`, { decision: "approve" });
        },
      },
    )
    .catch(() => undefined);
  return events;
}

describe("a value nested thousands of levels deep or not encodable as JSON: the bridge's stream keeps its verdict", () => {
  it("raw: a tool call's input nested 5000 deep arrives cut, and run-finished follows; a reconnect from 0 replays it all", async () => {
    const { url } = await serveHostile();
    const messages = await rawRun(url, "deep-call go");
    const types = messages.map((m) => m.data["type"]);
    expect(types.at(-1)).toBe("run-finished");
    expect(messages.at(-1)!.data["ok"]).toBe(true);
    const end = messages.find((m) => m.data["type"] === "tool-call" && m.data["phase"] === "end");
    expect(JSON.stringify(end!.data["input"])).toContain("[nested deeper than 64 levels]");
    const again = await fetch(`${url}/runs/${lastRunId}/events`, { headers: { "last-event-id": "0" } });
    expect(again.status).toBe(200);
    const replayed: SseMessage[] = [];
    for await (const message of sseMessages(again)) replayed.push(message);
    expect(replayed.map((m) => m.data["type"])).toEqual(types);
  });

  it("raw: an approval whose input is nested 5000 deep is denied without asking (nobody can read it all), and the run finishes ok", async () => {
    const { url, settledRun } = await serveHostile();
    const messages = await rawRun(url, "deep-ask go");
    const types = messages.map((m) => m.data["type"]);
    expect(types).not.toContain("approval-request");
    const notice = messages.find((m) => m.data["type"] === "notice" && m.data["kind"] === "approval.unreadable");
    expect(notice?.data["message"]).toMatch(/nest deeper than 64 levels/);
    expect(types.at(-1)).toBe("run-finished");
    expect(messages.at(-1)!.data["ok"]).toBe(true);
    // The bridge reports the run ok, as its stream does.
    expect((await settledRun(lastRunId)).error).toBeUndefined();
  });

  it("raw: an event JSON cannot encode (a BigInt in a tool input) becomes a bridge.unencodable notice, then run-finished", async () => {
    const { url } = await serveHostile();
    const messages = await rawRun(url, "bigint-call go");
    const types = messages.map((m) => m.data["type"]);
    expect(types.at(-1)).toBe("run-finished");
    expect(messages.at(-1)!.data["ok"]).toBe(true);
    const notice = messages.find((m) => m.data["type"] === "notice" && m.data["kind"] === "bridge.unencodable");
    expect(notice?.data["data"]).toEqual({ eventType: "tool-call" });
    // The notice keeps the event's sequence as its SSE id: ids stay strictly increasing.
    const ids = messages.map((m) => Number(m.id));
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
  });

  it("ag-ui (@ag-ui/client): a deep tool input, a deep approval input and an unencodable input each end with RUN_FINISHED", async () => {
    const { url } = await serveHostile();
    for (const prompt of ["deep-call go", "bigint-call go"]) {
      const events = await agUiRun(url, prompt);
      expect(events.map((e) => e.type).at(-1)).toBe("RUN_FINISHED");
    }
    const asked = await agUiRun(url, "deep-ask go");
    // The approval is denied without asking (nobody can read it all) instead of the run being cancelled.
    expect(asked.map((e) => e.type).at(-1)).toBe("RUN_FINISHED");
    expect(JSON.stringify(asked)).toContain("approval.unreadable");
  });

  it("ag-ui: an input whose state is nested 5000 deep is a 400 bad_request, and no run starts", async () => {
    const { url } = await serveHostile();
    const before = runsStarted;
    const body = JSON.stringify({
      threadId: "t",
      runId: "r",
      messages: [{ id: "m", role: "user", content: "deep-call go" }],
      tools: [],
      context: [],
      state: { x: 0 },
      forwardedProps: {},
    }).replace('"x":0', `"x":${"[".repeat(5000)}${"]".repeat(5000)}`);
    const response = await rawRequest(url, "/ag-ui", { headers: { "content-type": "application/json" }, body });
    expect(response.status).toBe(400);
    expect(response.body["error"]).toMatchObject({ code: "bad_request" });
    expect(runsStarted).toBe(before);
  });
});
