import { describe, expect, it } from "vitest";
import { defineTool } from "@adaptor/tool";
import type { HostToolSession } from "@adaptor/mcp";
import { EventQueue } from "../events/event-queue.js";
import { AgentTools } from "./agent-tools.js";

const tool = defineTool({ name: "echo", description: "Echo", input: { type: "object" }, handler: () => "ok" });
const session = (text: string): HostToolSession => ({ tools: [], call: () => Promise.resolve({ text, isError: false }) });
const queue = (): EventQueue => new EventQueue({ runId: "r" }, 16);

describe("AgentTools grants", () => {
  it("the turns of one thread share one URL and token; plain runs and other threads get their own", async () => {
    const tools = new AgentTools([tool]);
    const turn = async (threadKey?: string) => {
      const controller = new AbortController();
      const grant = await tools.binding("r", queue(), threadKey)!.open(session("x"), controller.signal);
      return { grant, end: () => controller.abort() };
    };
    const first = await turn("t1");
    first.end();
    const second = await turn("t1");
    expect(second.grant.headers).toEqual(first.grant.headers);
    expect(second.grant.url).toBe(first.grant.url);
    // A second turn of t1 while one is attached, another thread, a plain run: each its own token.
    const concurrent = await turn("t1");
    const other = await turn("t2");
    const plain = await turn();
    const tokens = [second, concurrent, other, plain].map((t) => t.grant.headers["Authorization"]);
    expect(new Set(tokens).size).toBe(4);
    for (const t of [second, concurrent, other, plain]) t.end();
    await tools.close();
  });
});

/** A `tools/call` of `echo` over HTTP with `grant`'s header; resolves the reply text. */
async function callEcho(grant: { url: string; headers: Readonly<Record<string, string>> }): Promise<string> {
  const response = await fetch(grant.url, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...grant.headers },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "echo", arguments: {} } }),
  });
  const body = (await response.json()) as { result?: { content?: { text?: string }[] } };
  return body.result?.content?.[0]?.text ?? `status ${response.status}`;
}

describe("a thread's grant between turns", () => {
  it("a call reaches the turn being served, is refused between turns; after close() nothing answers", async () => {
    const tools = new AgentTools([tool]);
    const withEcho = (text: string): HostToolSession => ({
      tools: [{ name: "echo", description: "Echo", inputSchema: { type: "object" } }],
      call: () => Promise.resolve({ text, isError: false }),
    });
    const first = new AbortController();
    const grant = await tools.binding("r1", queue(), "t")!.open(withEcho("turn one"), first.signal);
    expect(await callEcho(grant)).toBe("turn one");
    first.abort();
    expect(await callEcho(grant)).toBe("tool_error: no turn of this thread is running");
    const second = new AbortController();
    const again = await tools.binding("r2", queue(), "t")!.open(withEcho("turn two"), second.signal);
    expect(again.headers).toEqual(grant.headers);
    expect(await callEcho(grant)).toBe("turn two");
    second.abort();
    await tools.close();
    await expect(callEcho(grant)).rejects.toThrow();
  });
});
