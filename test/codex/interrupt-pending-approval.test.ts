import { afterEach, describe, expect, it } from "vitest";
import { whenPromptSays } from "@adaptor/testkit";
import { MemoryThreadStore } from "@adaptor/threadstore";
import { Agent, type AgentEvent } from "adaptor";
import { codex } from "@adaptor/codex";
import { codexHarness, type CodexHarness } from "./support.js";

// `stream.interrupt()` while an approval waits (real binary, app-server): the approval expires
// before the turn ends, so codex is told the command was declined and the Result counts it as a
// refused call, as on Claude.

let h: CodexHarness | undefined;
let agent: Agent | undefined;
afterEach(async () => {
  await agent?.close();
  await h?.close();
  h = agent = undefined;
});

describe("interrupting a codex turn while an approval waits (real binary)", { timeout: 120_000 }, () => {
  it("the approval expires before the turn ends, the command's result says it was declined, and it is a permission denial", async () => {
    h = await codexHarness({
      rules: [
        { when: whenPromptSays("long job"), reply: { functionCall: { name: "exec_command", arguments: { cmd: "touch never.txt" } } } },
      ],
    });
    agent = new Agent(codex({ cwd: h.env.workDir, env: h.env.env, inheritEnv: false, killGraceMs: 1000 }), {
      threadStore: new MemoryThreadStore(),
    });
    const stream = agent.thread("t").stream("long job", { policy: { approvals: { permission: "ask" } } });
    const events: AgentEvent[] = [];
    let taken: boolean | undefined;
    for await (const event of stream) {
      events.push(event);
      if (event.type === "approval-request") taken = await stream.interrupt();
    }
    const result = await stream.result();
    expect(taken).toBe(true);
    expect(result.status).toBe("interrupted");
    const call = events.find((event) => event.type === "tool-call" && event.phase === "start");
    const id = call?.type === "tool-call" ? call.id : "?";
    const at = (found: (event: AgentEvent) => boolean): number => events.findIndex(found);
    const resolved = at((event) => event.type === "notice" && event.kind === "approval.resolved");
    const toolResult = at((event) => event.type === "tool-result" && event.id === id);
    const turnEnd = at((event) => event.type === "notice" && event.message === "turn completed");
    expect(events[resolved]).toMatchObject({ data: { outcome: "expired" } });
    expect(events[toolResult]).toMatchObject({ output: "declined", isError: true });
    expect([resolved < toolResult, toolResult < turnEnd]).toEqual([true, true]);
    expect(result.permissionDenials?.map((denial) => [denial.toolName, denial.toolCallId])).toEqual([["shell", id]]);
  });
});
