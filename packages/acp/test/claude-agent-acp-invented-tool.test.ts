// A model that calls a tool claude-agent-acp does not have (a name it invented): the adapter reports
// the call and answers it itself ("No such tool available"), nothing runs. Under a policy enforced
// by asks that is no unasked call (real adapter, pinned 0.23.1).
import { describe, expect, it } from "vitest";
import type { AgentEvent, Policy } from "adaptor";
import { claudeAgentAcp } from "../src/index.js";
import { claudeAdapterEachTest, toolResultCount } from "./support.js";

const start = claudeAdapterEachTest();

describe("claude-agent-acp: a call of a tool the agent does not have (real adapter)", () => {
  for (const policy of [{ approvals: { permission: "ask" } }, { approvals: { permission: "auto_deny" } }] satisfies Policy[])
    it(`is no policy violation under ${JSON.stringify(policy)}: the run completes, the call failed as unknown`, async () => {
      const { agent } = await start(
        [
          {
            name: "invented-tool",
            when: () => true,
            reply: (view) =>
              toolResultCount(view) > 0
                ? { text: "no such tool, done" }
                : { toolUse: { name: "FrobnicateWidget", input: { widget: "w1" } } },
          },
        ],
        (env) => claudeAgentAcp({ cwd: env.workDir, env: env.env, inheritEnv: false }),
      );
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
