import { request as httpRequest } from "node:http";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import type { DriverRequest, McpServerConfig } from "@adaptor/driver";
import {
  Agent,
  ErrInvalidDefinition,
  ErrMCPTransportUnsupported,
  ErrMCPUnsupported,
  ErrInvalidMCPConfig,
  HOST_TOOL_SERVER_NAME,
  defineTool,
  isError,
  mcpHttp,
  reject,
  type AgentEvent,
  type ToolContext,
} from "adaptor";
import * as toolPackage from "@adaptor/tool";
import * as root from "adaptor";
import { capabilityDriver } from "./support/capability-driver.js";

const HTTP_MCP = { mcp: { transports: ["stdio", "http"] as const } } as const;

function hostEntry(request: DriverRequest | undefined): McpServerConfig & { transport: "http" } {
  const entry = request?.mcpServers?.find((server) => server.name === HOST_TOOL_SERVER_NAME);
  if (!entry || entry.transport !== "http") throw new Error("no host-tool MCP entry in the request");
  return entry as McpServerConfig & { transport: "http" };
}

async function mcpClient(entry: { url: string; headers?: Readonly<Record<string, string>> }): Promise<Client> {
  const client = new Client({ name: "scripted-cli", version: "0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(entry.url), { requestInit: { headers: { ...entry.headers } } }));
  return client;
}

function status(url: string, headers: Record<string, string> = {}): Promise<number> {
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

const contexts: ToolContext[] = [];
const lookup = defineTool({
  name: "lookup_order",
  description: "Find an order by id",
  input: z.object({ id: z.string().min(2) }),
  output: z.object({ id: z.string(), total: z.number() }),
  annotations: { readOnly: true, title: "Lookup" },
  handler: async ({ id }, context) => {
    contexts.push(context);
    if (id === "missing") throw reject("not_found", "no such order");
    if (id === "boom") throw new Error("db connect failed: password=hunter2");
    return { id, total: 42 };
  },
});

describe("host tools through the Agent", () => {
  it("re-exports the leaf API as the very same objects", () => {
    expect(root.defineTool).toBe(toolPackage.defineTool);
    expect(root.reject).toBe(toolPackage.reject);
    expect(root.asRejection).toBe(toolPackage.asRejection);
    expect(root.ErrInvalidDefinition).toBe(toolPackage.ErrInvalidDefinition);
    expect(root.ErrInvalidInput).toBe(toolPackage.ErrInvalidInput);
    expect(root.ErrInvalidOutput).toBe(toolPackage.ErrInvalidOutput);
  });

  it("serves the agent's tools over an authenticated http MCP entry; calls emit host-view tool-result events, the CLI's own result of a call folded into the host's", async () => {
    let url = "";
    const driver = capabilityDriver(HTTP_MCP, async (request, sink) => {
      const entry = hostEntry(request);
      url = entry.url;
      expect(entry.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
      expect(entry.headers?.Authorization).toMatch(/^Bearer [A-Za-z0-9_-]{43}$/);
      expect(await status(entry.url)).toBe(401);
      const client = await mcpClient(entry);
      const { tools } = await client.listTools();
      expect(tools).toEqual([
        expect.objectContaining({
          name: "lookup_order",
          description: "Find an order by id",
          inputSchema: expect.objectContaining({ type: "object", required: ["id"] }),
          annotations: { title: "Lookup", readOnlyHint: true },
        }),
      ]);
      // As a CLI does: the call is reported, the tool called, then the CLI reports the result.
      sink.emit({ type: "tool-call", phase: "start", id: "toolu_7", name: "mcp__adaptor__lookup_order" });
      sink.emit({ type: "tool-call", phase: "end", id: "toolu_7", name: "mcp__adaptor__lookup_order", input: { id: "o1" } });
      const ok = await client.callTool({ name: "lookup_order", arguments: { id: "o1" }, _meta: { "claudecode/toolUseId": "toolu_7" } });
      sink.emit({ type: "tool-result", id: "toolu_7", name: "mcp__adaptor__lookup_order", output: "cli view", isError: false });
      // A CLI that sends no call id (Gemini CLI, codex-acp): each call matches its reported event by its arguments.
      sink.emit({ type: "tool-call", phase: "start", id: "g_1", name: "mcp_adaptor_lookup_order", input: { id: "missing" } });
      sink.emit({ type: "tool-call", phase: "start", id: "g_2", name: "mcp_adaptor_lookup_order", input: { id: "boom" } });
      sink.emit({ type: "tool-call", phase: "start", id: "g_3", name: "mcp_adaptor_lookup_order", input: { id: 7 } });
      const rejected = await client.callTool({ name: "lookup_order", arguments: { id: "missing" } });
      const failed = await client.callTool({ name: "lookup_order", arguments: { id: "boom" } });
      const invalid = await client.callTool({ name: "lookup_order", arguments: { id: 7 } });
      await client.close();
      return {
        text: "done",
        transcript: [{ kind: "tool-result", toolCallId: "toolu_7", toolName: "mcp__adaptor__lookup_order", text: "x" }],
        raw: { stdout: JSON.stringify({ ok, rejected, failed, invalid }), stderr: "" },
      };
    });
    const agent = new Agent(driver, { tools: [lookup] });
    const stream = agent.stream("go");
    const events: AgentEvent[] = [];
    for await (const event of stream) events.push(event);
    const result = await stream.result();
    const seen = JSON.parse(result.raw().stdout) as Record<
      string,
      { content: { text: string }[]; isError?: boolean; structuredContent?: unknown }
    >;
    expect(seen.ok).toMatchObject({
      content: [{ text: '{"id":"o1","total":42}' }],
      isError: false,
      structuredContent: { id: "o1", total: 42 },
    });
    expect(seen.rejected).toMatchObject({ content: [{ text: "not_found: no such order" }], isError: true });
    expect(seen.failed?.isError).toBe(true);
    expect(JSON.stringify(seen.failed)).not.toContain("hunter2");
    expect(seen.invalid).toMatchObject({ content: [{ text: "invalid_input: /id: must be string" }], isError: true });
    expect(contexts[0]).toMatchObject({ runId: result.runId, toolCallId: "toolu_7" });
    expect(contexts[1]?.toolCallId).toBe("g_1");
    expect(contexts[0]?.signal).toBeInstanceOf(AbortSignal);

    const toolResults = events.flatMap((e) => (e.type === "tool-result" ? [e] : []));
    expect(toolResults.map((e) => [e.name, e.isError])).toEqual([
      ["lookup_order", false],
      ["lookup_order", true],
      ["lookup_order", true],
      ["lookup_order", true],
    ]);
    expect(toolResults[0]?.id).toBe("toolu_7");
    expect(toolResults[2]?.output).toContain("password=hunter2");
    expect(toolResults[3]?.output).toMatch(/invalid input: \/id: must be string/);
    expect(
      result
        .transcript()
        .filter((item) => item.toolName === "lookup_order")
        .map((item) => item.text),
    ).toEqual([expect.stringContaining("password=hunter2"), expect.stringMatching(/invalid input/)]);

    expect(await status(url, { authorization: hostEntry(driver.requests[0]).headers?.Authorization ?? "" })).toBe(401);
    await agent.close();
    await expect(status(url)).rejects.toThrow(/ECONNREFUSED/);
  });

  it("a handler's context.notice adds a notice event to the calling run, with the tool and call id in its data", async () => {
    const progress = defineTool({
      name: "long_job",
      description: "Reports progress",
      input: { type: "object", properties: {} },
      handler: (_input, context) => {
        context.notice("job.progress", "half way", { percent: 50 });
        context.notice("job.progress");
        return "finished";
      },
    });
    const driver = capabilityDriver(HTTP_MCP, async (request, sink) => {
      const client = await mcpClient(hostEntry(request));
      sink.emit({ type: "tool-call", phase: "start", id: "toolu_9", name: "mcp__adaptor__long_job" });
      sink.emit({ type: "tool-call", phase: "end", id: "toolu_9", name: "mcp__adaptor__long_job", input: {} });
      await client.callTool({ name: "long_job", arguments: {}, _meta: { "claudecode/toolUseId": "toolu_9" } });
      await client.close();
      return { text: "done", transcript: [], raw: { stdout: "", stderr: "" } };
    });
    await using agent = new Agent(driver, { tools: [progress] });
    const stream = agent.stream("go");
    const events: AgentEvent[] = [];
    for await (const event of stream) events.push(event);
    await stream.result();
    const notices = events.flatMap((e) => (e.type === "notice" && e.kind === "job.progress" ? [e] : []));
    expect(notices.map((n) => [n.message, n.data])).toEqual([
      ["half way", { percent: 50, tool: "long_job", toolCallId: "toolu_9" }],
      [undefined, { tool: "long_job", toolCallId: "toolu_9" }],
    ]);
    const resultAt = events.findIndex((e) => e.type === "tool-result" && e.name === "long_job");
    expect(events.indexOf(notices[1]!)).toBeLessThan(resultAt);
  });

  it("no server is started for an agent without tools, nor before the first run", async () => {
    const driver = capabilityDriver(HTTP_MCP);
    const agent = new Agent(driver);
    await agent.run("p");
    expect(driver.requests[0]?.mcpServers).toBeUndefined();
    await agent.close();
  });

  it("a bad definition surfaces before the driver runs as ErrInvalidDefinition with the reason", async () => {
    const bad = defineTool({ name: "bad tool", description: "x", input: { type: "object" }, handler: () => 1 });
    const driver = capabilityDriver(HTTP_MCP);
    const agent = new Agent(driver, { tools: [bad] });
    const err = await agent.run("p").catch((e: unknown) => e);
    expect(isError(err, ErrInvalidDefinition)).toBe(true);
    expect((err as Error).message).toMatch(/name must match/);
    expect(driver.requests).toHaveLength(0);
    const twice = new Agent(driver, { tools: [lookup, lookup] });
    expect(isError(await twice.run("p").catch((e: unknown) => e), ErrInvalidDefinition)).toBe(true);
    const forged = new Agent(driver, { tools: [{ name: "x" } as never] });
    expect(isError(await forged.run("p").catch((e: unknown) => e), ErrInvalidDefinition)).toBe(true);
    expect(driver.requests).toHaveLength(0);
    await Promise.all([agent.close(), twice.close(), forged.close()]);
  });

  it("drivers without MCP or without http MCP refuse host tools before launch", async () => {
    const none = capabilityDriver({ mcp: { transports: [] } });
    expect(isError(await new Agent(none, { tools: [lookup] }).run("p").catch((e: unknown) => e), ErrMCPUnsupported)).toBe(true);
    const stdioOnly = capabilityDriver({ mcp: { transports: ["stdio"] } });
    expect(isError(await new Agent(stdioOnly, { tools: [lookup] }).run("p").catch((e: unknown) => e), ErrMCPTransportUnsupported)).toBe(
      true,
    );
    expect(none.requests.length + stdioOnly.requests.length).toBe(0);
  });

  it("keeps declared MCP servers and refuses one named like the host-tool server", async () => {
    const driver = capabilityDriver(HTTP_MCP);
    const agent = new Agent(driver, { tools: [lookup] });
    await agent.run("p", { mcpServers: [mcpHttp("docs", "https://docs.example/mcp")] });
    expect(driver.requests[0]?.mcpServers?.map((server) => server.name)).toEqual(["docs", "adaptor"]);
    const clash = await agent.run("p", { mcpServers: [mcpHttp("adaptor", "https://x.example/mcp")] }).catch((e: unknown) => e);
    expect(isError(clash, ErrInvalidMCPConfig)).toBe(true);
    await agent.close();
  });
});
