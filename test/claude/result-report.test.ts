import { afterEach, describe, expect, it } from "vitest";
import { MemoryThreadStore } from "@adaptor/threadstore";
import { whenToolResult, whenUserSays, type ScriptRule } from "@adaptor/testkit";
import { Agent, type AgentEvent, type Result, type Stream } from "adaptor";
import { claude } from "@adaptor/claude";
import { harness, type Harness } from "./support.js";

// What a Claude Agent SDK result says beyond text, usage and cost, on the real binary: the model
// responses of the run (`num_turns`), its API time (`duration_api_ms`), usage per model
// (`modelUsage`) and the refused tool calls (`permission_denials`), each for the run alone; and
// the `system` lines a peer app reads (`init`, `compact_boundary`) as typed notices.

const MODEL = "claude-sonnet-4-5";
// claude-sonnet-4-5 list prices: $3 per million input tokens, $15 per million output tokens.
const cost = (input: number, output: number): number => (input * 3 + output * 15) / 1_000_000;

const RULES: ScriptRule[] = [
  { when: whenUserSays("report-one"), reply: { text: "first", usage: { input_tokens: 100, output_tokens: 10 } } },
  { when: whenUserSays("report-deny"), reply: { toolUse: { name: "Bash", input: { command: "echo denied" } } } },
  { when: whenToolResult("Bash"), reply: { text: "after the denial", usage: { input_tokens: 120, output_tokens: 12 } } },
  { when: whenUserSays("report-two"), reply: { text: "second", usage: { input_tokens: 200, output_tokens: 20 } } },
  { when: whenUserSays("report-three"), reply: { text: "third", usage: { input_tokens: 300, output_tokens: 30 } } },
];

let h: Harness | undefined;
let agent: Agent | undefined;
afterEach(async () => {
  await agent?.close();
  await h?.close();
  h = agent = undefined;
});

interface Turn {
  readonly result: Result;
  readonly events: AgentEvent[];
  /** The terminal `result` line the CLI wrote. */
  readonly line: { duration_api_ms: number; num_turns: number };
}

async function turn(stream: Stream): Promise<Turn> {
  const events: AgentEvent[] = [];
  for await (const event of stream) events.push(event);
  const result = await stream.result();
  return { result, events, line: JSON.parse(result.raw().terminal?.json ?? "{}") as Turn["line"] };
}

type Notice = Extract<AgentEvent, { type: "notice" }>;

function notices(events: readonly AgentEvent[], kind: string): Notice[] {
  return events.filter((event): event is Notice => event.type === "notice" && event.kind === kind);
}

