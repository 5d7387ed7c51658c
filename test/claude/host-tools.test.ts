import { request as httpRequest } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { whenToolResult, whenUserSays, type LoggedRequest } from "@adaptor/testkit";
import type { Driver, DriverRequest } from "@adaptor/driver";
import { Agent, defineTool, reject, type AgentEvent, type Result, type ToolContext } from "adaptor";
import { CLAUDE_DESCRIPTOR, claude } from "@adaptor/claude";
import { harness, type Harness } from "./support.js";

// Host tools called by the real claude binary (pinned 2.1.332) over the Agent's MCP server. Seen on
// the binary: the CLI names an MCP tool `mcp__<server>__<tool>` (here `mcp__adaptor__lookup_order`),
// defers MCP tools behind ToolSearch (they are not in the request's `tools` list, yet a tool_use of
// the full name works), sends its tool_use id as `_meta["claudecode/toolUseId"]`, and asks a
// `can_use_tool` approval before every MCP tool call unless a permission rule allows it; the driver
// allows `mcp__adaptor` (the server is marked trusted), so the CLI never asks about host tools itself; the
// SDK's host-tool server applies the run's permission mode, and these runs leave it unset, so the calls
// run unasked (host-tool-approvals.test.ts covers `ask`). After an error result of a deferred tool
// the CLI may append a note with the tool's input schema to the text the model gets.

const SECRET = "db connect failed: password=hunter2-do-not-leak";
const FORGED_TEXT = "forged-lookalike-says-not-found";

const calls: { tool: string; input: unknown; context: ToolContext }[] = [];
const lookup = defineTool({
  name: "lookup_order",
  description: "Find an order by id",
  input: z.object({ id: z.string().min(2) }),
  output: z.object({ id: z.string(), total: z.number() }),
  annotations: { readOnly: true },
  handler: async (input, context) => {
    calls.push({ tool: "lookup_order", input, context });
    if (input.id === "missing") throw reject("not_found", "no such order");
    return { id: input.id, total: 42 };
  },
});
const explode = defineTool({
  name: "explode",
  description: "Always fails",
  input: { type: "object", properties: {} },
  handler: (input, context) => {
    calls.push({ tool: "explode", input, context });
    throw new Error("while exploding", { cause: new Error(SECRET) });
  },
});
class ToolRejection extends Error {
  readonly code = "not_found";
}
const forged = defineTool({
  name: "forged",
  description: "Throws rejection lookalikes",
  input: { type: "object" },
  handler: (input, context) => {
    calls.push({ tool: "forged", input, context });
    throw new ToolRejection(FORGED_TEXT);
  },
});

// One run walks the model through every case; each step answers the previous tool result.
const tool = (name: string, input: unknown) => ({ toolUse: { name: `mcp__adaptor__${name}`, input } });
const RULES = [
  { name: "start", when: whenUserSays("tool tour"), reply: tool("lookup_order", { id: "o1" }) },
  { name: "after-ok", when: whenToolResult("mcp__adaptor__lookup_order", '"total":42'), reply: tool("explode", {}) },
  { name: "after-explode", when: whenToolResult("mcp__adaptor__explode"), reply: tool("lookup_order", { id: "missing" }) },
  { name: "after-reject", when: whenToolResult("mcp__adaptor__lookup_order", "not_found"), reply: tool("lookup_order", { id: 7 }) },
  { name: "after-invalid", when: whenToolResult("mcp__adaptor__lookup_order", "invalid_input"), reply: tool("forged", {}) },
  { name: "after-forged", when: whenToolResult("mcp__adaptor__forged"), reply: { text: "tour done" } },
];

let h: Harness;
let agent: Agent;
let result: Result;
const events: AgentEvent[] = [];
const requests: DriverRequest[] = [];

function toolResultOf(rule: string): LoggedRequest["view"]["lastToolResult"] {
  const index = h.server.requests.findIndex((r) => r.rule === rule);
  return h.server.requests[index]?.view.lastToolResult;
}

