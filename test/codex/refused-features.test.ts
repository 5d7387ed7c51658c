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

  it.each([
    ["allowedTools", { allowedTools: ["Bash"] }],
    ["disallowedTools", { disallowedTools: ["Bash"] }],
    ["additionalDirectories", { additionalDirectories: ["/tmp"] }],
  ] as const)("%s (the Claude driver's tool access options): FeatureUnsupportedError, nothing started", async (feature, options) => {
    await using agent = new Agent(codex({ command: "/nonexistent/codex" }));
    const refused = await agent.run("hi", options).catch((e: unknown) => e);
    expect(findError(refused, FeatureUnsupportedError)).toMatchObject({ driver: "codex", feature });
  });
});
