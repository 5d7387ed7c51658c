// claude-agent-acp runs CronCreate (a durable one writes .claude/scheduled_tasks.json) and
// EnterWorktree (a git branch and worktree under .claude/worktrees/) without a permission ask in
// every mode, read-only `dontAsk` included: under a policy that confines it they are not offered
// to the model, and nothing is written (real adapter, pinned 0.23.1).
import { existsSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { RequestView } from "@adaptor/testkit";
import type { Policy } from "adaptor";
import { claudeAgentAcp } from "../src/index.js";
import { claudeAdapterEachTest, toolResultCount } from "./support.js";

const start = claudeAdapterEachTest();

const CRON = { cron: "*/5 * * * *", prompt: "say hi", recurring: true, durable: true };

describe("claude-agent-acp's unasked writing tools under a confining policy (real adapter)", () => {
  for (const policy of [{ sandbox: "read_only" }, { approvals: { permission: "ask" } }] satisfies Policy[])
    it(`are not offered under ${JSON.stringify(policy)}: a CronCreate and an EnterWorktree call write nothing and the policy holds`, async () => {
      const offered: string[][] = [];
      const rules = [
        {
          name: "cron-then-worktree",
          when: () => true,
          reply: (view: RequestView) => {
            if (view.toolNames.length > 0) offered.push([...view.toolNames]);
            const results = toolResultCount(view);
            if (results === 0) return { toolUse: { name: "CronCreate", input: CRON } };
            if (results === 1) return { toolUse: { name: "EnterWorktree", input: { name: "wt1" } } };
            return { text: "done" };
          },
        },
      ];
      const { env, agent } = await start(rules, (env) => claudeAgentAcp({ cwd: env.workDir, env: env.env, inheritEnv: false }));
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
