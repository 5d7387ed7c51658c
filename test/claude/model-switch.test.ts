import { afterEach, describe, expect, it } from "vitest";
import { MemoryThreadStore } from "@adaptor/threadstore";
import { Agent } from "adaptor";
import { harness, type Harness } from "./support.js";

// Real claude binary (pinned 2.1.332) against the testkit's scripted Anthropic server: a thread
// turn may name another model than the turns before it. A new process resumes the session with
// `--resume` and the new `--model`; the model request names it and carries the whole conversation.

let h: Harness | undefined;
let agent: Agent | undefined;
afterEach(async () => {
  await agent?.close();
  await h?.close();
  agent = undefined;
  h = undefined;
});

/** A request's user messages: their text blocks, without the CLI's `<system-reminder>` blocks. */
function said(body: unknown): string[] {
  return messages(body, "user");
}

/** A request's assistant messages: their text blocks. */
function answers(body: unknown): string[] {
  return messages(body, "assistant");
}

function messages(body: unknown, role: string): string[] {
  const all = (body as { messages: { role: string; content: string | { type: string; text?: string }[] }[] }).messages;
  return all
    .filter((message) => message.role === role)
    .flatMap((message) =>
      typeof message.content === "string"
        ? [message.content]
        : message.content.flatMap((block) => (block.type === "text" && !block.text!.startsWith("<system-reminder>") ? [block.text!] : [])),
    );
}

describe("claude: a thread turn changes the model", { timeout: 120_000 }, () => {
  it("each turn's request names that turn's model and holds the earlier turns; the session is continued", async () => {
    h = await harness();
    const store = new MemoryThreadStore();
    agent = new Agent(h.agent.driver, { threadStore: store, model: "claude-sonnet-4-5" });
    const thread = agent.thread("chat");
    const first = await thread.run("first turn");
    const resumeId = (await store.resolve({ key: "chat" }))?.checkpoint.resumeId;
    const second = await thread.run("second turn", { model: "claude-made-up-9" });
    const third = await thread.run("third turn", { model: "claude-3-opus-20240229" });
    expect([first.model, second.model, third.model]).toEqual(["claude-sonnet-4-5", "claude-made-up-9", "claude-3-opus-20240229"]);
    expect(h.server.requests.map((r) => [r.view.model, said(r.body)])).toEqual([
      ["claude-sonnet-4-5", ["first turn"]],
      ["claude-made-up-9", ["first turn", "second turn"]],
      ["claude-3-opus-20240229", ["first turn", "second turn", "third turn"]],
    ]);
    // The earlier answers are in the history too (the fake model's replies quote what it saw).
    expect(answers(h.server.requests[2]!.body)).toEqual([first.text, second.text]);
    expect((await store.resolve({ key: "chat" }))?.checkpoint.resumeId).toBe(resumeId);
  });
});
