import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { expect, it } from "vitest";
import { MemoryThreadStore } from "@adaptor/threadstore";
import { claudeTestEnv, startAnthropicServer, whenToolResult, whenUserSays, type ScriptRule } from "@adaptor/testkit";
import { Agent } from "adaptor";
import { claude } from "@adaptor/claude";
import { closedAfterEach } from "../support/closed-after-each.js";

// A thread whose turns are served by two scripted servers (a host restart, another test's server):
// each server makes its own tool_use ids, and the second turn's call must still run.

const open = closedAfterEach();

function writeRules(dir: string): ScriptRule[] {
  return [
    { when: whenUserSays("write one"), reply: { toolUse: { name: "Write", input: { file_path: join(dir, "one.txt"), content: "one" } } } },
    { when: whenUserSays("write two"), reply: { toolUse: { name: "Write", input: { file_path: join(dir, "two.txt"), content: "two" } } } },
    { when: whenToolResult("Write"), reply: (view) => ({ text: `Write ${view.lastToolResult?.isError ? "error" : "ok"}` }) },
  ];
}

it("a thread continued on a second scripted server: the second turn's tool call runs", async () => {
  // Each agent below names its server in ANTHROPIC_BASE_URL; the environment's own is unused.
  const env = await claudeTestEnv({ baseUrl: "http://127.0.0.1:9" });
  open.push({ close: () => env.cleanup() });
  const first = await startAnthropicServer({ rules: writeRules(env.workDir) });
  open.push(first);
  const second = await startAnthropicServer({ rules: writeRules(env.workDir) });
  open.push(second);
  const store = new MemoryThreadStore();
  const agentOn = (url: string): Agent => {
    const driver = claude({ env: { ...env.env, ANTHROPIC_BASE_URL: url }, inheritEnv: false, model: "claude-sonnet-4-5" });
    const agent = new Agent(driver, { threadStore: store, cwd: env.workDir, policy: { approvals: { permission: "auto_approve" } } });
    open.push(agent);
    return agent;
  };

  const one = await agentOn(first.url).thread("t").run("write one");
  expect(one.text).toBe("Write ok");
  const two = await agentOn(second.url).thread("t").run("write two");

  expect(readFileSync(join(env.workDir, "two.txt"), "utf8")).toBe("two");
  // The model got the second call's result, not Claude Code's "[Tool use interrupted]" in its place.
  const followUp = second.requests.at(-1);
  expect(followUp?.view.lastToolResult).toMatchObject({ toolName: "Write", isError: false });
  expect(JSON.stringify(followUp?.body)).not.toContain("[Tool use interrupted]");
  expect(two.text).toBe("Write ok");
  const calls = [first, second].map((s) => s.requests.flatMap((q) => (q.reply && "toolUse" in q.reply ? [q] : [])).length);
  expect(calls).toEqual([1, 1]);
  expect(existsSync(join(env.workDir, "one.txt"))).toBe(true);
});
