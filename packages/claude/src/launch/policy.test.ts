import { describe, expect, it } from "vitest";
import { claudeEnforcement, policyLaunch } from "./policy.js";

describe("claudeEnforcement", () => {
  it("names the settings deny rules, the permission-mode flag and the approval path; nothing for unset or inherit", () => {
    expect(claudeEnforcement(undefined)).toEqual([]);
    expect(claudeEnforcement({ approvals: { permission: "inherit" } })).toEqual([]);
    const report = claudeEnforcement({ sandbox: "read_only", webSearch: "deny", approvals: { permission: "auto_deny", question: "ask" } });
    expect(report.map((e) => [e.field, e.value, e.enforced, e.mechanisms])).toEqual([
      ["sandbox", "read_only", true, ["cli_flag", "cli_config"]],
      ["webSearch", "deny", true, ["cli_config"]],
      ["approvals.permission", "auto_deny", true, ["approval"]],
      ["approvals.question", "ask", true, ["approval"]],
    ]);
    expect(report[0]?.detail).toMatch(/^--tools Read,Glob,Grep.* --permission-mode dontAsk; --settings disableAllHooks/);
    expect(claudeEnforcement({ sandbox: "unrestricted" })[0]).toMatchObject({
      mechanisms: ["cli_flag"],
      detail: "--permission-mode bypassPermissions",
    });
  });
});

describe("policyLaunch: every sandbox value × permission mode", () => {
  const sandboxes = [undefined, "read_only", "unrestricted"] as const;
  const modes = [undefined, "inherit", "ask", "auto_approve", "auto_deny"] as const;
  // What the CLI does with a write or a command under each combination: "host" = it waits for the
  // host's answer (default mode + the every-tool hook), "refused" = dontAsk refuses it unasked,
  // "runs" = bypassPermissions runs it unasked, "cli" = the CLI's own settings decide.
  const expected = (sandbox: (typeof sandboxes)[number], mode: (typeof modes)[number]): string => {
    if (sandbox === "read_only") return "refused";
    if (mode === "ask" || mode === "auto_deny") return "host";
    return sandbox === "unrestricted" ? "runs" : "cli";
  };
  for (const sandbox of sandboxes) {
    for (const mode of modes) {
      it(`sandbox ${sandbox ?? "unset"}, permission ${mode ?? "unset"}: a write ${expected(sandbox, mode)}`, () => {
        const policy = { ...(sandbox ? { sandbox } : {}), ...(mode ? { approvals: { permission: mode } } : {}) };
        const launch = policyLaunch(policy);
        const modeFlags = launch.args.flatMap((arg, i) => (arg === "--permission-mode" ? [launch.args[i + 1]] : []));
        const got =
          modeFlags.length !== 1
            ? modeFlags.length === 0 && launch.guardAllowRules !== true
              ? "cli"
              : `bad: ${modeFlags.join(",")}`
            : modeFlags[0] === "dontAsk"
              ? "refused"
              : modeFlags[0] === "bypassPermissions" && launch.guardAllowRules !== true
                ? "runs"
                : modeFlags[0] === "default" && launch.guardAllowRules === true
                  ? "host"
                  : `bad: ${modeFlags[0]} guard=${launch.guardAllowRules}`;
        expect(got).toBe(expected(sandbox, mode));
        // The report claims bypassPermissions exactly when the launch uses it.
        const sandboxReport = claudeEnforcement(policy).find((e) => e.field === "sandbox");
        if (sandbox === "unrestricted") expect(sandboxReport?.detail.includes("bypassPermissions")).toBe(got === "runs");
        const permissionReport = claudeEnforcement(policy).find((e) => e.field === "approvals.permission");
        if (got === "host") expect(permissionReport?.detail).toMatch(/^--permission-mode default .*PreToolUse hook/);
        if (got === "runs" && mode === "auto_approve") expect(permissionReport?.detail).toMatch(/bypassPermissions/);
      });
    }
  }
});
