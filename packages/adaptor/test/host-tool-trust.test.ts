// The host-tool server is the gate: a run's token unlocks only the calls its own agent reported,
// each once, and every host-tool call passes the run's beforeToolCall hooks there, once, on any
// driver. A process that read the token (the run's own approved shell, or another run's) gets no
// further than a refusal.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import type { Driver, DriverRequest, McpServerConfig } from "@adaptor/driver";
import { Agent, HOST_TOOL_SERVER_NAME, defineTool, type AgentEvent, type ToolCallHookInput } from "adaptor";
import { capabilityDriver } from "./support/capability-driver.js";

const HTTP_MCP = { mcp: { transports: ["http"] as const } } as const;

function hostEntry(request: DriverRequest): McpServerConfig & { transport: "http" } {
  const entry = request.mcpServers?.find((server) => server.name === HOST_TOOL_SERVER_NAME);
  if (!entry || entry.transport !== "http") throw new Error("no host-tool MCP entry in the request");
  return entry as McpServerConfig & { transport: "http" };
}

async function mcpClient(entry: { url: string; headers?: Readonly<Record<string, string>> }): Promise<Client> {
  const client = new Client({ name: "same-user-process", version: "0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(entry.url), { requestInit: { headers: { ...entry.headers } } }));
  return client;
}

type Reply = { content: { text: string }[]; isError?: boolean };

function textOf(reply: unknown): string {
  return (reply as Reply).content[0]?.text ?? "";
}

describe("host-tool server: a token authorizes only its own run's calls", () => {
  it("run A's process calling with run B's token, although B's agent made no call, is refused: B's handler never runs; after B ends the token gets 401", async () => {
    const ran: string[] = [];
    const whoami = defineTool({
      name: "whoami",
      description: "Acts for the current user",
      input: { type: "object" },
      handler: (_input, context) => {
        ran.push(context.runId);
        return `acting in run ${context.runId}`;
      },
    });
    let entryOfB: (McpServerConfig & { transport: "http" }) | undefined;
    let bReady!: () => void;
    const bStarted = new Promise<void>((resolve) => (bReady = resolve));
    let releaseB!: () => void;
    const bMayEnd = new Promise<void>((resolve) => (releaseB = resolve));
    const replies: Record<string, string> = {};
    const driver = capabilityDriver(HTTP_MCP, async (request, sink) => {
      if (request.prompt === "B") {
        entryOfB = hostEntry(request);
        bReady();
        await bMayEnd;
        return { text: "B done" };
      }
      // Run A: its agent reports and makes its own call; its shell also calls with B's token.
      const own = await mcpClient(hostEntry(request));
      sink.emit({ type: "tool-call", phase: "start", id: "toolu_a", name: "mcp__adaptor__whoami" });
      sink.emit({ type: "tool-call", phase: "end", id: "toolu_a", name: "mcp__adaptor__whoami", input: {} });
      replies["own"] = textOf(await own.callTool({ name: "whoami", arguments: {}, _meta: { "claudecode/toolUseId": "toolu_a" } }));
      replies["replayed"] = textOf(await own.callTool({ name: "whoami", arguments: {}, _meta: { "claudecode/toolUseId": "toolu_a" } }));
      await own.close();
      const stolen = await mcpClient(entryOfB!);
      replies["B without id"] = textOf(await stolen.callTool({ name: "whoami", arguments: {} }));
      replies["B with A's id"] = textOf(
        await stolen.callTool({ name: "whoami", arguments: {}, _meta: { "claudecode/toolUseId": "toolu_a" } }),
      );
      await stolen.close();
      return { text: "A done" };
    });
    await using agent = new Agent(driver, { tools: [whoami] });
    const streamB = agent.stream("B");
    const eventsB: AgentEvent[] = [];
    const drainedB = (async () => {
      for await (const event of streamB) eventsB.push(event);
    })();
    await bStarted;
    const resultA = await agent.run("A");
    releaseB();
    await drainedB;
    const resultB = await streamB.result();
    expect(ran).toEqual([resultA.runId]);
    expect(replies).toEqual({
      own: `acting in run ${resultA.runId}`,
      replayed: "permission_denied: this call was not made by the agent of this run",
      "B without id": "permission_denied: this call was not made by the agent of this run",
      "B with A's id": "permission_denied: this call was not made by the agent of this run",
    });
    expect(eventsB.filter((e) => e.type === "tool-result")).toEqual([]);
    expect(eventsB.flatMap((e) => (e.type === "notice" && e.kind === "host-tool.refused" ? [e.data] : []))).toEqual([
      { tool: "whoami" },
      { tool: "whoami", toolCallId: "toolu_a" },
    ]);
    expect(resultB.text).toBe("B done");
    const afterB = await fetch(entryOfB!.url, {
      method: "POST",
      headers: { ...entryOfB!.headers, "content-type": "application/json", accept: "application/json, text/event-stream" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "whoami", arguments: {} } }),
    });
    expect(afterB.status).toBe(401);
  });
});

