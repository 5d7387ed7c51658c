import { afterEach, describe, expect, it } from "vitest";
import { whenPromptSays } from "@adaptor/testkit";
import { Agent, type AgentEvent } from "adaptor";
import { MemoryThreadStore } from "@adaptor/threadstore";
import { codexHarness, type CodexHarness } from "./support.js";

// Real codex binary (pinned 0.171.0) against the testkit's scripted OpenAI Responses server: the
// run's `model` reaches the model request as given (codex resolves no alias and replaces no id, on
// either transport), so the run reports it and no model notice comes.

let h: CodexHarness | undefined;
let agent: Agent | undefined;
afterEach(async () => {
  await agent?.close();
  await h?.close();
  agent = undefined;
  h = undefined;
});

describe.each(["app-server", "exec"] as const)("codex %s: the run's model option", (transport) => {
  it.each(["gpt-5-codex", "made-up-model-1"])("%s is sent as given over the configured model, and result.model names it", async (model) => {
    h = await codexHarness({ rules: [{ when: whenPromptSays("say hi"), reply: { text: "hi" } }], config: { transport } });
    agent = new Agent(h.driver);
    const stream = agent.stream("say hi", { model });
    const events: AgentEvent[] = [];
    for await (const event of stream) events.push(event);
    const result = await stream.result();
    expect(h.env.model).not.toBe(model);
    expect(
      h.server.requests.filter((request) => request.rule !== undefined).map((request) => (request.body as { model?: unknown }).model),
    ).toEqual([model]);
    expect(result.model).toBe(model);
    expect(
      events.filter((event) => event.type === "notice" && (event.kind === "model.substituted" || event.kind === "model.resolved")),
    ).toEqual([]);
  });

  it(
    "a thread keeps the last model a turn named; result.model names the model codex used, named or not",
    { timeout: 180_000 },
    async () => {
      h = await codexHarness({
        rules: ["plain-run", "named-turn", "unnamed-turn", "respawned-turn"].map((marker) => ({
          when: whenPromptSays(marker),
          reply: { text: marker },
        })),
        config: { transport },
      });
      agent = new Agent(h.driver, { threadStore: new MemoryThreadStore() });
      const sent = (marker: string) => [
        ...new Set(
          h!.server.requests.filter((r) => r.view.lastUserText.includes(marker)).map((r) => (r.body as { model?: unknown }).model),
        ),
      ];
      const plain = await agent.run("plain-run");
      expect(sent("plain-run")).toEqual([h.env.model]);
      expect(plain.model).toBe(h.env.model);

      const thread = agent.thread("kept-model");
      const named = await thread.run("named-turn", { model: "gpt-5-codex" });
      const unnamed = await thread.run("unnamed-turn");
      const respawned = await thread.run("respawned-turn", { spawn: true });
      expect([named.model, unnamed.model, respawned.model]).toEqual(["gpt-5-codex", "gpt-5-codex", "gpt-5-codex"]);
      expect([sent("named-turn"), sent("unnamed-turn"), sent("respawned-turn")]).toEqual([
        ["gpt-5-codex"],
        ["gpt-5-codex"],
        ["gpt-5-codex"],
      ]);
    },
  );
});
