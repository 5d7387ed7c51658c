// claude-agent-acp's read-only mode (`dontAsk`, the preset's `sandboxModes.read_only`) runs read-only
// shell commands without asking and refuses the rest: a preset's declared mode is the bound, so those
// unasked calls are not taken for evidence that the mode did not hold (real adapter, pinned 0.23.1).
import { existsSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { claudeAgentAcp } from "../src/index.js";
import { claudeAdapterEachTest } from "./support.js";

const start = claudeAdapterEachTest();

describe("claude-agent-acp under read_only (real adapter)", () => {
  it("a read-only command runs unasked and the run completes with sandbox enforced; a writing command is refused and nothing is written", async () => {
    const { env, agent } = await start([], (env) => claudeAgentAcp({ cwd: env.workDir, env: env.env, inheritEnv: false }));
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
