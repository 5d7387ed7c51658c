import { describe, expect, it } from "vitest";
import { MemoryThreadStore } from "@adaptor/threadstore";
import { startOpenAIServer, type OpenAIServer } from "@adaptor/testkit";
import type { AgentEvent, Stream } from "adaptor";
import { codexHost } from "./support.js";
import { closedAfterEach } from "../support/closed-after-each.js";

// A codex thread turn that names no `model` (or `effort`) runs with the last COMMITTED turn's, on
// the real codex binary (app-server): not with a turn that never committed (a suspended one), and
// a fork's turns keep their parent's at the fork point instead of codex's configured default.

const open = closedAfterEach();

async function setup(): Promise<{ s: OpenAIServer; store: MemoryThreadStore }> {
  const s = await startOpenAIServer({ rules: [] });
  open.push(s);
  return { s, store: new MemoryThreadStore() };
}

/** The model and reasoning effort of the request whose last user text holds `marker`. */
function sent(s: OpenAIServer, marker: string): { model: string; effort: unknown } {
  const response = s
    .responses()
    .filter((r) => r.view.userTexts.at(-1)?.includes(marker))
    .at(-1)!;
  return { model: response.view.model, effort: (response.body as { reasoning?: { effort?: unknown } }).reasoning?.effort };
}

async function drain(stream: Stream): Promise<string> {
  for await (const _event of stream as AsyncIterable<AgentEvent>) void _event;
  return (await stream.result()).status;
}

describe("codex app-server: the model and effort of a turn that names none", { timeout: 180_000 }, () => {
  it("a fork's turns keep the parent's model and effort at the fork point, not codex's default", async () => {
    const { s, store } = await setup();
    const a = (await codexHost(s, store, (item) => void open.push(item))).agent;
    await a.thread("parent").run("one [m-1]", { model: "made-up-model-1", effort: "low" });
    await a.thread("parent").run("two [m-2]", { model: "made-up-model-2", effort: "high" });
    await a.thread("parent").fork("child").run("child [m-3]");
    expect(sent(s, "[m-3]")).toEqual({ model: "made-up-model-2", effort: "high" });
    await a.thread("child").run("child again [m-4]");
    expect(sent(s, "[m-4]")).toEqual({ model: "made-up-model-2", effort: "high" });
    // At an earlier turn: that turn's model.
    const early = await a.thread("parent").fork("early", { at: 1 }).run("early [m-5]");
    expect(sent(s, "[m-5]")).toEqual({ model: "made-up-model-1", effort: "low" });
    expect(early.model).toBe("made-up-model-1");
  });

  it("a turn after a suspended (uncommitted) one keeps the last committed turn's model and effort", async () => {
    const { s, store } = await setup();
    const a = (await codexHost(s, store, (item) => void open.push(item))).agent;
    await a.thread("t").run("one [m-1]", { model: "made-up-model-1", effort: "low" });
    const status = await drain(
      a.thread("t").stream("PATCH_FILE patched.txt [m-2]", {
        // A model codex gives its apply_patch tool (the change it asks to approve): its default.
        model: "gpt-5.5",
        effort: "high",
        policy: { approvals: { permission: "ask" } },
        suspend: {},
      }),
    );
    expect(status).toBe("suspended");
    expect(sent(s, "[m-2]")).toEqual({ model: "gpt-5.5", effort: "high" });
    const next = await a.thread("t").run("three [m-3]");
    expect(sent(s, "[m-3]")).toEqual({ model: "made-up-model-1", effort: "low" });
    expect(next.model).toBe("made-up-model-1");
  });
});
