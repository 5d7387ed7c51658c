import { describe, expect, it } from "vitest";
import type { ApprovalAsk } from "@adaptor/driver";
import { Agent, RunError, type AgentEvent } from "../src/index.js";
import { commandsOf, ruleMatches, suggestRules, uncomparedBy, type RuleSubject } from "../src/approval/approval-rule.js";
import { runAsks } from "./support/run-asks.js";
import { scriptedDriver } from "./scripted-driver.js";

// How a rule reads a command given as a program and its arguments: as one shell line whose words
// are that argv (quoted), never as text an agent can shape; and the same reading for a call the
// agent ran without asking as for its ask.

const terminal = (command: string, args: unknown): RuleSubject => ({
  kind: "permission",
  toolName: "terminal/create",
  input: { command, args, cwd: "/w", env: [] },
});
const execute = (input: Record<string, unknown>): RuleSubject => ({ kind: "permission", toolName: "x", toolKind: "execute", input });
const allows = (rule: { command?: string; commandPrefix?: string }, subject: RuleSubject): boolean =>
  ruleMatches({ toolName: subject.toolName, ...rule }, subject);
const deniesRm = (subject: RuleSubject): boolean => ruleMatches({ commandPrefix: "rm" }, subject, undefined, "any");

describe("an argv is read as one shell line of exactly its words", () => {
  it("an argument holding a space is one quoted word: an allow of the other argv does not match it", () => {
    const oneWord = terminal("git", ["commit", "-m", "a b"]);
    const twoWords = terminal("git", ["commit", "-m", "a", "b"]);
    expect(suggestRules(oneWord)).toEqual([{ toolName: "terminal/create", command: "git commit -m 'a b'" }]);
    expect(allows({ command: "git commit -m 'a b'" }, oneWord)).toBe(true);
    expect(allows({ command: "git commit -m 'a b'" }, twoWords)).toBe(false);
    expect(allows({ command: "git commit -m a b" }, oneWord)).toBe(false);
    expect(allows({ command: "git commit -m a b" }, twoWords)).toBe(true);
  });

  it("a word the shell reads as it is stays as it is (=, @, :, comma, %, +), so a prefix allow and its remembered form match it; a first word holding = is escaped (it would read as an assignment)", () => {
    const cases: [string, string[], string][] = [
      ["git", ["log", "--format=%H", "-n", "3"], "git log --format=%H -n 3"],
      ["npm", ["install", "left-pad@1.3.0"], "npm install left-pad@1.3.0"],
      ["curl", ["-s", "http://127.0.0.1:8080/a,b"], "curl -s http://127.0.0.1:8080/a,b"],
      ["FOO=1", ["rm", "x"], "FOO\\=1 rm x"],
      ["ls", ["~/x", "*.ts"], "ls \\~/x \\*.ts"],
    ];
    for (const [command, args, line] of cases) {
      const subject = terminal(command, args);
      expect(suggestRules(subject)).toEqual([{ toolName: "terminal/create", command: line }]);
    }
    expect(allows({ commandPrefix: "git log" }, terminal("git", ["log", "--format=%H"]))).toBe(true);
    expect(allows({ commandPrefix: "npm install" }, terminal("npm", ["install", "left-pad@1.3.0"]))).toBe(true);
    expect(allows({ commandPrefix: "rm" }, terminal("FOO=1", ["rm", "x"]))).toBe(false);
    expect(deniesRm(terminal("FOO=1", ["rm", "x"]))).toBe(true);
  });

  it("an argument holding a shell operator is one word, not a second command", () => {
    const echo = terminal("echo", ["x; rm -rf y"]);
    expect(suggestRules(echo)).toEqual([{ toolName: "terminal/create", command: "echo 'x; rm -rf y'" }]);
    expect(allows({ command: "echo x; rm -rf y" }, echo)).toBe(false);
    expect(allows({ command: "echo 'x; rm -rf y'" }, echo)).toBe(true);
    expect(allows({ command: "echo x; rm -rf y" }, terminal("echo", ["x;", "rm", "-rf", "y"]))).toBe(false);
  });

  it("a shell wrapper given as an argv reads as the same line given as text, so one rule names both", () => {
    const argv = terminal("/bin/bash", ["-lc", "cat secret.txt"]);
    const line = terminal("/bin/bash -lc 'cat secret.txt'", []);
    expect(commandsOf(argv.input)).toEqual(["/bin/bash -lc 'cat secret.txt'", "cat secret.txt"]);
    expect(commandsOf(argv.input)).toEqual(commandsOf(line.input));
    expect(allows({ command: "/bin/bash -lc 'cat secret.txt'" }, argv)).toBe(true);
    expect(ruleMatches({ command: "cat secret.txt" }, argv, undefined, "any")).toBe(true);
  });
});

