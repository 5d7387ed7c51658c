import { describe, expect, it } from "vitest";
import { claudeEnforcement } from "./policy.js";

describe("claudeEnforcement", () => {
  it("names the settings deny rules, the permission-mode flag and the approval path; nothing for unset or inherit", () => {
    expect(claudeEnforcement(undefined)).toEqual([]);
    expect(claudeEnforcement({ approvals: { permission: "inherit" } })).toEqual([]);
    const report = claudeEnforcement({ sandbox: "read_only", webSearch: "deny", approvals: { permission: "auto_deny", question: "ask" } });
    expect(report.map((e) => [e.field, e.value, e.enforced, e.mechanisms])).toEqual([
      ["sandbox", "read_only", true, ["cli_flag"]],
      ["webSearch", "deny", true, ["cli_config"]],
      ["approvals.permission", "auto_deny", true, ["approval"]],
      ["approvals.question", "ask", true, ["approval"]],
    ]);
    expect(report[0]?.detail).toMatch(/^--tools Read,Glob,Grep.* --permission-mode dontAsk$/);
    expect(claudeEnforcement({ sandbox: "unrestricted" })[0]).toMatchObject({
      mechanisms: ["cli_flag"],
      detail: "--permission-mode bypassPermissions",
    });
  });
});
