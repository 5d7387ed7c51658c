import { afterEach, describe, expect, it } from "vitest";
import { MemoryThreadStore } from "@adaptor/threadstore";
import { harness, type Harness } from "./support.js";

// What the testkit's default Anthropic reply counts (docs/testkit.md): Claude Code 2.1.332 sends
// a first turn's reminders and prompt as one user message; with its default model it adds the
// environment as a `system`-role message after it, with `claude-sonnet-4-5` (the model the test
// harnesses pin) it puts the environment in the system prompt instead.

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

describe("the message count of the testkit's fake reply on the real claude binary", { timeout: 120_000 }, () => {
  it.each([
    ["the CLI's default model: turn 1 reads 2, turn 2 reads 4", {}, [2, 4], "user,system,assistant,user"],
    ["model claude-sonnet-4-5: turn 1 reads 1, turn 2 reads 3", { model: "claude-sonnet-4-5" }, [1, 3], "user,assistant,user"],
  ] as const)("%s", async (_name, config, counts, roles) => {
    h = await harness([], { model: undefined, ...config }, { threadStore: new MemoryThreadStore() });
    const thread = h.agent.thread("count");
    const first = await thread.run("first turn");
    const second = await thread.run("second turn");
    expect([first.text, second.text].map((text) => Number(/I saw (\d+) message/.exec(text)?.[1]))).toEqual(counts);
    const last = h.server.requests.at(-1)!.body as { messages: { role: string }[] };
    expect(last.messages.map((message) => message.role).join(",")).toBe(roles);
  });
});
