import { setTimeout as sleep } from "node:timers/promises";
import { afterEach, describe, expect, it } from "vitest";
import { whenToolResult, whenUserSays } from "@adaptor/testkit";
import { defineTool } from "adaptor";
import { harness, type Harness } from "./support.js";

// A host tool runs in the host's own process while the real claude binary (pinned) waits on it,
// silent: that silence is not a stall. The stall timeout here is 8 s and the tool takes 20 s.

const STALL_MS = 8_000;
const TOOL_MS = 20_000;

const slowCi = defineTool({
  name: "slow_ci",
  description: "Runs the CI suite",
  input: { type: "object", properties: {} },
  handler: async (_input, context) => {
    await sleep(TOOL_MS, undefined, { signal: context.signal });
    return "ci green";
  },
});

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

describe("claude: a host tool longer than stallTimeoutMs (real binary)", () => {
  it("the run waits for the tool and ends with the model's answer, not a stall TIMEOUT", async () => {
    h = await harness(
      [
        { name: "call", when: whenUserSays("run ci"), reply: { toolUse: { name: "mcp__adaptor__slow_ci", input: {} } } },
        { name: "report", when: whenToolResult("mcp__adaptor__slow_ci", "ci green"), reply: { text: "CI is green" } },
      ],
      { stallTimeoutMs: STALL_MS },
      { tools: [slowCi] },
    );
    const result = await h.agent.run("run ci please");
    expect(result.text).toBe("CI is green");
    expect(h.server.requests.map((r) => r.rule)).toEqual(["call", "report"]);
  }, 120_000);
});
