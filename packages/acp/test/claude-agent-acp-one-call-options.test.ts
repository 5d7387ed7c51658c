// Under a policy that has every acting call asked, claude-agent-acp's "Always Allow" option (kind
// allow_always: later calls of the tool run unasked, and an allow rule may be written into the
// workspace) is not offered, and an answer naming it is refused before the agent hears of it
// (real adapter, pinned 0.23.1).
import { existsSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { InvalidOptionError } from "@adaptor/errors";
import type { ScriptRule } from "@adaptor/testkit";
import type { ApprovalRequest } from "adaptor";
import { claudeAgentAcp } from "../src/index.js";
import { claudeAdapterEachTest, toolResultCount } from "./support.js";

const start = claudeAdapterEachTest();

/** A model that touches `first`, then `second` in the directory `dir()`, one Bash call each, then answers. */
function twoCommands(dir: () => string): ScriptRule[] {
  return [
    {
      name: "two-commands",
      when: () => true,
      reply: (view) => {
        const results = toolResultCount(view);
        if (results === 0) return { toolUse: { name: "Bash", input: { command: `touch ${dir()}/first`, description: "first" } } };
        if (results === 1) return { toolUse: { name: "Bash", input: { command: `touch ${dir()}/second`, description: "second" } } };
        return { text: "both done" };
      },
    },
  ];
}

describe("claude-agent-acp asks under approvals.permission ask (real adapter)", () => {
  it("offer no allow_always choice, refuse answer('allow_always') with InvalidOptionError, and ask about every later call", async () => {
    let dir = "";
    const { env, agent } = await start(
      twoCommands(() => dir),
      (env) => claudeAgentAcp({ cwd: env.workDir, env: env.env, inheritEnv: false }),
    );
    dir = env.workDir;
    const choices: string[][] = [];
    const refusals: unknown[] = [];
    const result = await agent.run("go now", {
      policy: { approvals: { permission: "ask" } },
      onApproval: (request: ApprovalRequest) => {
        choices.push((request.choices ?? []).map((choice) => choice.key));
        try {
          request.answer("allow_always");
        } catch (error) {
          refusals.push(error);
          request.approve();
        }
      },
    });
    expect(result.status).toBe("completed");
    expect(choices).toEqual([
      ["allow", "reject"],
      ["allow", "reject"],
    ]);
    expect(refusals).toHaveLength(2);
    expect(refusals[0]).toBeInstanceOf(InvalidOptionError);
    expect(existsSync(join(env.workDir, "first"))).toBe(true);
    expect(existsSync(join(env.workDir, "second"))).toBe(true);
    expect(existsSync(join(env.workDir, ".claude", "settings.local.json"))).toBe(false);
    expect(result.enforcement).toContainEqual(expect.objectContaining({ field: "approvals.permission", value: "ask", enforced: true }));
  });
});