beforeAll(async () => {
  h = await harness(RULES);
  const driver = claude({ cwd: h.env.workDir, env: h.env.env, inheritEnv: false, model: "claude-sonnet-4-5" });
  const recording: Driver = {
    descriptor: CLAUDE_DESCRIPTOR,
    validateConfig: () => driver.validateConfig(),
    run: (request, sink, signal) => {
      requests.push(request);
      return driver.run(request, sink, signal);
    },
    close: () => driver.close(),
  };
  agent = new Agent(recording, { tools: [lookup, explode, forged] });
  const stream = agent.stream("tool tour please");
  for await (const event of stream) events.push(event);
  result = await stream.result();
}, 60_000);

afterAll(async () => {
  await agent?.close();
  await h?.close();
});

function post(url: string, headers: Record<string, string>): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      url,
      {
        method: "POST",
        agent: false,
        headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...headers },
      },
      (res) => {
        res.resume();
        res.on("end", () => resolve(res.statusCode ?? 0));
      },
    );
    req.on("error", reject);
    req.end(JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list", params: {} }));
  });
}

describe("host tools called by the real claude CLI", () => {
  it("the run walked every step and finished", () => {
    expect(result.text).toBe("tour done");
    expect(h.server.requests.map((r) => r.rule)).toEqual([
      "start",
      "after-ok",
      "after-explode",
      "after-reject",
      "after-invalid",
      "after-forged",
    ]);
  });

  it("the handler runs with validated input and the CLI's tool_use id; its result reaches the model", () => {
    const first = calls[0];
    expect(first).toMatchObject({ tool: "lookup_order", input: { id: "o1" }, context: { runId: result.runId } });
    const callEvent = events.find((e) => e.type === "tool-call" && e.phase === "end" && e.name === "mcp__adaptor__lookup_order");
    expect(callEvent?.type === "tool-call" && callEvent.id).toBe(first?.context.toolCallId);
    expect(toolResultOf("after-ok")).toMatchObject({
      toolName: "mcp__adaptor__lookup_order",
      content: '{"id":"o1","total":42}',
      isError: false,
    });
  });

  it("with the permission mode unset, host-tool calls (mcp__adaptor__<tool>) run unasked: the CLI trusts the server, the SDK's gate follows inherit", () => {
    const asked = events.flatMap((e) => (e.type === "approval-request" ? [e.request.toolName] : []));
    expect(asked).toEqual([]);
  });

  it("a handler error holding a secret: the secret is in no request body the server received; the host sees it", () => {
    for (const request of h.server.requests) expect(JSON.stringify(request.body)).not.toContain("hunter2");
    expect(toolResultOf("after-explode")).toMatchObject({ isError: true, content: expect.stringMatching(/^tool_error: /) });
    const hostView = events.find((e) => e.type === "tool-result" && e.name === "explode");
    expect(hostView).toMatchObject({ isError: true, output: expect.stringContaining(SECRET) });
    expect(result.transcript().some((item) => item.toolName === "explode" && item.text?.includes(SECRET))).toBe(true);
  });

  it('reject("not_found", "no such order"): the model sees the code and the message', () => {
    // The CLI may append its own note about deferred MCP tool schemas after an error result.
    expect(toolResultOf("after-reject")).toMatchObject({
      isError: true,
      content: expect.stringMatching(/^not_found: no such order(\n|$)/),
    });
  });

  it("invalid input from the model: an invalid_input hint, the handler not run", () => {
    expect(toolResultOf("after-invalid")).toMatchObject({
      isError: true,
      content: expect.stringMatching(/^invalid_input: \/id: must be string(\n|$)/),
    });
    expect(calls.filter((c) => c.tool === "lookup_order").map((c) => c.input)).toEqual([{ id: "o1" }, { id: "missing" }]);
  });

  it("a forged rejection-lookalike is treated as an ordinary error (generic text)", () => {
    const seen = toolResultOf("after-forged");
    expect(seen).toMatchObject({ isError: true, content: expect.stringMatching(/^tool_error: /) });
    for (const request of h.server.requests) expect(JSON.stringify(request.body)).not.toContain(FORGED_TEXT);
  });

  it("the tool server refuses an unauthenticated request (401), and the run's revoked token too", async () => {
    const entry = requests[0]?.mcpServers?.find((server) => server.name === "adaptor");
    expect(entry).toMatchObject({ transport: "http", url: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/) });
    const url = entry?.transport === "http" ? entry.url : "";
    expect(await post(url, {})).toBe(401);
    expect(await post(url, { authorization: entry?.transport === "http" ? (entry.headers?.Authorization ?? "") : "" })).toBe(401);
  });
});
