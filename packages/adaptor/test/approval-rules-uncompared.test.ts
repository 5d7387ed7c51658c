import { describe, expect, it } from "vitest";
import type { ApprovalAsk, ApprovalDecision } from "@adaptor/driver";
import { InvalidPolicyError } from "../src/index.js";
import { runAsks } from "./support/run-asks.js";

// Rules whose condition the ask gives nothing to compare with (an ACP shell call carrying no
// command, gemini-cli's content array), and rules on every tool (an ACP agent naming a tool by title).

/** An ACP shell ask carrying no command: its input is the call's content, as gemini-cli 0.61.0 sends it without a preset. */
const commandless = (toolName = "run_shell_command"): ApprovalAsk => ({
  kind: "permission",
  title: "rm -f /w/keep.txt",
  toolName,
  input: [{ type: "content", content: { type: "text", text: "[current working directory /w]" } }],
  details: { toolKind: "execute" },
});
/** Nanocoder's shell ask: no tool name, so the title names the tool. */
const titled = (command: string): ApprovalAsk => ({
  kind: "permission",
  title: `execute_bash: ${command}`,
  toolName: `execute_bash: ${command}`,
  input: { command },
  details: { toolKind: "execute" },
});
const read = (file: string): ApprovalAsk => ({
  kind: "permission",
  title: `read_file: ${file}`,
  toolName: `read_file: ${file}`,
  input: { path: file },
  details: { toolKind: "read" },
});

describe("approval rules on a call that carries no command", () => {
  it.each([
    ["commandPrefix", { commandPrefix: "rm" }],
    ["exact command", { command: "rm -f /w/keep.txt" }],
  ])("a deny rule by %s denies a shell call of its tool carrying no command, unasked, saying why", async (_name, condition) => {
    const { requests, decisions } = await runAsks([commandless()], {
      approvals: { permission: "ask", rules: [{ toolName: "run_shell_command", ...condition, outcome: "deny", reason: "no rm" }] },
    });
    expect(requests).toEqual([]);
    expect(decisions).toEqual([{ outcome: "deny", reason: "no rm (the call carries no command the rule could be compared with)" }]);
  });

  it("an allow rule by command does not match a shell call carrying no command: it is asked", async () => {
    const { requests, decisions } = await runAsks([commandless()], {
      approvals: { permission: "ask", rules: [{ toolName: "run_shell_command", commandPrefix: "touch", outcome: "approve" }] },
    });
    expect(requests.map((r) => r.toolName)).toEqual(["run_shell_command"]);
    expect(decisions).toEqual([{ outcome: "approve" }]);
  });

  it("a path deny rule denies a shell call of its tool (it names no file the rule could be compared with)", async () => {
    const { requests, decisions } = await runAsks([commandless()], {
      approvals: { permission: "ask", rules: [{ toolName: "run_shell_command", pathPrefix: "/w/secret", outcome: "deny" }] },
    });
    expect(requests).toEqual([]);
    expect(decisions).toEqual([
      { outcome: "deny", reason: "denied by policy rule (the call runs a command, which names no file the rule could be compared with)" },
    ]);
  });

  it("an execute call carrying no command is offered no suggestion (the tool alone would allow every command)", async () => {
    const { requests } = await runAsks([commandless()], { approvals: { permission: "ask" } });
    expect(requests.map((r) => r.suggestions)).toEqual([[]]);
  });

  it("a command carried by the call is still suggested exactly", async () => {
    const { requests } = await runAsks([titled("touch first")], { approvals: { permission: "ask" } });
    expect(requests.map((r) => r.suggestions)).toEqual([[{ toolName: "execute_bash: touch first", command: "touch first" }]]);
  });
});

