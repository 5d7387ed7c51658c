import { describe, expect, it } from "vitest";
import { fakeCliEnv, fakeCliPath, type FakeCliStep } from "@adaptor/testkit/fake-cli";
import { Agent, DriverError, ErrCode, RunError, findError } from "adaptor";
import { codex } from "@adaptor/codex";
import { closedAfterEach } from "../support/closed-after-each.js";
import { interruptOutcome } from "../support/turn-events.js";
import { FAKE_APP_SERVER_HANDSHAKE, fakeLine } from "./support.js";

// Fault injection: the fake CLI plays codex app-server for a turn whose `turn/interrupt` it never
// answers. A run ended before codex answered (the stall watchdog, codex exiting) makes
// interrupt() resolve false; it never rejects with the closed connection's error.

const turnOpened: FakeCliStep[] = [
  ...FAKE_APP_SERVER_HANDSHAKE,
  fakeLine({
    method: "turn/started",
    params: { threadId: "t-fake", turn: { id: "u-fake", status: "inProgress", items: [], error: null } },
  }),
  fakeLine({ method: "item/agentMessage/delta", params: { threadId: "t-fake", turnId: "u-fake", itemId: "m-1", delta: "partial" } }),
];
const open = closedAfterEach();

/** Runs the fake's turn, interrupting it at its first text delta. */
function interruptUnanswered(steps: FakeCliStep[], stallTimeoutMs: number) {
  const agent = new Agent(codex({ command: fakeCliPath, env: fakeCliEnv(steps), killGraceMs: 300, stallTimeoutMs }));
  open.push(agent);
  return interruptOutcome(agent.stream("go"), (event) => event.type === "text-delta");
}

describe("codex interrupt() codex never answers (fake CLI)", { timeout: 30_000 }, () => {
  it("resolves false (no rejection) when the stall watchdog ends the run first", async () => {
    const { taken, error } = await interruptUnanswered([...turnOpened, { hang: true }], 2_000);
    expect(taken).toBe(false);
    expect(findError(error, DriverError)).toMatchObject({ code: ErrCode.Timeout, op: "stall" });
  });

  it("resolves false (no rejection) when codex exits on turn/interrupt without answering it", async () => {
    const { taken, error } = await interruptUnanswered([...turnOpened, { awaitStdinLine: true }, { exit: 3 }], 60_000);
    expect(taken).toBe(false);
    expect(error).toBeInstanceOf(RunError);
    expect(error).toMatchObject({ reason: "agent_error", details: { exitCode: 3 } });
  });
});
