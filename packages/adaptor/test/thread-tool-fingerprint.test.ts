// A thread's compatibility fingerprint covers the agent's host tools by name and revision: a
// changed `revision`, a removed or an added tool makes the stored thread ErrThreadIncompatible,
// while the same tools (or a thread that never had tools) continue.
import { describe, expect, it } from "vitest";
import { MemoryThreadStore } from "@adaptor/threadstore";
import { Agent, ErrThreadIncompatible, defineTool, isError, type Tool } from "../src/index.js";
import { capabilityDriver } from "./support/capability-driver.js";

const lookup = (revision?: string): Tool =>
  defineTool({
    name: "lookup",
    description: "Look up",
    input: { type: "object" },
    handler: () => "ok",
    ...(revision !== undefined ? { revision } : {}),
  });
const extra = defineTool({ name: "extra", description: "Extra", input: { type: "object" }, handler: () => "ok" });

/** Runs one thread turn on a fresh agent with `tools` over `store`; resolves the error, if any. */
async function turn(store: MemoryThreadStore, tools: readonly Tool[] | undefined): Promise<unknown> {
  const driver = capabilityDriver({ mcp: { transports: ["http"] } }, async () => ({ checkpoint: { resumeId: "s1" } }));
  const agent = new Agent(driver, { threadStore: store, ...(tools ? { tools } : {}) });
  try {
    await agent.thread("t").run("hello");
    return undefined;
  } catch (error) {
    return error;
  } finally {
    await agent.close();
  }
}

describe("thread fingerprint and host tools", () => {
  it("the same tools and revisions continue the thread", async () => {
    const store = new MemoryThreadStore();
    expect(await turn(store, [lookup("1")])).toBeUndefined();
    expect(await turn(store, [lookup("1")])).toBeUndefined();
  });

  it("a thread that never had tools continues without tools", async () => {
    const store = new MemoryThreadStore();
    expect(await turn(store, undefined)).toBeUndefined();
    expect(await turn(store, [])).toBeUndefined();
  });

  it.each([
    ["a changed revision", [lookup("2")]],
    ["the revision removed", [lookup()]],
    ["the tools removed", undefined],
    ["a tool added", [lookup("1"), extra]],
  ])("%s makes the thread incompatible (ErrThreadIncompatible)", async (_case, next) => {
    const store = new MemoryThreadStore();
    expect(await turn(store, [lookup("1")])).toBeUndefined();
    const err = await turn(store, next);
    expect(isError(err, ErrThreadIncompatible)).toBe(true);
    expect((err as Error).message).toMatch(/host tools/);
  });
});