describe("approval rules on every tool (no toolName)", () => {
  it("a deny rule by commandPrefix without toolName denies a shell call whatever the agent names the tool; other calls are asked", async () => {
    const { requests, decisions } = await runAsks([titled("rm -f /w/keep.txt"), read("/w/a.txt"), titled("ls")], {
      approvals: { permission: "ask", rules: [{ commandPrefix: "rm", outcome: "deny", reason: "no rm" }] },
    });
    expect(requests.map((r) => r.toolName)).toEqual(["read_file: /w/a.txt", "execute_bash: ls"]);
    expect(decisions).toEqual([{ outcome: "deny", reason: "no rm" }, { outcome: "approve" }, { outcome: "approve" }]);
  });

  it("a deny rule by command without toolName fails closed on an execute call carrying no command", async () => {
    const { requests, decisions } = await runAsks([commandless("execute_bash: rm")], {
      approvals: { permission: "ask", rules: [{ commandPrefix: "rm", outcome: "deny", reason: "no rm" }] },
    });
    expect(requests).toEqual([]);
    expect(decisions).toEqual([{ outcome: "deny", reason: "no rm (the call carries no command the rule could be compared with)" }]);
  });

  it("an allow rule remembered without toolName allows the same command of any tool name, and asks another", async () => {
    const { requests, decisions } = await runAsks(
      [titled("npm test"), titled("npm test"), titled("rm -f x")],
      { approvals: { permission: "ask" } },
      (r) => r.approve({ remember: { command: "npm test" } }),
    );
    // The third ask is answered by the handler too; its remember does not match it and is refused.
    expect(requests.map((r) => r.toolName)).toEqual(["execute_bash: npm test", "execute_bash: rm -f x"]);
    expect((decisions as ApprovalDecision[]).slice(0, 2)).toEqual([{ outcome: "approve" }, { outcome: "approve" }]);
  });

  it("an allow rule without toolName approves only shell calls: another tool whose input carries a command (an MCP tool running it elsewhere) is asked; a deny still matches it", async () => {
    const remote: ApprovalAsk = {
      kind: "permission",
      title: "mcp__ssh__run",
      toolName: "mcp__ssh__run",
      input: { command: "git status", host: "prod" },
    };
    const allowed = await runAsks([titled("git status"), remote], {
      approvals: { permission: "ask", rules: [{ commandPrefix: "git status", outcome: "approve" }] },
    });
    expect(allowed.requests.map((r) => r.toolName)).toEqual(["mcp__ssh__run"]);
    const denied = await runAsks([remote], {
      approvals: { permission: "ask", rules: [{ commandPrefix: "git", outcome: "deny", reason: "no git" }] },
    });
    expect(denied.requests).toEqual([]);
    expect(denied.decisions).toEqual([{ outcome: "deny", reason: "no git" }]);
  });

  it("a rule with neither toolName nor a command or path condition is InvalidPolicyError before launch", async () => {
    const { decisions } = await runAsks([], { approvals: { permission: "ask", rules: [{ outcome: "deny" } as never] } });
    expect(decisions).toBeInstanceOf(InvalidPolicyError);
    expect(decisions).toMatchObject({
      field: "approvals.rules[0].toolName",
      message: expect.stringContaining("may be left out only with a command or commandPrefix"),
    });
  });

  it("a path rule without toolName is InvalidPolicyError before launch (it would read every call naming no file as one in the working directory)", async () => {
    const { decisions } = await runAsks([], { approvals: { permission: "ask", rules: [{ pathPrefix: "/w/secret", outcome: "deny" }] } });
    expect(decisions).toBeInstanceOf(InvalidPolicyError);
    expect(decisions).toMatchObject({ field: "approvals.rules[0].toolName" });
  });
});

describe("a deny rule on a tool an ACP agent names by a title starting with it", () => {
  it("a deny on execute_bash matches the ask named `execute_bash: <command>`; an allow on it does not", async () => {
    const denied = await runAsks([titled("rm -f /w/keep.txt"), titled("ls")], {
      approvals: { permission: "ask", rules: [{ toolName: "execute_bash", commandPrefix: "rm", outcome: "deny", reason: "no rm" }] },
    });
    expect(denied.requests.map((r) => r.toolName)).toEqual(["execute_bash: ls"]);
    expect(denied.decisions).toEqual([{ outcome: "deny", reason: "no rm" }, { outcome: "approve" }]);
    const allowed = await runAsks([titled("ls")], {
      approvals: { permission: "ask", rules: [{ toolName: "execute_bash", command: "ls", outcome: "approve" }] },
    });
    expect(allowed.requests.map((r) => r.toolName)).toEqual(["execute_bash: ls"]);
  });
});
