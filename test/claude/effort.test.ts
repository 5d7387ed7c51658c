import { afterEach, describe, expect, it } from "vitest";
import { MemoryThreadStore } from "@adaptor/threadstore";
import { whenUserSays } from "@adaptor/testkit";
import { Agent, FeatureUnsupportedError, findError } from "adaptor";
import { claude } from "@adaptor/claude";
import { harness, type Harness } from "./support.js";

// The `effort` run option on the real claude binary: Claude Code's `--effort`, which it sends as
// the Messages request's `output_config.effort` (with adaptive thinking) for a model that takes an
// effort. Claude Code 2.1.332 sends none for claude-sonnet-4-5.

let h: Harness | undefined;
let agent: Agent | undefined;
afterEach(async () => {
  await agent?.close();
  await h?.close();
  h = agent = undefined;
});

/** The `output_config` of the request that carried `marker` as its user prompt. */
function outputConfigOf(server: Harness["server"], marker: string): unknown {
  const request = server.requests.find((r) => r.view.lastUserText.includes(marker));
  if (!request) throw new Error(`no request carried ${marker}`);
  return (request.body as { output_config?: unknown }).output_config;
}

describe("reasoning effort (real binary)", { timeout: 180_000 }, () => {
  it("each turn's effort reaches the model request as output_config.effort; a turn without one gets Claude Code's default", async () => {
    h = await harness([
      { when: whenUserSays("effort-low"), reply: { text: "low" } },
      { when: whenUserSays("effort-medium"), reply: { text: "medium" } },
      { when: whenUserSays("effort-none"), reply: { text: "none" } },
    ]);
    agent = new Agent(claude({ cwd: h.env.workDir, env: h.env.env, inheritEnv: false, model: "claude-opus-4-6" }), {
      threadStore: new MemoryThreadStore(),
    });
    const thread = agent.thread("effort");
    await thread.run("effort-low", { effort: "low" });
    await thread.run("effort-medium", { effort: "medium" });
    await thread.run("effort-none");
    expect(outputConfigOf(h.server, "effort-low")).toEqual({ effort: "low" });
    expect(outputConfigOf(h.server, "effort-medium")).toEqual({ effort: "medium" });
    expect(outputConfigOf(h.server, "effort-none")).toEqual({ effort: "high" });
  });

  it("the thinking budget (the Claude Agent SDK's maxThinkingTokens) is the env MAX_THINKING_TOKENS: the request's thinking.budget_tokens", async () => {
    h = await harness([
      { when: whenUserSays("budget-4096"), reply: { text: "capped" } },
      { when: whenUserSays("budget-default"), reply: { text: "default" } },
    ]);
    await h.agent.run("budget-4096", { env: { MAX_THINKING_TOKENS: "4096" } });
    await h.agent.run("budget-default");
    const thinking = (marker: string): unknown =>
      (h!.server.requests.find((r) => r.view.lastUserText.includes(marker))?.body as { thinking?: unknown } | undefined)?.thinking;
    expect(thinking("budget-4096")).toMatchObject({ type: "enabled", budget_tokens: 4096 });
    expect(thinking("budget-default")).not.toMatchObject({ budget_tokens: 4096 });
  });

  it("minimal, a level Claude Code does not have: FeatureUnsupportedError before anything starts", async () => {
    await using refusing = new Agent(claude({ command: "/nonexistent/claude" }));
    const refused = await refusing.run("hi", { effort: "minimal" }).catch((e: unknown) => e);
    expect(findError(refused, FeatureUnsupportedError)).toMatchObject({ driver: "claude", feature: "effort" });
  });

  it("xhigh, a Codex level Claude Code does not carry: FeatureUnsupportedError before anything starts", async () => {
    await using refusing = new Agent(claude({ command: "/nonexistent/claude" }), { effort: "xhigh" });
    const refused = await refusing.run("hi").catch((e: unknown) => e);
    expect(findError(refused, FeatureUnsupportedError)).toMatchObject({ driver: "claude", feature: "effort" });
    expect(String((refused as Error).message)).toContain("xhigh");
  });

  it.each(["max", "ultra"] as const)(
    "%s, a Codex level Claude Code does not carry: FeatureUnsupportedError before anything starts",
    async (effort) => {
      await using refusing = new Agent(claude({ command: "/nonexistent/claude" }));
      const refused = await refusing.run("hi", { effort }).catch((e: unknown) => e);
      expect(findError(refused, FeatureUnsupportedError)).toMatchObject({ driver: "claude", feature: "effort" });
    },
  );
});