describe("host-tool server: a driver whose CLI sends call ids", () => {
  it("a request without an id is refused at once, even while the agent's call of that tool is still streaming its input; the CLI's own call then runs", async () => {
    const ran: unknown[] = [];
    const transfer = defineTool({
      name: "transfer",
      description: "Move money",
      input: { type: "object" },
      handler: (input) => {
        ran.push(input);
        return "moved";
      },
    });
    const replies: Record<string, string> = {};
    const driver = capabilityDriver({ mcp: { transports: ["http"], callIds: true } }, async (request, sink) => {
      const intruder = await mcpClient(hostEntry(request));
      // As Claude Code reports a call: its name first, its input fragments, then the complete input.
      sink.emit({ type: "tool-call", phase: "start", id: "toolu_1", name: "mcp__adaptor__transfer" });
      sink.emit({ type: "tool-call", phase: "args", id: "toolu_1", name: "mcp__adaptor__transfer", argsDelta: '{"to":' });
      replies["without id"] = textOf(await intruder.callTool({ name: "transfer", arguments: { to: "mallory" } }));
      const underId = intruder.callTool({ name: "transfer", arguments: { to: "mallory" }, _meta: { "claudecode/toolUseId": "toolu_1" } });
      sink.emit({ type: "tool-call", phase: "end", id: "toolu_1", name: "mcp__adaptor__transfer", input: { to: "bob" } });
      replies["other arguments under the id"] = textOf(await underId);
      await intruder.close();
      const own = await mcpClient(hostEntry(request));
      replies["own"] = textOf(
        await own.callTool({ name: "transfer", arguments: { to: "bob" }, _meta: { "claudecode/toolUseId": "toolu_1" } }),
      );
      await own.close();
      return { text: "done" };
    });
    await using agent = new Agent(driver, { tools: [transfer] });
    const stream = agent.stream("go");
    const events: AgentEvent[] = [];
    for await (const event of stream) events.push(event);
    await stream.result();
    expect(ran).toEqual([{ to: "bob" }]);
    expect(replies).toEqual({
      "without id": "permission_denied: this call was not made by the agent of this run",
      "other arguments under the id": "permission_denied: this call was not made by the agent of this run",
      own: "moved",
    });
    expect(events.flatMap((e) => (e.type === "notice" && e.kind === "host-tool.refused" ? [e.data] : []))).toEqual([
      { tool: "transfer" },
      { tool: "transfer", toolCallId: "toolu_1" },
    ]);
  });

  it("a flood of refused requests adds at most 32 host-tool.refused notices to the run", async () => {
    const ran: unknown[] = [];
    const lookup = defineTool({ name: "lookup", description: "Find", input: { type: "object" }, handler: (input) => void ran.push(input) });
    const refused: string[] = [];
    const driver = capabilityDriver({ mcp: { transports: ["http"], callIds: true } }, async (request) => {
      const intruder = await mcpClient(hostEntry(request));
      for (let i = 0; i < 40; i++) refused.push(textOf(await intruder.callTool({ name: "lookup", arguments: { i } })));
      await intruder.close();
      return { text: "done" };
    });
    await using agent = new Agent(driver, { tools: [lookup] });
    const stream = agent.stream("go");
    const events: AgentEvent[] = [];
    for await (const event of stream) events.push(event);
    await stream.result();
    expect(ran).toEqual([]);
    expect(new Set(refused)).toEqual(new Set(["permission_denied: this call was not made by the agent of this run"]));
    expect(refused).toHaveLength(40);
    expect(events.filter((e) => e.type === "notice" && e.kind === "host-tool.refused")).toHaveLength(32);
  });
});

