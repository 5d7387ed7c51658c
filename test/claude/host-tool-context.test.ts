import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { MemoryThreadStore } from "@adaptor/threadstore";
import { whenToolResult, whenUserSays } from "@adaptor/testkit";
import { Agent, defineTool, type AgentEvent, type ToolContext } from "adaptor";
import { claude } from "@adaptor/claude";
import { harness, type Harness } from "./support.js";

// What a host tool's handler is told about the run that called it, on the real claude binary
// (pinned 2.1.332): the run id, the thread's key when the run is a thread turn, and the run's
// signal, aborted when the run is cancelled while the call is running.

let h: Harness | undefined;
let agent: Agent | undefined;
afterEach(async () => {
  await agent?.close();
  await h?.close();
  h = agent = undefined;
});

const contexts: ToolContext[] = [];
const lookup = defineTool({
  name: "lookup_order",
  description: "Find an order by id",
  input: z.object({ id: z.string() }),
  handler: (input, context) => {
    contexts.push(context);
    return { id: input.id, total: 42 };
  },
});

/** Settles once the handler's signal aborted; its reason is what the handler saw. */
let aborted: Promise<unknown> = Promise.resolve();
const wait = defineTool({
  name: "wait_for_cancel",
  description: "Waits until the run ends",
  input: z.object({}),
  handler: (_input, context) => {
    contexts.push(context);
    aborted = new Promise((resolve) => context.signal.addEventListener("abort", () => resolve(context.signal.reason), { once: true }));
    return aborted.then(() => "never seen");
  },
});

const RULES = [
  { name: "lookup", when: whenUserSays("look up"), reply: { toolUse: { name: "mcp__adaptor__lookup_order", input: { id: "o1" } } } },
  { name: "after-lookup", when: whenToolResult("mcp__adaptor__lookup_order", '"total":42'), reply: { text: "looked it up" } },
  { name: "wait", when: whenUserSays("wait"), reply: { toolUse: { name: "mcp__adaptor__wait_for_cancel", input: {} } } },
];

async function toolAgent(store?: MemoryThreadStore): Promise<Agent> {
  h = await harness(RULES);
  contexts.length = 0;
  return new Agent(claude({ cwd: h.env.workDir, env: h.env.env, inheritEnv: false, model: "claude-sonnet-4-5" }), {
    tools: [lookup, wait],
    ...(store ? { threadStore: store } : {}),
  });
}

describe("a host tool's context on the real claude binary", { timeout: 120_000 }, () => {
  it("a thread turn's call gets the thread key and the turn's run id, for every turn and for a fork", async () => {
    agent = await toolAgent(new MemoryThreadStore());
    const thread = agent.thread("orders");
    const first = await thread.run("look up o1");
    const second = await thread.run("look up again");
    const forked = await thread.fork("orders-branch").run("look up in the branch");
    expect([first.text, second.text, forked.text]).toEqual(["looked it up", "looked it up", "looked it up"]);
    expect(contexts.map((context) => [context.threadKey, context.runId])).toEqual([
      ["orders", first.runId],
      ["orders", second.runId],
      ["orders-branch", forked.runId],
    ]);
  });

  it("a plain run's call has no thread key", async () => {
    agent = await toolAgent();
    const result = await agent.run("look up o1");
    expect(result.text).toBe("looked it up");
    expect(contexts).toHaveLength(1);
    expect(contexts[0]!.runId).toBe(result.runId);
    expect("threadKey" in contexts[0]!).toBe(false);
  });

  it("cancelling the run while the call runs aborts the handler's signal", async () => {
    agent = await toolAgent(new MemoryThreadStore());
    const stream = agent.thread("orders").stream("wait for me");
    const reason = new Error("host cancelled");
    for await (const event of stream as AsyncIterable<AgentEvent>) {
      if (event.type === "tool-call" && event.phase === "end" && event.name === "mcp__adaptor__wait_for_cancel") {
        // The call reached the handler: cancel only then.
        await expect.poll(() => contexts.length, { timeout: 30_000 }).toBe(1);
        expect(contexts[0]!.signal.aborted).toBe(false);
        stream.cancel(reason);
      }
    }
    expect(await stream.result().catch((error: unknown) => error)).toBe(reason);
    await aborted;
    expect(contexts[0]!.signal.aborted).toBe(true);
    expect(contexts[0]!.threadKey).toBe("orders");
    expect(contexts[0]!.runId).toBe(stream.runId);
  });
});