describe("a Claude result's turn count, API time, usage per model and permission denials (real binary)", { timeout: 240_000 }, () => {
  it("each run reports its own: fresh, with a denied call, a /compact, reused after it, resumed in a new process", async () => {
    h = await harness(RULES);
    agent = new Agent(claude({ cwd: h.env.workDir, env: h.env.env, inheritEnv: false, model: MODEL }), {
      threadStore: new MemoryThreadStore(),
      policy: { approvals: { permission: "ask" } },
      onApproval: (request) => request.deny("not this one"),
    });
    const thread = agent.thread("report");
    const one = await turn(thread.stream("report-one"));
    const deny = await turn(thread.stream("report-deny"));
    const compact = await turn(thread.stream("/compact"));
    const two = await turn(thread.stream("report-two"));
    const three = await turn(thread.stream("report-three", { spawn: true }));

    // numTurns: the model responses of the run, as many as its model.response notices.
    expect([one, deny, compact, two, three].map((t) => t.result.numTurns)).toEqual([1, 2, 0, 1, 1]);
    for (const t of [one, deny, compact, two, three]) expect(t.result.numTurns).toBe(notices(t.events, "model.response").length);

    // permissionDenials: the call the host denied, with its id and input; none elsewhere.
    const call = deny.events.find((event) => event.type === "tool-call" && event.phase === "end");
    expect(deny.result.permissionDenials).toEqual([
      { toolName: "Bash", toolCallId: call?.type === "tool-call" ? call.id : "?", input: { command: "echo denied" } },
    ]);
    for (const t of [one, compact, two, three]) expect(t.result.permissionDenials).toEqual([]);

    // modelUsage: this run's tokens and cost under the model that used them.
    expect(one.result.modelUsage).toEqual({
      [MODEL]: { inputTokens: 100, outputTokens: 10, cacheReadTokens: 0, cacheWriteTokens: 0, costUsd: expect.closeTo(cost(100, 10), 12) },
    });
    expect(two.result.modelUsage?.[MODEL]).toMatchObject({ inputTokens: 200, outputTokens: 20 });
    expect(three.result.modelUsage?.[MODEL]).toMatchObject({ inputTokens: 300, outputTokens: 30 });
    expect(three.result.modelUsage?.[MODEL]?.costUsd).toBeCloseTo(cost(300, 30), 12);
    for (const t of [one, deny, two, three]) {
      expect(Object.keys(t.result.modelUsage ?? {})).toEqual([MODEL]);
      expect(t.result.modelUsage?.[MODEL]?.costUsd).toBeCloseTo(t.result.costUsd!, 12);
    }
    // The /compact summary is a model request of its own: priced in the run's model usage.
    expect(compact.result.modelUsage?.[MODEL]?.outputTokens).toBeGreaterThan(0);

    // durationApiMs: the growth of the session's running API time over the run.
    expect(one.result.durationApiMs).toBe(one.line.duration_api_ms);
    expect(deny.result.durationApiMs).toBe(deny.line.duration_api_ms - one.line.duration_api_ms);
    // A local command's result reports no API time (0); the next run's growth counts from before it.
    expect(compact.line.duration_api_ms).toBe(0);
    expect(compact.result.durationApiMs).toBeUndefined();
    expect(two.result.durationApiMs).toBe(two.line.duration_api_ms - deny.line.duration_api_ms);
    // A new process restored the running total: this run's share cannot be known.
    expect(three.line.duration_api_ms).toBeGreaterThan(two.line.duration_api_ms);
    expect(three.result.durationApiMs).toBeUndefined();
  });

  it("a turn the CLI answers itself (/rename) made no model call: numTurns 0, no model.response notice", async () => {
    h = await harness(RULES);
    agent = new Agent(claude({ cwd: h.env.workDir, env: h.env.env, inheritEnv: false, model: MODEL }), {
      threadStore: new MemoryThreadStore(),
    });
    const thread = agent.thread("rename");
    await turn(thread.stream("report-one"));
    const before = h.server.requests.length;
    const rename = await turn(thread.stream("/rename Budget review"));
    expect(h.server.requests.length).toBe(before);
    expect(rename.result.text).toContain("Budget review");
    expect(rename.result.numTurns).toBe(0);
    expect(notices(rename.events, "model.response")).toEqual([]);
    const next = await turn(thread.stream("report-two"));
    expect(next.result.numTurns).toBe(1);
    expect(notices(next.events, "model.response")).toHaveLength(1);
  });

  it("a subagent on another model has its own modelUsage entry; numTurns counts the main conversation's responses only", async () => {
    h = await harness([
      {
        name: "delegate",
        when: whenUserSays("report-delegate"),
        reply: {
          toolUse: { name: "Agent", input: { description: "review", prompt: "report-subagent", subagent_type: "reviewer" } },
          usage: { input_tokens: 100, output_tokens: 10 },
        },
      },
      { name: "subagent", when: whenUserSays("report-subagent"), reply: { text: "fine", usage: { input_tokens: 40, output_tokens: 4 } } },
      { name: "parent", when: whenToolResult("Agent"), reply: { text: "reviewed", usage: { input_tokens: 200, output_tokens: 20 } } },
    ]);
    agent = new Agent(claude({ cwd: h.env.workDir, env: h.env.env, inheritEnv: false, model: MODEL }));
    const stream = agent.stream("report-delegate", {
      agents: { reviewer: { description: "Reviews", prompt: "You review.", model: "claude-haiku-4-5" } },
      policy: { approvals: { permission: "auto_approve" } },
    });
    const { result, events } = await turn(stream);
    expect(h.server.requests.map((r) => r.rule)).toEqual(["delegate", "subagent", "parent"]);
    expect(result.numTurns).toBe(2);
    expect(notices(events, "model.response")).toHaveLength(2);
    expect(result.modelUsage).toEqual({
      [MODEL]: { inputTokens: 300, outputTokens: 30, cacheReadTokens: 0, cacheWriteTokens: 0, costUsd: expect.closeTo(cost(300, 30), 12) },
      "claude-haiku-4-5": { inputTokens: 40, outputTokens: 4, cacheReadTokens: 0, cacheWriteTokens: 0, costUsd: expect.any(Number) },
    });
    // The run's cost is the sum over its models.
    const sum = Object.values(result.modelUsage ?? {}).reduce((total, usage) => total + usage.costUsd!, 0);
    expect(result.costUsd).toBeCloseTo(sum, 12);
  });

  it("the system init line is a session.init notice and /compact's boundary a context.compacted notice", async () => {
    h = await harness(RULES);
    agent = new Agent(claude({ cwd: h.env.workDir, env: h.env.env, inheritEnv: false, model: MODEL }), {
      threadStore: new MemoryThreadStore(),
    });
    const thread = agent.thread("compact");
    const one = await turn(thread.stream("report-one"));
    const [init] = notices(one.events, "session.init");
    expect(init?.data).toMatchObject({
      sessionId: one.result.sessionId,
      model: MODEL,
      cwd: h.env.workDir,
      mcpServers: [],
      permissionMode: "default",
    });
    expect(init?.data?.tools).toEqual(expect.arrayContaining(["Bash", "Read", "Write"]));
    expect(init?.data?.slashCommands).toEqual(expect.arrayContaining(["compact"]));
    expect(notices(one.events, "context.compacted")).toEqual([]);

    const compact = await turn(thread.stream("/compact"));
    expect([compact.result.text, compact.result.numTurns]).toEqual(["", 0]);
    const compacted = notices(compact.events, "context.compacted");
    expect(compacted).toHaveLength(1);
    expect(compacted[0]?.data).toMatchObject({ trigger: "manual", preTokens: expect.any(Number), postTokens: expect.any(Number) });
    expect(compacted[0]?.data?.preTokens).toBeGreaterThan(0);
    // The line itself still comes as it always did.
    expect(notices(compact.events, "runtime").some((notice) => notice.message === "compact_boundary")).toBe(true);
  });
});
