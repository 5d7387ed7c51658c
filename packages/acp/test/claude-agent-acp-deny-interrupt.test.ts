// deny(reason, { interrupt: true }) on an ACP agent that cannot interrupt a turn (claudeAgentAcp(),
// whose interrupt is off): refused when the host answers, with FeatureUnsupportedError, the request
// left pending for another answer (real adapter, pinned 0.23.1).
import { existsSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { FeatureUnsupportedError, findError, type ApprovalRequest } from "adaptor";
import { claudeAgentAcp } from "../src/index.js";
import { claudeAdapterEachTest, toolResultCount } from "./support.js";

const start = claudeAdapterEachTest();

describe("claude-agent-acp deny with interrupt (real adapter)", () => {
  it("is refused at answer time with FeatureUnsupportedError; a plain deny then decides the request", async () => {
    let dir = "";
    const { env, agent } = await start(
      [
        {
          name: "one-command",
          when: () => true,
          reply: (view) =>
            toolResultCount(view) === 0
              ? { toolUse: { name: "Bash", input: { command: `touch ${dir}/never`, description: "touch" } } }
              : { text: "stopped" },
        },
      ],
      (env) => claudeAgentAcp({ cwd: env.workDir, env: env.env, inheritEnv: false }),
    );
    dir = env.workDir;
    const refusals: unknown[] = [];
    const statuses: string[] = [];
    const result = await agent.run("go now", {
      policy: { approvals: { permission: "ask" } },
      onApproval: (request: ApprovalRequest) => {
        try {
          request.deny("stop", { interrupt: true });
        } catch (error) {
          refusals.push(error);
        }
        statuses.push(request.status);
        request.deny("stop");
      },
    });
    expect(refusals).toHaveLength(1);
    expect(findError(refusals[0], FeatureUnsupportedError)).toMatchObject({ driver: "claude-agent-acp", feature: "interrupt" });
    expect(statuses).toEqual(["pending"]);
    expect(result.status).toBe("completed");
    expect(existsSync(join(env.workDir, "never"))).toBe(false);
  });
});
