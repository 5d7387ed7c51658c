// A model that calls a tool claude-agent-acp does not have (a name it invented): the adapter reports
// the call and answers it itself ("No such tool available"), nothing runs. Under a policy enforced
// by asks that is no unasked call (real adapter, pinned 0.23.1).
import { afterEach, describe, expect, it } from "vitest";
import { claudeTestEnv, startAnthropicServer, type AnthropicServer, type ClaudeTestEnv } from "@adaptor/testkit";
import { Agent, type AgentEvent, type Policy } from "adaptor";
import { claudeAgentAcp } from "../src/index.js";

let server: AnthropicServer | undefined;
let env: ClaudeTestEnv | undefined;
let agent: Agent | undefined;
afterEach(async () => {
  await agent?.close();
  await server?.close();
  await env?.cleanup();
  agent = server = env = undefined;
});

describe("claude-agent-acp: a call of a tool the agent does not have (real adapter)", () => {
  for (const policy of [{ approvals: { permission: "ask" } }, { approvals: { permission: "auto_deny" } }] satisfies Policy[])
    it(`is no policy violation under ${JSON.stringify(policy)}: the run completes, the call failed as unknown`, async () => {
      server = await startAnthropicServer({
        rules: [
          {
            name: "invented-tool",
            when: () => true,
            reply: (view) => {
              const { messages } = view.raw as { messages: { content: unknown }[] };
              const last = messages.at(-1)!;
              const answered = Array.isArray(last.content) && (last.content as { type?: string }[]).some((c) => c.type === "tool_result");
              return answered ? { text: "no such tool, done" } : { toolUse: { name: "FrobnicateWidget", input: { widget: "w1" } } };
            },
          },
        ],
      });
      env = await claudeTestEnv({ server });
      agent = new Agent(claudeAgentAcp({ cwd: env.workDir, env: env.env, inheritEnv: false }));
      const asked: string[] = [];
      const stream = agent.stream("go now", { policy, onApproval: (r) => (asked.push(r.toolName ?? ""), r.deny("no")) });
      const events: AgentEvent[] = [];
      for await (const event of stream) events.push(event);
      const result = await stream.result();
      expect(result.status).toBe("completed");
      expect(result.text).toBe("no such tool, done");
      expect(asked).toEqual([]);
      const ended = events.find((e) => e.type === "tool-result");
      expect(ended).toMatchObject({ name: "FrobnicateWidget", isError: true });
      expect(ended?.type === "tool-result" ? ended.output : "").toContain("No such tool available: FrobnicateWidget");
      expect(result.enforcement.every((entry) => entry.enforced)).toBe(true);
    });
});
