import { setTimeout as sleep } from "node:timers/promises";
import { afterEach, describe, expect, it, vi } from "vitest";
import { DriverError, ErrCode, findError } from "@adaptor/errors";
import { whenToolResult, whenUserSays } from "@adaptor/testkit";
import { defineTool } from "adaptor";
import { alive, drainEvents, harness, spawnedPid, type Harness } from "./support.js";

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

describe("claude: a host tool that never returns, its handler deaf to its signal (real binary)", () => {
  // Its silence is not a stall, so only the run's own bounds end it: timeoutMs and a cancel.
  function stuckTool() {
    let signal: AbortSignal | undefined;
    let entered!: () => void;
    const running = new Promise<void>((resolve) => (entered = resolve));
    const tool = defineTool({
      name: "stuck",
      description: "Never answers",
      input: { type: "object", properties: {} },
      handler: (_input, context) => {
        signal = context.signal;
        entered();
        return new Promise<never>(() => undefined);
      },
    });
    return { tool, running, aborted: () => signal?.aborted === true };
  }
  const rules = [{ name: "call", when: whenUserSays("call stuck"), reply: { toolUse: { name: "mcp__adaptor__stuck", input: {} } } }];

  it("timeoutMs ends the run with TIMEOUT (no stall before it), the tool's signal aborted, the CLI ended", async () => {
    const stuck = stuckTool();
    h = await harness(rules, { stallTimeoutMs: 3_000 }, { tools: [stuck.tool] });
    const stream = h.agent.stream("call stuck now", { timeoutMs: 12_000 });
    const events = await drainEvents(stream);
    const error = await stream.result().catch((e: unknown) => e);
    const timeout = findError(error, DriverError);
    expect([timeout?.code, timeout?.op === "stall"]).toEqual([ErrCode.Timeout, false]);
    expect(stuck.aborted()).toBe(true);
    const pid = spawnedPid(events);
    await vi.waitFor(() => expect(pid !== undefined && alive(pid)).toBe(false), { timeout: 10_000 });
  }, 120_000);

  it("a cancel ends the run, the tool's signal aborted, the CLI ended", async () => {
    const stuck = stuckTool();
    h = await harness(rules, { stallTimeoutMs: 3_000 }, { tools: [stuck.tool] });
    const controller = new AbortController();
    const stream = h.agent.stream("call stuck now", { signal: controller.signal });
    await stuck.running;
    await sleep(5_000); // past stallTimeoutMs: the run is still alive, waiting on the tool
    controller.abort(new Error("host cancelled"));
    const events = await drainEvents(stream);
    const error = await stream.result().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Error);
    expect(findError(error, DriverError)?.op).not.toBe("stall");
    expect(stuck.aborted()).toBe(true);
    const pid = spawnedPid(events);
    await vi.waitFor(() => expect(pid !== undefined && alive(pid)).toBe(false), { timeout: 10_000 });
  }, 120_000);
});
