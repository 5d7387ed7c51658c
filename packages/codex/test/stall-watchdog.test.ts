import { setTimeout as sleep } from "node:timers/promises";
import { describe, expect, it } from "vitest";
import { runDriver } from "@adaptor/driver/testing";
import { DriverError, ErrCode, findError } from "@adaptor/errors";
import { fakeCliEnv, fakeCliPath, type FakeCliStep } from "@adaptor/testkit/fake-cli";
import { codex } from "../src/index.js";
import { FAKE_APP_SERVER_HANDSHAKE, fakeLine } from "./support.js";

// Fault injection: the testkit's fake CLI plays codex app-server and codex exec with exact lines.
const line = fakeLine;
const handshake = FAKE_APP_SERVER_HANDSHAKE;

async function stallOf(steps: FakeCliStep[], transport: "app-server" | "exec") {
  const driver = codex({ command: fakeCliPath, env: fakeCliEnv(steps), killGraceMs: 300, stallTimeoutMs: 2_000, transport });
  try {
    return findError((await runDriver(driver, { prompt: "hi" })).error, DriverError);
  } finally {
    await driver.close();
  }
}

describe("the stall watchdog on the Codex driver (fake CLI, stallTimeoutMs 2 s)", () => {
  it("app-server: a CLI that goes silent mid-turn ends the run with a TIMEOUT DriverError (op stall)", async () => {
    const error = await stallOf([...handshake, { hang: true }], "app-server");
    expect([error?.code, error?.op]).toEqual([ErrCode.Timeout, "stall"]);
  });

  it("exec: a CLI that goes silent mid-turn ends the run with a TIMEOUT DriverError (op stall)", async () => {
    const error = await stallOf([line({ type: "thread.started", thread_id: "t-fake" }), { hang: true }], "exec");
    expect([error?.code, error?.op]).toEqual([ErrCode.Timeout, "stall"]);
  });

  it("app-server: a 5 s wait on the host's approval does not count as a stall", async () => {
    const driver = codex({
      command: fakeCliPath,
      killGraceMs: 300,
      stallTimeoutMs: 2_000,
      env: fakeCliEnv([
        ...handshake,
        line({
          id: "srv-1",
          method: "item/commandExecution/requestApproval",
          params: { threadId: "t-fake", turnId: "u-fake", itemId: "i-1", command: "ls", cwd: "/w" },
        }),
        { awaitStdinLine: true },
        line({
          method: "turn/completed",
          params: { threadId: "t-fake", turn: { id: "u-fake", status: "completed", items: [], error: null } },
        }),
        { awaitStdinLine: true },
      ]),
    });
    try {
      const run = await runDriver(driver, { prompt: "hi" }, { onApproval: async () => (await sleep(5_000), { outcome: "approve" }) });
      expect(run.error).toBeUndefined();
      expect(run.response?.failure).toBeUndefined();
      expect(run.recording.asks.map((ask) => ask.toolName)).toEqual(["shell"]);
    } finally {
      await driver.close();
    }
  });
});
