// A host tool runs in the host's own process while the real codex app-server (pinned) waits on it,
// silent: that silence is not a stall. The stall timeout here is 5 s and the tool takes 15 s.
import { setTimeout as sleep } from "node:timers/promises";
import { afterEach, describe, expect, it } from "vitest";
import { whenPromptSays, whenToolOutput } from "@adaptor/testkit";
import { Agent, defineTool } from "adaptor";
import { codexHarness, type CodexHarness } from "./support.js";

let h: CodexHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const slowCi = defineTool({
  name: "slow_ci",
  description: "Runs the CI suite",
  input: { type: "object", properties: {} },
  handler: async (_input, context) => {
    await sleep(15_000, undefined, { signal: context.signal });
    return "ci green";
  },
});

describe("codex app-server: a host tool longer than stallTimeoutMs (real binary)", () => {
  it("the run waits for the tool and ends with the model's answer, not a stall TIMEOUT", { timeout: 120_000 }, async () => {
    h = await codexHarness({
      rules: [
        { when: whenPromptSays("RUN CI"), reply: { functionCall: { name: "slow_ci", namespace: "mcp__adaptor", arguments: {} } } },
        { when: whenToolOutput("slow_ci", "ci green"), reply: { text: "CI is green" } },
      ],
      config: { stallTimeoutMs: 5_000 },
    });
    await using agent = new Agent(h.driver, { tools: [slowCi], policy: { sandbox: "unrestricted" } });
    const result = await agent.run("RUN CI please");
    expect(result.text).toBe("CI is green");
  });
});