describe("host-tool server: beforeToolCall is asked there, once per call, on any driver", () => {
  const transfer = (ran: number[]) =>
    defineTool({
      name: "transfer",
      description: "Move money",
      input: z.object({ amount: z.number() }),
      handler: ({ amount }) => {
        ran.push(amount);
        return `transferred ${amount}`;
      },
    });

  /** A driver whose agent waits for beforeToolCall (as Claude Code does) and asks it before it calls the tool. */
  function hookingDriver(amount: number, replies: string[]): Driver {
    const base = capabilityDriver(HTTP_MCP, async (request, sink) => {
      sink.emit({ type: "tool-call", phase: "start", id: "toolu_1", name: "mcp__adaptor__transfer", input: { amount } });
      const answer = await sink.hook?.({
        point: "beforeToolCall",
        toolCallId: "toolu_1",
        toolName: "mcp__adaptor__transfer",
        input: { amount },
      });
      replies.push(`cli hook: ${JSON.stringify(answer)}`);
      const client = await mcpClient(hostEntry(request));
      replies.push(
        textOf(await client.callTool({ name: "transfer", arguments: { amount }, _meta: { "claudecode/toolUseId": "toolu_1" } })),
      );
      await client.close();
      return { text: "done", permissionDenials: [] };
    });
    return { ...base, descriptor: { ...base.descriptor, capabilities: { ...base.descriptor.capabilities, hooks: ["beforeToolCall"] } } };
  }

  it("a deny keeps the handler from running and is listed in permissionDenials, even though the agent's own hook path was answered empty; the hook is called once", async () => {
    const ran: number[] = [];
    const replies: string[] = [];
    const saw: ToolCallHookInput[] = [];
    await using agent = new Agent(hookingDriver(1000, replies), {
      tools: [transfer(ran)],
      hooks: {
        beforeToolCall: [
          {
            matcher: "mcp__adaptor__transfer",
            hook: (call) => {
              saw.push(call);
              return { deny: "transfer is never allowed" };
            },
          },
        ],
      },
    });
    const stream = agent.stream("go");
    const events: AgentEvent[] = [];
    for await (const event of stream) events.push(event);
    const result = await stream.result();
    expect(ran).toEqual([]);
    expect(replies).toEqual(["cli hook: {}", "transfer is never allowed"]);
    expect(result.permissionDenials).toEqual([{ toolName: "transfer", toolCallId: "toolu_1", input: { amount: 1000 } }]);
    expect(saw).toEqual([
      { toolCallId: "toolu_1", toolName: "transfer", agentToolName: "mcp__adaptor__transfer", input: { amount: 1000 } },
    ]);
    expect(events.flatMap((e) => (e.type === "tool-result" ? [[e.id, e.name, e.output, e.isError]] : []))).toEqual([
      ["toolu_1", "transfer", "transfer is never allowed", true],
    ]);
  });

  it("an updatedInput runs the handler with it; a hook whose matcher names another tool is not called", async () => {
    const ran: number[] = [];
    const replies: string[] = [];
    const called: string[] = [];
    await using agent = new Agent(hookingDriver(5, replies), {
      tools: [transfer(ran)],
      hooks: {
        beforeToolCall: [
          { matcher: "Bash", hook: () => void called.push("Bash group") },
          { matcher: "^mcp__adaptor__", hook: () => ({ updatedInput: { amount: 1 } }) },
        ],
      },
    });
    await agent.run("go");
    expect([ran, called, replies]).toEqual([[1], [], ["cli hook: {}", "transferred 1"]]);
  });
  it("an additionalContext reaches the model after the host tool's own text, with an updatedInput too", async () => {
    const ran: number[] = [];
    const replies: string[] = [];
    await using agent = new Agent(hookingDriver(5, replies), {
      tools: [transfer(ran)],
      hooks: {
        beforeToolCall: [
          { matcher: "^mcp__adaptor__", hook: () => ({ updatedInput: { amount: 2 }, additionalContext: "ledger is audited" }) },
        ],
      },
    });
    await agent.run("go");
    expect([ran, replies]).toEqual([[2], ["cli hook: {}", "transferred 2\n\nledger is audited"]]);
  });
});
