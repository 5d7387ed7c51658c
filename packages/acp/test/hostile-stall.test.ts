import { setTimeout as sleep } from "node:timers/promises";
import { describe, expect, it } from "vitest";
import { runDriver } from "@adaptor/driver/testing";
import { DriverError, ErrCode, findError } from "@adaptor/errors";
import { alive } from "./support.js";
import { hostileAcp, text } from "./hostile-agent/hostile.js";

const TOOL = { toolCallId: "call-1", title: "Run ls", kind: "execute", rawInput: { command: "ls" } };

describe("the stall watchdog on an ACP agent (stallTimeoutMs 2 s)", () => {
  it("an agent that goes silent mid-turn ends the run with a TIMEOUT DriverError (op stall), no process left", async () => {
    const driver = hostileAcp({ "session/prompt": [[text("working "), { hang: true }]] }, { stallTimeoutMs: 2_000 });
    try {
      const run = await runDriver(driver, { prompt: "hi" });
      const error = findError(run.error, DriverError);
      expect([error?.code, error?.op]).toEqual([ErrCode.Timeout, "stall"]);
      const [pid] = run.recording.pids();
      expect(pid).toBeGreaterThan(0);
      expect(alive(pid!)).toBe(false);
    } finally {
      await driver.close();
    }
  });

  it("a 5 s wait on the host's approval does not count as a stall", async () => {
    const driver = hostileAcp(
      {
        "session/prompt": [
          [
            { update: { sessionUpdate: "tool_call", ...TOOL } },
            { permission: TOOL },
            text("done"),
            { respond: { stopReason: "end_turn" } },
          ],
        ],
      },
      { stallTimeoutMs: 2_000 },
    );
    try {
      const run = await runDriver(driver, { prompt: "hi" }, { onApproval: async () => (await sleep(5_000), { outcome: "approve" }) });
      expect(run.error).toBeUndefined();
      expect(run.response?.text).toBe("done");
      expect(run.recording.asks).toHaveLength(1);
    } finally {
      await driver.close();
    }
  });
});
