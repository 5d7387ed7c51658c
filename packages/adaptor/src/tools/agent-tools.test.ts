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