describe("args that are not an array of strings give no readable command", () => {
  it.each([
    ["a number", 5],
    ["a string", "status"],
    ["an object", { 0: "status" }],
    ["an array holding a number", ["status", 1]],
  ])("args as %s: an allow does not match, a deny fails closed saying why, and nothing is suggested", (_name, args) => {
    const subject = execute({ command: "git", args });
    for (const command of ["git 5", 'git "status"', 'git {"0":"status"}', "git status 1", "git status"])
      expect(allows({ command }, subject)).toBe(false);
    expect(allows({ commandPrefix: "git" }, subject)).toBe(false);
    expect(deniesRm(subject)).toBe(true);
    expect(uncomparedBy({ commandPrefix: "rm" }, subject)).toBe(
      "the call's command is not text or an array of strings (its args), so the rule could not read it",
    );
    expect(suggestRules(subject)).toEqual([]);
  });

  it("a deny rule on every tool matches another tool's call whose args are unreadable", () => {
    const mcp: RuleSubject = { kind: "permission", toolName: "db.exec", input: { command: "sh", args: { c: "rm -rf x" } } };
    expect(deniesRm(mcp)).toBe(true);
    expect(ruleMatches({ commandPrefix: "sh" }, mcp)).toBe(false);
  });

  it("through a run: a deny of rm denies such a call unasked, saying why", async () => {
    const ask: ApprovalAsk = {
      kind: "permission",
      title: "sleep",
      toolName: "run",
      input: { command: "sleep", args: 5 },
      details: { toolKind: "execute" },
    };
    const { requests, decisions } = await runAsks([ask], {
      approvals: { permission: "ask", rules: [{ commandPrefix: "rm", outcome: "deny", reason: "no rm" }] },
    });
    expect(requests).toEqual([]);
    expect(decisions).toEqual([
      {
        outcome: "deny",
        reason: "no rm (the call's command is not text or an array of strings (its args), so the rule could not read it)",
      },
    ]);
  });
});

describe("a call the agent ran without asking is read as its ask would be", () => {
  it("a deny rule on every tool names an ACP execute call carrying no command that ran unasked (the notice and the failure name it)", async () => {
    const driver = scriptedDriver(async (_request, sink) => {
      sink.emit({ type: "tool-call", phase: "start", id: "e1", name: "Run the cleanup", kind: "execute" });
      sink.emit({ type: "tool-call", phase: "end", id: "e1", name: "Run the cleanup", input: {}, kind: "execute" });
      sink.emit({ type: "tool-result", id: "e1", output: "done", isError: false });
      return { text: "ran" };
    });
    const rule = { commandPrefix: "rm" };
    const events: AgentEvent[] = [];
    const stream = new Agent(driver).stream("p", {
      policy: { approvals: { permission: "ask", rules: [{ ...rule, outcome: "deny" }] } },
      onApproval: (request) => request.approve(),
    });
    for await (const event of stream) events.push(event);
    const verdict = await stream.result().catch((error: unknown) => error);
    expect(verdict).toBeInstanceOf(RunError);
    expect(verdict).toMatchObject({ reason: "policy_violation", details: { toolCallIds: ["e1"] } });
    expect(events.flatMap((e) => (e.type === "notice" && e.kind === "approval.unasked" ? [e.data] : []))).toEqual([
      { toolCallId: "e1", toolName: "Run the cleanup", mode: "ask", rule },
    ]);
  });

  it("the same call asked about is denied by the same rule", async () => {
    const ask: ApprovalAsk = {
      kind: "permission",
      title: "Run the cleanup",
      toolName: "Run the cleanup",
      input: {},
      details: { toolKind: "execute" },
    };
    const { requests, decisions } = await runAsks([ask], {
      approvals: { permission: "ask", rules: [{ commandPrefix: "rm", outcome: "deny" }] },
    });
    expect(requests).toEqual([]);
    expect(decisions).toMatchObject([{ outcome: "deny" }]);
  });
});
