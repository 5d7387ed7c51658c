// A real Claude Code agent (pinned binary, scripted Anthropic server) delegates a sub-task through
// the a2aDelegation host tool to a second agent served by our A2A server: a second real Claude
// agent for the success path, a scripted reference agent for the remote failure. The sub-agent's
// progress arrives as notices of the parent run; a remote failure reaches the model as the
// DelegationError's code and message.
import { claude } from "@adaptor/claude";
import {
  claudeTestEnv,
  startAnthropicServer,
  whenToolResult,
  whenUserSays,
  type AnthropicServer,
  type ClaudeTestEnv,
  type ScriptRule,
} from "@adaptor/testkit";
import { Agent, type AgentEvent } from "adaptor";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { a2aDelegation, DELEGATION_NOTICE } from "../src/index.js";
import { serve, type Served } from "./support.js";

interface ClaudeSide {
  readonly server: AnthropicServer;
  readonly env: ClaudeTestEnv;
  readonly agent: Agent;
  close(): Promise<void>;
}

async function claudeAgent(rules: ScriptRule[], options: ConstructorParameters<typeof Agent>[1] = {}): Promise<ClaudeSide> {
  const server = await startAnthropicServer({ rules });
  const env = await claudeTestEnv({ server });
  const agent = new Agent(claude({ cwd: env.workDir, env: env.env, inheritEnv: false, model: "claude-sonnet-4-5" }), options);
  return {
    server,
    env,
    agent,
    async close() {
      await agent.close();
      await server.close();
      await env.cleanup();
    },
  };
}

const delegateCall = (task: string) => ({ toolUse: { name: "mcp__adaptor__delegate", input: { task } } });
const notices = (events: readonly AgentEvent[]) =>
  events.flatMap((e) => (e.type === "notice" && e.kind.startsWith("a2a.delegation.") ? [e] : []));

describe("a real claude agent delegates to a second agent over A2A", () => {
  let child: ClaudeSide;
  let childServed: Served;
  let failing: Served;
  let parent: ClaudeSide;

  beforeAll(async () => {
    child = await claudeAgent([
      {
        name: "review",
        when: whenUserSays("Check math.js for bugs"),
        reply: { text: "math.js: add() returns a - b; it should return a + b." },
      },
    ]);
    childServed = await serve(child.agent, { card: { name: "Reviewer", description: "Reviews code" } });
    failing = await serve(undefined, { card: { name: "Broken reviewer", description: "Always fails" } });
    parent = await claudeAgent(
      [
        { name: "delegate", when: whenUserSays("review the patch"), reply: delegateCall("Check math.js for bugs") },
        {
          name: "delegate-broken",
          when: whenUserSays("ask the broken reviewer"),
          reply: { toolUse: { name: "mcp__adaptor__delegate_broken", input: { task: "FAIL the reviewer crashed" } } },
        },
        {
          name: "relay",
          when: whenToolResult("mcp__adaptor__delegate"),
          reply: (view) => ({ text: `Reviewer said: ${view.lastToolResult?.content ?? ""}` }),
        },
        {
          name: "relay-broken",
          when: whenToolResult("mcp__adaptor__delegate_broken"),
          reply: (view) => ({ text: `Delegation failed: ${view.lastToolResult?.content ?? ""}` }),
        },
      ],
      {
        tools: [
          a2aDelegation({ url: childServed.url }),
          a2aDelegation({ url: failing.url, name: "delegate_broken", description: "Delegate to the broken reviewer" }),
        ],
      },
    );
  });
  afterAll(async () => {
    await parent?.close();
    await childServed?.close();
    await failing?.close();
    await child?.close();
  });

  it("the parent's answer carries the sub-agent's answer, and the sub-agent's progress arrives as notices of the parent run", async () => {
    const stream = parent.agent.stream("review the patch");
    const events: AgentEvent[] = [];
    for await (const event of stream) events.push(event);
    const result = await stream.result();

    expect(result.text).toContain("Reviewer said:");
    expect(result.text).toContain("math.js: add() returns a - b; it should return a + b.");
    expect(child.server.requests.some((r) => r.view.lastUserText?.includes("Check math.js for bugs"))).toBe(true);

    const seen = notices(events);
    expect(seen.map((n) => n.kind)[0]).toBe(DELEGATION_NOTICE.started);
    expect(seen.at(-1)?.kind).toBe(DELEGATION_NOTICE.finished);
    expect(seen[0]?.data).toMatchObject({ url: childServed.url, agent: "Reviewer", tool: "delegate" });
    const progress = seen.filter((n) => n.kind === DELEGATION_NOTICE.progress);
    expect(progress.some((n) => n.data?.["kind"] === "artifact" && String(n.data?.["text"]).includes("a + b"))).toBe(true);
    expect(progress.some((n) => n.data?.["kind"] === "status" && n.data?.["state"] === "completed")).toBe(true);
    const taskId = seen.at(-1)?.data?.["taskId"];
    expect(typeof taskId).toBe("string");
    expect(progress.every((n) => n.data?.["taskId"] === taskId)).toBe(true);
    // The notices belong to the run: ordered between the tool call and the final text.
    const callAt = events.findIndex((e) => e.type === "tool-call" && e.name === "mcp__adaptor__delegate");
    const startedAt = events.indexOf(seen[0]!);
    expect(callAt).toBeGreaterThanOrEqual(0);
    expect(startedAt).toBeGreaterThan(callAt);
    const hostResult = events.find((e) => e.type === "tool-result" && e.name === "delegate");
    expect(hostResult?.type === "tool-result" && JSON.parse(hostResult.output)).toMatchObject({
      taskId,
      text: "math.js: add() returns a - b; it should return a + b.",
    });
  });

  it("a remote business failure reaches the model as the DelegationError's code and message, with a failed notice; the run completes", async () => {
    const stream = parent.agent.stream("ask the broken reviewer");
    const events: AgentEvent[] = [];
    for await (const event of stream) events.push(event);
    const result = await stream.result();

    expect(result.text).toContain("Delegation failed:");
    expect(result.text).toContain("remote_failed: remote agent: agent_error: the reviewer crashed");
    const failed = notices(events).find((n) => n.kind === DELEGATION_NOTICE.failed);
    expect(failed?.data).toMatchObject({
      code: "remote_failed",
      retryable: false,
      remoteStatus: "failed",
      metadata: { failure: "agent_error" },
      tool: "delegate_broken",
    });
    expect(typeof (failed?.data?.["metadata"] as Record<string, unknown>)["taskId"]).toBe("string");
  });
});
