import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { Agent, RunError, type AgentEvent, type ApprovalRule } from "adaptor";
import { executeAskDriver, hostileAcp, IN_NORMAL_MODE, text, type HostileStep } from "./hostile-agent/hostile.js";

// An ACP agent that starts a command on the host's terminal as a program and its arguments
// (`terminal/create` with `args`): a deny rule reads them as one command, shell wrappers included.

let agent: Agent | undefined;
let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "acp-argv-rules-"));
});
afterEach(async () => {
  await agent?.close();
  agent = undefined;
  rmSync(dir, { recursive: true, force: true });
});

/** An agent whose prompt runs `command` with `args` through the host's terminal, then waits for it to exit. */
function terminalAgent(command: string, args: string[]): Agent {
  const steps: HostileStep[] = [
    { request: "terminal/create", params: { command, args, cwd: dir } },
    { request: "terminal/wait_for_exit", params: { terminalId: "terminal-1" } },
    text("done"),
    { respond: { stopReason: "end_turn" } },
  ];
  const driver = hostileAcp(
    { "session/new": [{ respond: { sessionId: "hostile-session", modes: IN_NORMAL_MODE } }], "session/prompt": [steps] },
    { askMode: "normal", sandboxModes: { read_only: "normal" }, cwd: dir },
  );
  return new Agent(driver);
}

describe("deny rules on an ACP terminal/create given as a program and arguments (hostile agent)", () => {
  it.each([
    ["sh -c", "sh", (file: string) => ["-c", `rm -f ${file}`], { commandPrefix: "rm" }],
    ["/bin/bash -lc", "/bin/bash", (file: string) => ["-lc", `rm -f ${file}`], { commandPrefix: "rm" }],
    ["env", "env", (file: string) => ["rm", "-f", file], { commandPrefix: "rm" }],
    ["the program, by an exact deny", "rm", (file: string) => ["-f", file], undefined],
  ])("%s: the command is denied without asking the handler and the file is kept", async (_name, command, args, condition) => {
    const victim = join(dir, "victim.txt");
    writeFileSync(victim, "keep");
    agent = terminalAgent(command, args(victim));
    const asked: unknown[] = [];
    const rule: ApprovalRule = condition ?? { command: `rm -f ${victim}` };
    await agent.run("go", {
      policy: { approvals: { permission: "ask", rules: [{ ...rule, outcome: "deny", reason: "no rm" }] } },
      onApproval: (request) => (asked.push(request.input), request.approve()),
    });
    expect(asked).toEqual([]);
    expect(existsSync(victim)).toBe(true);
  });

  it("another command is asked about, offered as the whole command (not the program alone)", async () => {
    agent = terminalAgent("sh", ["-c", "true"]);
    const suggestions: unknown[] = [];
    await agent.run("go", {
      policy: { approvals: { permission: "ask", rules: [{ commandPrefix: "rm", outcome: "deny" }] } },
      onApproval: (request) => (suggestions.push(request.suggestions), request.approve()),
    });
    expect(suggestions).toEqual([[{ toolName: "terminal/create", command: "sh -c true" }]]);
  });
});

describe("an allow rule on an ACP terminal/create compares the argv quoted as one shell line (hostile agent)", () => {
  it("an allow of the line whose words differ (a b, not 'a b') does not approve the argv: the handler is asked", async () => {
    const file = join(dir, "a b");
    agent = terminalAgent("touch", [file]);
    const asked: unknown[] = [];
    await agent.run("go", {
      policy: { approvals: { permission: "ask", rules: [{ toolName: "terminal/create", command: `touch ${file}`, outcome: "approve" }] } },
      onApproval: (request) => (asked.push(request.suggestions), request.deny("asked")),
    });
    expect(asked).toEqual([[{ toolName: "terminal/create", command: `touch '${file}'` }]]);
    expect(existsSync(file)).toBe(false);
  });

  it("an allow of the argv's own quoted line approves it without asking", async () => {
    const file = join(dir, "a b");
    agent = terminalAgent("touch", [file]);
    const asked: unknown[] = [];
    await agent.run("go", {
      policy: {
        approvals: { permission: "ask", rules: [{ toolName: "terminal/create", command: `touch '${file}'`, outcome: "approve" }] },
      },
      onApproval: (request) => (asked.push(request.input), request.deny("asked")),
    });
    expect(asked).toEqual([]);
    expect(existsSync(file)).toBe(true);
  });
});

/** An agent whose prompt asks about one execute call with `rawInput`, then reports it failed. */
function executeAsker(rawInput: Record<string, unknown>): Agent {
  return new Agent(executeAskDriver({ toolCallId: "c1", title: "Run it", kind: "execute", rawInput }, { cwd: dir }));
}

describe("an ACP execute call whose args are not an array of strings (hostile agent)", () => {
  it("a deny of rm denies it without asking (its command cannot be read: the deny fails closed)", async () => {
    agent = executeAsker({ command: "sh", args: { c: "rm -rf x" } });
    const asked: unknown[] = [];
    const stream = agent.stream("go", {
      policy: { approvals: { permission: "ask", rules: [{ commandPrefix: "rm", outcome: "deny", reason: "no rm" }] } },
      onApproval: (request) => (asked.push(request.input), request.approve()),
    });
    const events: AgentEvent[] = [];
    for await (const event of stream) events.push(event);
    await stream.result();
    expect(asked).toEqual([]);
    const resolved = events.find((e) => e.type === "notice" && e.kind === "approval.resolved");
    expect(resolved).toMatchObject({ data: { outcome: "denied", rule: { commandPrefix: "rm" } } });
  });

  it("an allow shaped to read as its text does not approve it: the handler is asked, offered no rule", async () => {
    agent = executeAsker({ command: "sleep", args: 0 });
    const suggestions: unknown[] = [];
    await agent.run("go", {
      policy: { approvals: { permission: "ask", rules: [{ toolName: "Run it", command: "sleep 0", outcome: "approve" }] } },
      onApproval: (request) => (suggestions.push(request.suggestions), request.deny("asked")),
    });
    expect(suggestions).toEqual([[]]);
  });
});

describe("an ACP execute call carrying no command that ran without asking (hostile agent)", () => {
  it("a deny rule without toolName names it: the notice carries the rule and the run fails", async () => {
    const call = { toolCallId: "c1", title: "Clean up", kind: "execute" };
    const driver = hostileAcp(
      {
        "session/new": [{ respond: { sessionId: "hostile-session", modes: IN_NORMAL_MODE } }],
        "session/prompt": [
          [
            { update: { sessionUpdate: "tool_call", status: "in_progress", ...call } },
            { update: { sessionUpdate: "tool_call_update", toolCallId: "c1", status: "completed" } },
            text("done"),
            { respond: { stopReason: "end_turn" } },
          ],
        ],
      },
      { askMode: "normal", sandboxModes: { read_only: "normal" }, cwd: dir },
    );
    agent = new Agent(driver);
    const stream = agent.stream("go", {
      policy: { approvals: { permission: "ask", rules: [{ commandPrefix: "rm", outcome: "deny" }] } },
      onApproval: (request) => request.approve(),
    });
    const events: AgentEvent[] = [];
    for await (const event of stream) events.push(event);
    const error = await stream.result().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RunError);
    expect((error as RunError).reason).toBe("policy_violation");
    const unasked = events.filter((e) => e.type === "notice" && e.kind === "approval.unasked");
    expect(unasked).toMatchObject([{ data: { toolCallId: "c1", rule: { commandPrefix: "rm" } } }]);
  });
});
