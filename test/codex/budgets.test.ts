import { afterEach, describe, expect, it } from "vitest";
import { whenPromptSays, whenToolOutput } from "@adaptor/testkit";
import { Agent, FeatureUnsupportedError, RunError, findError } from "adaptor";
import { codex } from "@adaptor/codex";
import { codexHarness, type CodexHarness } from "./support.js";

// The `budget` run option on the real codex binary (app-server): tool calls and model responses
// are counted by the SDK from the driver's events, and the driver interrupts a turn whose last
// allowed response calls a tool; codex reports no cost, so a cost budget is refused before launch,
// as is a turn budget on the exec transport (no per-response event).

let h: CodexHarness | undefined;
let agent: Agent | undefined;
afterEach(async () => {
  await agent?.close();
  await h?.close();
  h = agent = undefined;
});

const shell = (cmd: string) => ({ functionCall: { name: "exec_command", arguments: { cmd } } });

function budgetError(error: unknown): RunError {
  const found = findError(error, RunError);
  if (!found) throw new Error(`expected a RunError, got ${String(error)}`);
  expect(found.reason).toBe("budget_exceeded");
  return found;
}

describe("run budgets on codex (real binary)", { timeout: 180_000 }, () => {
  it("maxToolCalls and maxTurns end the run as budget_exceeded naming the limit; within the limits the run succeeds", async () => {
    h = await codexHarness({
      rules: [
        { when: whenPromptSays("two commands"), reply: shell("echo one") },
        { when: whenToolOutput("exec_command", "one"), reply: shell("echo two") },
        { when: whenToolOutput("exec_command", "two"), reply: { text: "both ran" } },
        { when: whenPromptSays("just answer"), reply: { text: "answered" } },
      ],
    });
    agent = new Agent(codex({ cwd: h.env.workDir, env: h.env.env, inheritEnv: false, killGraceMs: 1000 }), {
      policy: { sandbox: "unrestricted", approvals: { permission: "auto_approve" } },
    });
    const tools = budgetError(await agent.run("two commands", { budget: { maxToolCalls: 1 } }).catch((e: unknown) => e));
    expect(tools.details).toMatchObject({ budget: "maxToolCalls", limit: 1, used: 2 });
    expect((await agent.run("two commands", { budget: { maxTurns: 3, maxToolCalls: 2 } })).text).toBe("both ran");
    expect((await agent.run("just answer", { budget: { maxTurns: 1 } })).text).toBe("answered");
  });

  it("maxTurns: the last allowed response calling a tool ends the turn before its next model request", async () => {
    // Each command takes two seconds: the interrupt reaches codex long before the one it stops ends.
    const slow = shell("sleep 2 && echo step");
    h = await codexHarness({
      rules: [
        { when: whenPromptSays("keep going"), reply: slow },
        { when: whenToolOutput("exec_command", "step"), reply: slow },
      ],
    });
    agent = new Agent(codex({ cwd: h.env.workDir, env: h.env.env, inheritEnv: false, killGraceMs: 1000 }), {
      policy: { sandbox: "unrestricted", approvals: { permission: "auto_approve" } },
    });
    const turns = budgetError(await agent.run("keep going", { budget: { maxTurns: 2 } }).catch((e: unknown) => e));
    expect(turns.details).toMatchObject({ budget: "maxTurns", limit: 2, used: 2 });
    expect(h.server.requests.filter((request) => request.rule !== undefined)).toHaveLength(2);
  });

  it("a turn stopped by maxTurns keeps the text it streamed in err.result.text", async () => {
    h = await codexHarness({
      rules: [{ when: whenPromptSays("look first"), reply: { text: "Let me look first.", ...shell("sleep 2 && echo step") } }],
    });
    agent = new Agent(codex({ cwd: h.env.workDir, env: h.env.env, inheritEnv: false, killGraceMs: 1000 }), {
      policy: { sandbox: "unrestricted", approvals: { permission: "auto_approve" } },
    });
    const stopped = budgetError(await agent.run("look first", { budget: { maxTurns: 1 } }).catch((e: unknown) => e));
    expect(stopped.details).toMatchObject({ budget: "maxTurns", limit: 1, used: 1 });
    expect(stopped.result?.text).toBe("Let me look first.");
  });

  it("a cost budget, and a turn budget over exec, are refused before launch with FeatureUnsupportedError", async () => {
    await using appServer = new Agent(codex({ command: "/nonexistent/codex" }));
    const cost = await appServer.run("hi", { budget: { maxCostUsd: 1 } }).catch((e: unknown) => e);
    expect(findError(cost, FeatureUnsupportedError)).toMatchObject({ driver: "codex", feature: "budget.maxCostUsd" });
    await using exec = new Agent(codex({ command: "/nonexistent/codex", transport: "exec" }));
    const turns = await exec.run("hi", { budget: { maxTurns: 1 } }).catch((e: unknown) => e);
    expect(findError(turns, FeatureUnsupportedError)).toMatchObject({ driver: "codex", feature: "budget.maxTurns" });
  });
});
