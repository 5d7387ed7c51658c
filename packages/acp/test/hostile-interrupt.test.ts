import { afterEach, describe, expect, it } from "vitest";
import { MemoryThreadStore } from "@adaptor/threadstore";
import { Agent, type AgentEvent } from "adaptor";
import { alive } from "./support.js";
import { hostileAcp, text, type HostileScenario } from "./hostile-agent/hostile.js";

// stream.interrupt() against agents that do not end the turn at the first session/cancel (fault
// injection): one ignores every cancel, one drops the cancel that came before it took the prompt in.

let agent: Agent | undefined;
afterEach(async () => {
  await agent?.close();
  agent = undefined;
});

/** Runs one thread turn, interrupts it at its first text, and returns its events and verdict. */
async function interruptAtFirstText(scenario: HostileScenario, killGraceMs: number) {
  agent = new Agent(hostileAcp(scenario, { killGraceMs }), { threadStore: new MemoryThreadStore() });
  const stream = agent.thread("t").stream("go");
  const events: AgentEvent[] = [];
  let interrupting: Promise<boolean> | undefined;
  for await (const event of stream) {
    events.push(event);
    if (event.type === "text-delta") interrupting ??= stream.interrupt();
  }
  const result = await stream.result();
  return { events, result, taken: await interrupting };
}

const pidOf = (events: readonly AgentEvent[]): number | undefined =>
  events.flatMap((e) => (e.type === "process" && e.kind === "spawn" ? [e.pid] : []))[0];

describe("stream.interrupt() on an agent that does not end the turn at session/cancel", () => {
  it("an agent that ignores session/cancel: the turn ends as interrupted killGraceMs after it, its process ended", async () => {
    const { events, result, taken } = await interruptAtFirstText({ "session/prompt": [[text("working"), { hang: true }]] }, 1_000);
    expect(taken).toBe(true);
    expect(result.status).toBe("interrupted");
    expect(result.text).toBe("working");
    expect(result.sessionId).toBe("hostile-session");
    expect(events.at(-1)).toMatchObject({ type: "run-finished", ok: true, interrupted: true });
    expect(events).toContainEqual(
      expect.objectContaining({
        type: "notice",
        kind: "lifecycle",
        message: "Hostile agent did not end the turn within 1000 ms of session/cancel (killGraceMs): its process is ended",
      }),
    );
    const pid = pidOf(events);
    expect(pid).toBeGreaterThan(0);
    expect(alive(pid!)).toBe(false);
  });

  it("an agent that drops the first cancel and writes on: the cancel is sent once more and the turn ends interrupted on its own answer", async () => {
    // It writes once more after the first cancel, then waits for a second one before it answers.
    const scenario: HostileScenario = {
      "session/prompt": [
        [text("working"), { awaitCancel: 1 }, text(" still"), { awaitCancel: 2 }, { respond: { stopReason: "cancelled" } }],
      ],
    };
    const { events, result } = await interruptAtFirstText(scenario, 30_000);
    expect(result.status).toBe("interrupted");
    expect(result.text).toBe("working still");
    expect(events.filter((e) => e.type === "notice" && /did not end the turn/.test(e.message ?? ""))).toEqual([]);
    // The agent ended the turn itself: its process is parked for the thread's next turn.
    const pid = pidOf(events);
    expect(alive(pid!)).toBe(true);
  });
});
