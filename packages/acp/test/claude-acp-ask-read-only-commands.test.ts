// In its `default` mode Claude Code runs read-only shell commands (`ls`, `echo`) without asking;
// under the `ask` permission mode the Claude Code ACP adapters' sessions get ask rules, so such a
// command reaches the host before it runs: denied it does not run, approved it runs (real adapters,
// claude-agent-acp 0.23.1 and claude-code-acp 0.16.2).
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { claudeTestEnv, startAnthropicServer, type AnthropicServer, type ClaudeTestEnv } from "@adaptor/testkit";
import { Agent, HumanDecisionModeUnsupportedError, InvalidDriverConfigError, type ApprovalRequest, type Result } from "adaptor";
import { claudeAgentAcp, type AcpDriver } from "../src/index.js";
import { claudeAcp } from "./support.js";

let server: AnthropicServer | undefined;
let env: ClaudeTestEnv | undefined;
let agent: Agent | undefined;
afterEach(async () => {
  await agent?.close();
  await server?.close();
  await env?.cleanup();
  agent = server = env = undefined;
});

const adapters: Record<string, (env: ClaudeTestEnv) => AcpDriver> = {
  "claude-agent-acp": (e) => claudeAgentAcp({ cwd: e.workDir, env: e.env, inheritEnv: false }),
  "claude-code-acp": (e) => claudeAcp(e, { askMode: "default" }),
};

const bashResult = (result: Result) => result.transcript().find((item) => item.kind === "tool-result" && item.toolName === "Bash");

describe("a read-only shell command under approvals.permission ask on a Claude Code ACP adapter (real adapters)", () => {
  for (const [name, driver] of Object.entries(adapters))
    it(`${name}: \`ls\` is asked about; denied it does not run, approved it runs and lists the working directory`, async () => {
      server = await startAnthropicServer({ rules: [] });
      env = await claudeTestEnv({ server });
      writeFileSync(join(env.workDir, "marker-file.txt"), "x");
      agent = new Agent(driver(env));
      const policy = { approvals: { permission: "ask" } } as const;
      const asked: string[] = [];
      const denied = await agent.run(`SHELL_CMD ls ${env.workDir}`, {
        policy,
        onApproval: (r) => (asked.push(r.toolName ?? ""), r.deny("not now")),
      });
      expect(denied.status).toBe("completed");
      expect(asked).toEqual(["Bash"]);
      expect(bashResult(denied)).toMatchObject({ isError: true });
      expect(JSON.stringify(bashResult(denied))).not.toContain("marker-file.txt");
      expect(denied.enforcement).toContainEqual(expect.objectContaining({ field: "approvals.permission", value: "ask", enforced: true }));

      const approved = await agent.run(`SHELL_CMD ls ${env.workDir}`, {
        policy,
        onApproval: (r) => (asked.push(r.toolName ?? ""), r.approve()),
      });
      expect(approved.status).toBe("completed");
      expect(asked).toEqual(["Bash", "Bash"]);
      expect(bashResult(approved)).toMatchObject({ isError: false });
      expect(JSON.stringify(bashResult(approved))).toContain("marker-file.txt");
      expect(approved.enforcement).toContainEqual(expect.objectContaining({ field: "approvals.permission", value: "ask", enforced: true }));
    });

  it("a host's Claude Code settings file path in sessionMeta (the ask rules cannot be merged) is refused before any tool runs", async () => {
    server = await startAnthropicServer({ rules: [] });
    env = await claudeTestEnv({ server });
    const sessionMeta = { claudeCode: { options: { settings: join(env.workDir, "settings.json") } } };
    agent = new Agent(claudeAcp(env, { askMode: "default", sessionMeta }));
    const asked: string[] = [];
    const run = agent.run(`SHELL_CMD touch ${join(env.workDir, "made.txt")}`, {
      policy: { approvals: { permission: "ask" } },
      onApproval: (r) => (asked.push(r.toolName ?? ""), r.approve()),
    });
    await expect(run).rejects.toBeInstanceOf(HumanDecisionModeUnsupportedError);
    expect(asked).toEqual([]);
    expect(server.requests.filter((r) => r.path === "/v1/messages")).toEqual([]);
  });

  it("claudeAgentAcp() takes no sessionMeta: a settings file path cannot reach its session, refused before launch (validateConfig)", () => {
    const sessionMeta = { claudeCode: { options: { settings: "/somewhere/settings.json" } } };
    const driver = claudeAgentAcp({ sessionMeta } as never);
    expect(() => driver.validateConfig()).toThrow(InvalidDriverConfigError);
    expect(() => driver.validateConfig()).toThrow("sessionMeta is not a known option");
  });

  it("claude-agent-acp: the user's own allow rules (in its config dir) do not answer for the host: `ls` and `touch` are asked, denied neither runs", async () => {
    server = await startAnthropicServer({ rules: [] });
    env = await claudeTestEnv({ server });
    writeFileSync(join(env.workDir, "marker-file.txt"), "x");
    const allow = ["Bash", "Bash(ls:*)", "Bash(touch:*)"];
    writeFileSync(join(env.configDir, "settings.json"), JSON.stringify({ permissions: { allow } }));
    agent = new Agent(adapters["claude-agent-acp"]!(env));
    const asked: string[] = [];
    const options = {
      policy: { approvals: { permission: "ask" } },
      onApproval: (r: ApprovalRequest) => (asked.push(r.toolName ?? ""), r.deny("no")),
    } as const;
    const listed = await agent.run(`SHELL_CMD ls ${env.workDir}`, options);
    expect(JSON.stringify(bashResult(listed))).not.toContain("marker-file.txt");
    const target = join(env.workDir, "made.txt");
    await agent.run(`SHELL_CMD touch ${target}`, options);
    expect(asked).toEqual(["Bash", "Bash"]);
    expect(existsSync(target)).toBe(false);
  });
});
