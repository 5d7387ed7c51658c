import { afterEach, describe, expect, it } from "vitest";
import { Agent, type AgentEvent } from "adaptor";
import { executeAskDriver } from "./hostile-agent/hostile.js";

// An ACP agent that sends no tool name, only a title holding the command (Nanocoder 1.30.0's
// `execute_bash: <command>`): a rule without toolName still applies to its shell call.

let agent: Agent | undefined;
afterEach(async () => {
  await agent?.close();
  agent = undefined;
});

/** An agent whose prompt asks about one execute call named only by its title `execute_bash: <command>`. */
function titleOnlyAgent(command: string): Agent {
  return new Agent(executeAskDriver({ toolCallId: "c1", title: `execute_bash: ${command}`, kind: "execute", rawInput: { command } }));
}

describe("approval rules without toolName on an ACP agent that names tools by title (hostile agent)", () => {
  it("a deny rule by commandPrefix alone denies the title-named shell call without asking the handler", async () => {
    agent = titleOnlyAgent("rm -f /w/keep.txt");
    const asked: string[] = [];
    const stream = agent.stream("go", {
      policy: { approvals: { permission: "ask", rules: [{ commandPrefix: "rm", outcome: "deny", reason: "no rm" }] } },
      onApproval: (r) => (asked.push(r.toolName ?? ""), r.approve()),
    });
    const events: AgentEvent[] = [];
    for await (const event of stream) events.push(event);
    await stream.result();
    expect(asked).toEqual([]);
    const resolved = events.find((e) => e.type === "notice" && e.kind === "approval.resolved");
    expect(resolved).toMatchObject({ data: { outcome: "denied", rule: { commandPrefix: "rm" }, scope: "run" } });
  });

  it("a command rule without toolName is accepted before launch (no InvalidPolicyError) and leaves another command asked", async () => {
    agent = titleOnlyAgent("ls");
    const asked: string[] = [];
    const result = await agent.run("go", {
      policy: { approvals: { permission: "ask", rules: [{ commandPrefix: "rm", outcome: "deny" }] } },
      onApproval: (r) => (asked.push(r.toolName ?? ""), r.approve()),
    });
    expect(asked).toEqual(["execute_bash: ls"]);
    expect(result.text).toBe("done");
  });
});
