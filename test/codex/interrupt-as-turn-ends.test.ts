import { afterEach, describe, expect, it } from "vitest";
import { fakeCliEnv, fakeCliPath, type FakeCliStep } from "@adaptor/testkit/fake-cli";
import { Agent, type AgentEvent } from "adaptor";
import { codex } from "@adaptor/codex";
import { FAKE_APP_SERVER_HANDSHAKE, fakeLine } from "./support.js";

// Fault injection: the fake CLI plays codex app-server for a turn that completes on its own just
// as the host interrupts it. interrupt() resolves true only for an interrupt codex took (the turn
// ends interrupted), false when the turn had completed: the host must not show "stopped".

const line = fakeLine;
const turnOpened: FakeCliStep[] = [
  ...FAKE_APP_SERVER_HANDSHAKE,
  line({ method: "turn/started", params: { threadId: "t-fake", turn: { id: "u-fake", status: "inProgress", items: [], error: null } } }),
  line({ method: "item/agentMessage/delta", params: { threadId: "t-fake", turnId: "u-fake", itemId: "m-1", delta: "done" } }),
];
const itemDone = line({
  method: "item/completed",
  params: { threadId: "t-fake", turnId: "u-fake", item: { type: "agentMessage", id: "m-1", text: "done", phase: null } },
});
const turnCompleted = line({
  method: "turn/completed",
  params: { threadId: "t-fake", turn: { id: "u-fake", status: "completed", items: [], error: null } },
});

let agent: Agent | undefined;
afterEach(async () => {
  await agent?.close();
  agent = undefined;
});

/** Runs the fake's turn, calling interrupt() at the first event `when` picks; returns what it resolved and the status. */
async function interruptAt(steps: FakeCliStep[], when: (event: AgentEvent) => boolean): Promise<{ taken: boolean; status: string }> {
  agent = new Agent(codex({ command: fakeCliPath, env: fakeCliEnv(steps), killGraceMs: 2_000, replyTimeoutMs: 10_000 }));
  const stream = agent.stream("go");
  let taken: Promise<boolean> | undefined;
  for await (const event of stream) if (!taken && when(event)) taken = stream.interrupt();
  return { taken: await taken!, status: (await stream.result()).status };
}

describe("codex interrupt() as the turn completes on its own (fake CLI)", { timeout: 30_000 }, () => {
  it("resolves false when the turn had completed (codex still running, its stdin closed)", async () => {
    // codex keeps running after the turn: the run waits the kill grace, its controls still attached.
    const result = await interruptAt(
      [...turnOpened, itemDone, turnCompleted, { hang: true }],
      (event) => event.type === "notice" && event.kind === "lifecycle" && event.message === "turn completed",
    );
    expect(result).toEqual({ taken: false, status: "completed" });
  });

  it("resolves false when codex answered the interrupt but the turn completed anyway", async () => {
    const result = await interruptAt(
      [
        ...turnOpened,
        { awaitStdinLine: true }, // turn/interrupt: the turn completes before codex answers it
        itemDone,
        turnCompleted,
        line({ id: 4, result: {} }),
        { awaitStdinEnd: true },
      ],
      (event) => event.type === "text-delta",
    );
    expect(result).toEqual({ taken: false, status: "completed" });
  });
});
