import { describe, expect, it } from "vitest";
import { fakeCliEnv, fakeCliPath, type FakeCliStep } from "@adaptor/testkit/fake-cli";
import { Agent, DriverError, ErrCode, RunError, findError } from "adaptor";
import { claude } from "@adaptor/claude";
import { closedAfterEach } from "../support/closed-after-each.js";
import { interruptOutcome } from "../support/turn-events.js";

// Fault injection: a fake CLI plays claude for a turn whose interrupt it never answers. interrupt()
// resolves true only for an interrupt the CLI took; a run ended some other way before the CLI
// answered (the stall watchdog, the CLI exiting) gives false.

const init = JSON.stringify({ type: "system", subtype: "init", session_id: "s-1", model: "fake-model" }) + "\n";
/** The CLI reads the SDK's `initialize` request and the prompt, then starts the turn. */
const turnOpened: FakeCliStep[] = [{ awaitStdinLine: true }, { awaitStdinLine: true }, { write: init }];
const open = closedAfterEach();

/** Runs the fake's turn, interrupting it at its first event (the control waits for the prompt to go out). */
function interruptUnanswered(steps: FakeCliStep[], stallTimeoutMs: number) {
  const agent = new Agent(claude({ command: fakeCliPath, env: fakeCliEnv(steps), killGraceMs: 300, stallTimeoutMs }));
  open.push(agent);
  return interruptOutcome(agent.stream("go"), () => true);
}

describe("claude interrupt() the CLI never answers (fake CLI)", { timeout: 30_000 }, () => {
  it("resolves false when the stall watchdog ends the run first", async () => {
    const { taken, error } = await interruptUnanswered([...turnOpened, { hang: true }], 2_000);
    expect(taken).toBe(false);
    expect(findError(error, DriverError)).toMatchObject({ code: ErrCode.Timeout, op: "stall" });
  });

  it("resolves false when the CLI exits on the interrupt without answering it", async () => {
    const { taken, error } = await interruptUnanswered([...turnOpened, { awaitStdinLine: true }, { exit: 3 }], 60_000);
    expect(taken).toBe(false);
    expect(error).toBeInstanceOf(RunError);
    expect(error).toMatchObject({ reason: "agent_error", details: { exitCode: 3 } });
  });
});
