import { setTimeout as sleep } from "node:timers/promises";
import { describe, expect, it } from "vitest";
import { runDriver } from "@adaptor/driver/testing";
import { DriverError, ErrCode, findError } from "@adaptor/errors";
import { fakeCliEnv, fakeCliPath, type FakeCliStep } from "@adaptor/testkit/fake-cli";
import { claude } from "../src/index.js";

// Fault injection: the testkit's fake CLI plays Claude Code's stream-json with exact lines.
const line = (value: unknown): FakeCliStep => ({ write: `${JSON.stringify(value)}\n` });
const INIT = line({ type: "system", subtype: "init", session_id: "s-fake", model: "fake-model", tools: [] });
const RESULT = line({ type: "result", subtype: "success", is_error: false, result: "done", session_id: "s-fake", num_turns: 1 });

function fake(steps: FakeCliStep[]) {
  return claude({ command: fakeCliPath, env: fakeCliEnv(steps), killGraceMs: 10_000, stallTimeoutMs: 2_000 });
}

describe("the stall watchdog on the Claude driver (fake CLI, stallTimeoutMs 2 s)", () => {
  it("a CLI that goes silent mid-turn ends the run with a TIMEOUT DriverError (op stall)", async () => {
    const driver = fake([{ awaitStdinLine: true }, INIT, { hang: true }]);
    try {
      const run = await runDriver(driver, { prompt: "hi" });
      const error = findError(run.error, DriverError);
      expect([error?.code, error?.op]).toEqual([ErrCode.Timeout, "stall"]);
    } finally {
      await driver.close();
    }
  });

  it("a CLI that closes its stdout and stays alive is ended after killGraceMs, not at the stall timeout: exited without a result line", async () => {
    const driver = claude({
      command: fakeCliPath,
      env: fakeCliEnv([{ awaitStdinLine: true }, INIT, { closeStdout: true }, { hang: true }]),
      killGraceMs: 300,
      stallTimeoutMs: 60_000,
    });
    try {
      const run = await runDriver(driver, { prompt: "hi" });
      expect(run.error).toBeUndefined();
      expect(run.response?.failure).toMatchObject({
        reason: "agent_error",
        message:
          "claude exited (ended by the SDK with SIGTERM: its stdout had ended and it did not exit within the kill grace) without a result line",
      });
      expect(run.response?.exit).toMatchObject({ signal: "SIGTERM", endedByDriver: true });
    } finally {
      await driver.close();
    }
  }, 30_000);

  it("a 5 s wait on the host's approval does not count as a stall", async () => {
    const driver = fake([
      { awaitStdinLine: true },
      INIT,
      line({
        type: "control_request",
        request_id: "r-1",
        request: { subtype: "can_use_tool", tool_name: "Bash", input: { command: "ls" }, tool_use_id: "tu-1" },
      }),
      { awaitStdinLine: true },
      RESULT,
    ]);
    try {
      const run = await runDriver(driver, { prompt: "hi" }, { onApproval: async () => (await sleep(5_000), { outcome: "approve" }) });
      expect(run.error).toBeUndefined();
      expect(run.recording.asks.map((ask) => ask.toolName)).toEqual(["Bash"]);
      expect(run.response?.text).toBe("done");
    } finally {
      await driver.close();
    }
  });
});
