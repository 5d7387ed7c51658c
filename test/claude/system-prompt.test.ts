import { afterEach, describe, expect, it } from "vitest";
import { MemoryThreadStore } from "@adaptor/threadstore";
import { whenUserSays } from "@adaptor/testkit";
import { Agent } from "adaptor";
import { claude } from "@adaptor/claude";
import { harness, type Harness } from "./support.js";

// The `systemPrompt` run option on the real claude binary: what the scripted server receives as
// the Messages request's `system`.

let h: Harness | undefined;
let agent: Agent | undefined;
afterEach(async () => {
  await agent?.close();
  await h?.close();
  h = agent = undefined;
});

/** The `system` text of the request that carried `marker` as its user prompt. */
function systemOf(server: Harness["server"], marker: string): string {
  const request = server.requests.find((r) => r.view.lastUserText.includes(marker));
  if (!request) throw new Error(`no request carried ${marker}`);
  return request.view.system;
}

describe("system prompt (real binary)", { timeout: 180_000 }, () => {
  it("a string replaces Claude Code's system prompt; { append } keeps it and adds the text; a thread's next turn takes a new value", async () => {
    h = await harness([
      { when: whenUserSays("sp-replace"), reply: { text: "replaced" } },
      { when: whenUserSays("sp-append"), reply: { text: "appended" } },
      { when: whenUserSays("sp-plain"), reply: { text: "plain" } },
    ]);
    agent = new Agent(claude({ cwd: h.env.workDir, env: h.env.env, inheritEnv: false, model: "claude-sonnet-4-5" }), {
      threadStore: new MemoryThreadStore(),
    });
    const thread = agent.thread("sp");
    await thread.run("sp-replace", { systemPrompt: "You are the release-notes bot. Answer in one line." });
    await thread.run("sp-append", { systemPrompt: { append: "Always end with the word BANANA." } });
    await thread.run("sp-plain");

    const replaced = systemOf(h.server, "sp-replace");
    expect(replaced).toContain("You are the release-notes bot. Answer in one line.");
    expect(replaced).not.toContain("Claude Code");
    const appended = systemOf(h.server, "sp-append");
    expect(appended).toContain("Claude Code");
    expect(appended.trimEnd().endsWith("Always end with the word BANANA.")).toBe(true);
    const plain = systemOf(h.server, "sp-plain");
    expect(plain).toContain("Claude Code");
    expect(plain).not.toContain("BANANA");
    expect(plain).not.toContain("release-notes bot");
  });
});
