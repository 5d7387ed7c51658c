// claude-agent-acp's read-only mode (`dontAsk`, the preset's `sandboxModes.read_only`) runs read-only
// shell commands without asking and refuses the rest: a preset's declared mode is the bound, so those
// unasked calls are not taken for evidence that the mode did not hold (real adapter, pinned 0.23.1).
import { existsSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { claudeTestEnv, startAnthropicServer, type AnthropicServer, type ClaudeTestEnv } from "@adaptor/testkit";
import { Agent } from "adaptor";
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

describe("claude-agent-acp under read_only (real adapter)", () => {
  it("a read-only command runs unasked and the run completes with sandbox enforced; a writing command is refused and nothing is written", async () => {
    server = await startAnthropicServer({ rules: [] });
    env = await claudeTestEnv({ server });
    agent = new Agent(claudeAgentAcp({ cwd: env.workDir, env: env.env, inheritEnv: false }));
    const asked: string[] = [];
    const listed = await agent.run("SHELL_CMD pwd", {
      policy: { sandbox: "read_only" },
      onApproval: (r) => (asked.push(r.toolName ?? ""), r.deny("no")),
    });
    expect(listed.transcript()).toContainEqual(expect.objectContaining({ kind: "tool-result", isError: false }));
    expect(listed.enforcement).toEqual([expect.objectContaining({ field: "sandbox", value: "read_only", enforced: true })]);
    const target = join(env.workDir, "written.txt");
    const written = await agent.run(`SHELL_CMD touch ${target}`, {
      policy: { sandbox: "read_only" },
      onApproval: (r) => (asked.push(r.toolName ?? ""), r.deny("no")),
    });
    expect(existsSync(target)).toBe(false);
    expect(written.enforcement).toEqual([expect.objectContaining({ field: "sandbox", value: "read_only", enforced: true })]);
    expect(asked).toEqual([]);
  });
});
