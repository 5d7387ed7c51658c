import { afterEach, describe, expect, it } from "vitest";
import { whenPromptSays, type OpenAIServer } from "@adaptor/testkit";
import { Agent } from "adaptor";
import { codex } from "@adaptor/codex";
import { codexHarness, type CodexHarness } from "./support.js";

// The `systemPrompt` run option on the real codex binary, both transports: what the scripted
// server receives. codex 0.171.0 sends no `instructions` field to this provider: its base
// instructions ("You are Codex, ...") are the request's first developer message, and developer
// instructions a later developer message.

let h: CodexHarness | undefined;
let agent: Agent | undefined;
afterEach(async () => {
  await agent?.close();
  await h?.close();
  h = agent = undefined;
});

/** The body of the request whose prompt was `marker`. */
function requestFor(server: OpenAIServer, marker: string): { base: string; developer: string } {
  const request = server.requests.find((r) => r.view.lastUserText.includes(marker));
  if (!request) throw new Error(`no request carried ${marker}`);
  const body = request.body as { input?: { type?: string; role?: string; content?: { text?: string }[] }[] };
  const texts = (body.input ?? [])
    .filter((item) => item.role === "developer")
    .map((item) => (item.content ?? []).map((part) => part.text ?? "").join("\n"));
  return { base: texts[0] ?? "", developer: texts.slice(1).join("\n") };
}

describe.each(["app-server", "exec"] as const)("system prompt over %s (real binary)", (transport) => {
  it("a string replaces codex's instructions; { append } keeps them and adds a developer message", { timeout: 180_000 }, async () => {
    h = await codexHarness({
      rules: [
        { when: whenPromptSays("sp-replace"), reply: { text: "replaced" } },
        { when: whenPromptSays("sp-append"), reply: { text: "appended" } },
      ],
    });
    agent = new Agent(codex({ cwd: h.env.workDir, env: h.env.env, inheritEnv: false, killGraceMs: 1000, transport }));
    await agent.run("sp-replace", { systemPrompt: "You are the release-notes bot. Answer in one line." });
    await agent.run("sp-append", { systemPrompt: { append: "Always end with the word BANANA." } });

    const replaced = requestFor(h.server, "sp-replace");
    expect(replaced.base).toBe("You are the release-notes bot. Answer in one line.");
    expect(replaced.developer).not.toContain("BANANA");
    const appended = requestFor(h.server, "sp-append");
    expect(appended.base).toMatch(/^You are Codex/);
    expect(appended.base).not.toContain("release-notes bot");
    expect(appended.developer).toContain("Always end with the word BANANA.");
  });
});
