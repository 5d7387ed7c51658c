import { afterEach, describe, expect, it } from "vitest";
import { Agent } from "adaptor";
import { codexHarness, type CodexHarness } from "./support.js";

// `configOverrides` (codex's own `-c key=value` settings) on the real binary: the Codex SDK's
// `modelReasoningEffort` is `configOverrides: { model_reasoning_effort }`, on both transports.

let h: CodexHarness | undefined;
let agent: Agent | undefined;
afterEach(async () => {
  await agent?.close();
  await h?.close();
  h = agent = undefined;
});

describe("codex configOverrides (real binary)", () => {
  it.each(["app-server", "exec"] as const)(
    "%s: model_reasoning_effort reaches the model request as reasoning.effort",
    async (transport) => {
      h = await codexHarness({ config: { transport, configOverrides: { model_reasoning_effort: "high" } } });
      agent = new Agent(h.driver);
      await agent.run("hello");
      const body = h.server.responses().at(-1)?.view.raw as { reasoning?: { effort?: string } };
      expect(body.reasoning?.effort).toBe("high");
    },
  );
});
