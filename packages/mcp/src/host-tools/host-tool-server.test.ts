import { request } from "node:http";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterEach, describe, expect, it } from "vitest";
import { startHostToolServer, type HostToolServer } from "./host-tool-server.js";
import type { HostToolCall, HostToolSession } from "./host-tool-session.js";

let server: HostToolServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const calls: HostToolCall[] = [];
const echoSession: HostToolSession = {
  tools: [
    {
      name: "echo",
      description: "Echo text",
      inputSchema: { type: "object", properties: { text: { type: "string" } }, required: ["text"] },
      annotations: { readOnlyHint: true },
    },
  ],
  async call(call) {
    calls.push(call);
    if (call.name === "echo" && (call.arguments as { text?: string }).text === "explode") throw new Error("secret-db-password");
    return { text: `echo:${(call.arguments as { text: string }).text}`, isError: false };
  },
};

async function connect(url: string, headers: Record<string, string>): Promise<Client> {
  const client = new Client({ name: "test", version: "0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } }));
  return client;
}

/** A raw POST with chosen headers; resolves the status code. */
function post(url: string, headers: Record<string, string>): Promise<number> {
  const body = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list", params: {} });
  return new Promise((resolve, reject) => {
    const req = request(
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
    req.end(body);
  });
}

describe("host-tool MCP server", () => {
  it("lists and calls tools over Streamable HTTP with the grant's bearer token, on 127.0.0.1", async () => {
    server = await startHostToolServer();
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
    const grant = server.open(echoSession);
    const client = await connect(grant.url, { ...grant.headers });
    const { tools } = await client.listTools();
    expect(tools).toEqual([expect.objectContaining({ name: "echo", annotations: { readOnlyHint: true } })]);
    const result = await client.callTool({ name: "echo", arguments: { text: "hi" }, _meta: { "claudecode/toolUseId": "toolu_9" } });
    expect(result).toMatchObject({ content: [{ type: "text", text: "echo:hi" }], isError: false });
    expect(calls.at(-1)).toMatchObject({ name: "echo", arguments: { text: "hi" }, toolCallId: "toolu_9" });
    await client.close();
  });

  it("takes the call id from Codex's _meta.callId as from Claude's claudecode/toolUseId, and none when neither is sent", async () => {
    server = await startHostToolServer();
    const grant = server.open(echoSession);
    const client = await connect(grant.url, { ...grant.headers });
    await client.callTool({ name: "echo", arguments: { text: "codex" }, _meta: { callId: "call_3", threadId: "t-1" } });
    expect(calls.at(-1)).toMatchObject({ arguments: { text: "codex" }, toolCallId: "call_3" });
    await client.callTool({ name: "echo", arguments: { text: "gemini" }, _meta: { progressToken: "p-1" } });
    expect(calls.at(-1)).toMatchObject({ arguments: { text: "gemini" }, toolCallId: undefined });
    await client.close();
  });

  it("a token reaches only its own grant's session: two runs' grants, each call lands in the session of the token it carries; a revoked one gets 401", async () => {
    server = await startHostToolServer();
    const landed: string[] = [];
    const session = (run: string): HostToolSession => ({
      tools: echoSession.tools,
      call: async () => {
        landed.push(run);
        return { text: `in ${run}`, isError: false };
      },
    });
    const a = server.open(session("A"));
    const b = server.open(session("B"));
    expect(a.token).not.toBe(b.token);
    expect(a.token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const clientA = await connect(a.url, { ...a.headers });
    expect(await clientA.callTool({ name: "echo", arguments: { text: "x" } })).toMatchObject({ content: [{ text: "in A" }] });
    await clientA.close();
    b.revoke();
    expect(await post(b.url, { ...b.headers })).toBe(401);
    expect(landed).toEqual(["A"]);
  });

  it("a session that throws: the model gets generic text, the error goes to onError only", async () => {
    const errors: unknown[] = [];
    server = await startHostToolServer({ onError: (e) => errors.push(e) });
    const grant = server.open(echoSession);
    const client = await connect(grant.url, { ...grant.headers });
    const result = await client.callTool({ name: "echo", arguments: { text: "explode" } });
    expect(result.isError).toBe(true);
    expect(JSON.stringify(result)).not.toContain("secret-db-password");
    expect(errors.some((e) => e instanceof Error && e.message === "secret-db-password")).toBe(true);
    await client.close();
  });

  it("refuses requests without a live token (401), with a foreign Host or Origin (403)", async () => {
    server = await startHostToolServer();
    const grant = server.open(echoSession);
    const auth = { authorization: `Bearer ${grant.token}` };
    expect(await post(server.url, {})).toBe(401);
    expect(await post(server.url, { authorization: "Bearer not-the-token" })).toBe(401);
    expect(await post(server.url, { ...auth, host: "evil.example:80" })).toBe(403);
    expect(await post(server.url, { ...auth, origin: "http://evil.example" })).toBe(403);
    expect(await post(server.url, auth)).toBe(200);
    grant.revoke();
    expect(await post(server.url, auth)).toBe(401);
  });

  it("a grant tied to a signal is revoked when it aborts; close() stops the listener", async () => {
    server = await startHostToolServer();
    const controller = new AbortController();
    const grant = server.open(echoSession, controller.signal);
    const auth = { authorization: `Bearer ${grant.token}` };
    expect(await post(server.url, auth)).toBe(200);
    controller.abort();
    expect(await post(server.url, auth)).toBe(401);
    const url = server.url;
    await server.close();
    await server.close();
    await expect(post(url, auth)).rejects.toThrow(/ECONNREFUSED/);
    expect(() => server?.open(echoSession)).toThrow(/closed/);
  });
});
