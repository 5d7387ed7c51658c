import { describe, expect, it } from "vitest";
import { Agent, FeatureUnsupportedError, findError } from "adaptor";
import { codex } from "@adaptor/codex";

// What the Codex driver cannot deliver is refused before launch (the command below does not
// exist: a spawn would fail with NOT_FOUND instead).

describe("Codex refuses what it cannot deliver", () => {
  it.each(["app-server", "exec"] as const)("subagent definitions over %s: FeatureUnsupportedError, nothing started", async (transport) => {
    await using agent = new Agent(codex({ command: "/nonexistent/codex", transport }));
    const refused = await agent
      .run("hi", { agents: { reviewer: { description: "Reviews", prompt: "You review." } } })
      .catch((e: unknown) => e);
    expect(findError(refused, FeatureUnsupportedError)).toMatchObject({ driver: "codex", feature: "agents" });
  });
});
