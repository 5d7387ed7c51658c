// claude-agent-acp runs CronCreate (a durable one writes .claude/scheduled_tasks.json) and
// EnterWorktree (a git branch and worktree under .claude/worktrees/) without a permission ask in
// every mode, read-only `dontAsk` included: under a policy that confines it they are not offered
// to the model, and nothing is written (real adapter, pinned 0.23.1).
import { existsSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { claudeTestEnv, startAnthropicServer, type AnthropicServer, type ClaudeTestEnv } from "@adaptor/testkit";
import { Agent, type Policy } from "adaptor";
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

const CRON = { cron: "*/5 * * * *", prompt: "say hi", recurring: true, durable: true };

describe("claude-agent-acp's unasked writing tools under a confining policy (real adapter)", () => {
  for (const policy of [{ sandbox: "read_only" }, { approvals: { permission: "ask" } }] satisfies Policy[])
    it(`are not offered under ${JSON.stringify(policy)}: a CronCreate and an EnterWorktree call write nothing and the policy holds`, async () => {
      const offered: string[][] = [];
      server = await startAnthropicServer({
        rules: [
          {
            name: "cron-then-worktree",
            when: () => true,
            reply: (view) => {
              if (view.toolNames.length > 0) offered.push([...view.toolNames]);
              const { messages } = view.raw as { messages: { content: unknown }[] };
              const results = messages.filter(
                (m) => Array.isArray(m.content) && (m.content as { type?: string }[]).some((c) => c.type === "tool_result"),
              ).length;
              if (results === 0) return { toolUse: { name: "CronCreate", input: CRON } };
              if (results === 1) return { toolUse: { name: "EnterWorktree", input: { name: "wt1" } } };
              return { text: "done" };
            },
          },
        ],
      });
      env = await claudeTestEnv({ server });
      agent = new Agent(claudeAgentAcp({ cwd: env.workDir, env: env.env, inheritEnv: false }));
      const asked: string[] = [];
      const result = await agent.run("go now", { policy, onApproval: (r) => (asked.push(r.toolName ?? ""), r.deny("no")) });
      expect(result.status).toBe("completed");
      expect(offered.length).toBeGreaterThan(0);
      for (const names of offered) {
        expect(names).toContain("Bash");
        expect(names).not.toContain("CronCreate");
        expect(names).not.toContain("EnterWorktree");
      }
      expect(existsSync(join(env.workDir, ".claude", "scheduled_tasks.json"))).toBe(false);
      expect(existsSync(join(env.workDir, ".claude", "worktrees"))).toBe(false);
      expect(asked).toEqual([]);
      expect(result.enforcement.every((entry) => entry.enforced)).toBe(true);
    });
});
