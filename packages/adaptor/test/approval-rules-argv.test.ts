import { describe, expect, it } from "vitest";
import type { ApprovalAsk, ApprovalDecision } from "@adaptor/driver";
import { Agent, type ApprovalRequest, type Policy } from "../src/index.js";
import { ruleMatches, suggestRules, type RuleSubject } from "../src/approval/approval-rule.js";
import { scriptedDriver } from "./scripted-driver.js";

// A command given as a program and its arguments (an ACP `terminal/create`, an agent's
// `{ command: "sh", args: ["-c", ...] }`) is one argv; a blank command is no command.

const terminal = (command: string, args: string[]): RuleSubject => ({
  kind: "permission",
  toolName: "terminal/create",
  input: { command, args, cwd: "/w", env: [] },
});
const execute = (input: Record<string, unknown>): RuleSubject => ({ kind: "permission", toolName: "x", toolKind: "execute", input });
const deniesRm = (subject: RuleSubject): boolean => ruleMatches({ commandPrefix: "rm" }, subject, undefined, "any");

describe("a command given as a program and an args array", () => {
  it.each([
    ["sh -c", terminal("sh", ["-c", "rm -f /w/victim.txt"])],
    ["/bin/bash -lc", terminal("/bin/bash", ["-lc", "rm -f /w/victim.txt"])],
    ["env", terminal("env", ["rm", "-f", "/w/victim.txt"])],
    ["sudo", terminal("sudo", ["rm", "-f", "/w/victim.txt"])],
    ["the program itself", terminal("rm", ["-f", "/w/victim.txt"])],
    ["an execute call's rawInput", execute({ command: "sh", args: ["-c", "rm -rf x"] })],
    ["an argv array with args", execute({ command: ["sh"], args: ["-c", "rm -rf x"] })],
  ])("is matched by a deny of rm (%s)", (_name, subject) => {
    expect(deniesRm(subject)).toBe(true);
  });

  it("is not matched by a deny of a program it does not run", () => {
    expect(deniesRm(terminal("sh", ["-c", "rmdir /w/empty"]))).toBe(false);
    expect(deniesRm(execute({ command: "env", args: ["ls", "-la"] }))).toBe(false);
  });

  it("an exact deny matches it joined, and the command its shell wrapper runs", () => {
    const exact = { command: "rm -f /w/victim.txt" };
    expect(ruleMatches(exact, terminal("rm", ["-f", "/w/victim.txt"]), undefined, "any")).toBe(true);
    expect(ruleMatches(exact, terminal("sh", ["-c", "rm -f /w/victim.txt"]), undefined, "any")).toBe(true);
  });

  it("an allow compares the whole command: an allow of the program alone does not allow it", () => {
    expect(ruleMatches({ toolName: "terminal/create", command: "sh" }, terminal("sh", ["-c", "rm -f x"]))).toBe(false);
    // Its line quotes `rm -f x` ('rm -f x'), and a command holding a quote never matches an allow prefix.
    expect(ruleMatches({ toolName: "terminal/create", commandPrefix: "sh" }, terminal("sh", ["-c", "rm -f x"]))).toBe(false);
    expect(ruleMatches({ toolName: "terminal/create", commandPrefix: "npm" }, terminal("npm", ["test"]))).toBe(true);
    expect(ruleMatches({ toolName: "terminal/create", command: "npm test" }, terminal("npm", ["test"]))).toBe(true);
    expect(ruleMatches({ toolName: "terminal/create", command: "npm test" }, terminal("npm", ["install"]))).toBe(false);
    expect(ruleMatches({ toolName: "terminal/create", command: "echo hi" }, terminal("sh", ["-c", "echo hi"]))).toBe(true);
  });

  it("its suggestion is the whole command (its words quoted), never the program alone", () => {
    expect(suggestRules(terminal("sh", ["-c", "rm -f /w/victim.txt"]))).toEqual([
      { toolName: "terminal/create", command: "sh -c 'rm -f /w/victim.txt'" },
    ]);
    expect(suggestRules(execute({ command: "sh", args: ["-c", "rm -rf x"] }))).toEqual([{ toolName: "x", command: "sh -c 'rm -rf x'" }]);
  });

  it("a command string with no arguments stays a shell line: its wrapper is read", () => {
    expect(deniesRm(terminal("bash -lc 'rm -f x'", []))).toBe(true);
    expect(suggestRules(terminal("npm test", []))).toEqual([{ toolName: "terminal/create", command: "npm test" }]);
  });
});

describe("a blank command is no command", () => {
  it.each(["", "   "])("a deny of rm matches an execute call whose command is %j (it fails closed) and none is suggested", (command) => {
    expect(deniesRm(execute({ command }))).toBe(true);
    expect(suggestRules(execute({ command }))).toEqual([]);
  });

  it.each(["", "   "])("through a run: the call whose command is %j is denied unasked, saying why", async (command) => {
    const ask: ApprovalAsk = {
      kind: "permission",
      title: "rm -rf x",
      toolName: "rm -rf x",
      input: { command },
      details: { toolKind: "execute" },
    };
    const policy: Policy = { approvals: { permission: "ask", rules: [{ commandPrefix: "rm", outcome: "deny", reason: "no rm" }] } };
    const requests: ApprovalRequest[] = [];
    const driver = scriptedDriver(async (_request, sink) => ({ text: JSON.stringify([await sink.requestApproval(ask)]) }));
    await using agent = new Agent(driver, { onApproval: (request) => (requests.push(request), request.approve()) });
    const result = await agent.run("p", { policy });
    expect(requests).toEqual([]);
    expect(JSON.parse(result.text) as ApprovalDecision[]).toEqual([
      { outcome: "deny", reason: "no rm (the call carries no command the rule could be compared with)" },
    ]);
  });
});
