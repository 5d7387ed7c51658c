import { afterEach, describe, expect, it } from "vitest";
import { MemoryThreadStore } from "@adaptor/threadstore";
import { Agent } from "adaptor";
import { codexHarness, type CodexHarness } from "./support.js";

// Real codex binary (pinned 0.171.0) against the testkit's scripted OpenAI Responses server: a
// thread turn may name another model than the turns before it. A new process resumes the thread
// (app-server `thread/resume` with the model, exec `-m … resume`); the model request names the new
// model and carries the whole conversation.

let h: CodexHarness | undefined;
let agent: Agent | undefined;
afterEach(async () => {
  await agent?.close();
  await h?.close();
  agent = undefined;
  h = undefined;
});

describe.each(["app-server", "exec"] as const)("codex %s: a thread turn changes the model", (transport) => {
  it("each turn's request names that turn's model and holds the earlier turns; the record is continued", async () => {
    h = await codexHarness({ config: { transport } });
    const store = new MemoryThreadStore();
    agent = new Agent(h.driver, { threadStore: store });
    const thread = agent.thread("chat");
    const first = await thread.run("first turn", { model: "gpt-5-codex" });
    const resumeId = (await store.resolve({ key: "chat" }))?.checkpoint.resumeId;
    const second = await thread.run("second turn", { model: "made-up-model-1" });
    const third = await thread.run("third turn", { model: "gpt-5-codex" });
    expect([first.model, second.model, third.model]).toEqual(["gpt-5-codex", "made-up-model-1", "gpt-5-codex"]);
    const responses = h.server.responses();
    expect(responses.map((r) => r.view.model)).toEqual(["gpt-5-codex", "made-up-model-1", "gpt-5-codex"]);
    expect(responses.map((r) => r.view.userTexts)).toEqual([
      ["first turn"],
      ["first turn", "second turn"],
      ["first turn", "second turn", "third turn"],
    ]);
    expect(third.text).toContain('3 user message(s); first user text: "first turn"');
    expect((await store.resolve({ key: "chat" }))?.checkpoint.resumeId).toBe(resumeId);
  });
});
