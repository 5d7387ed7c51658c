import { describe, expect, it } from "vitest";
import { codexEnforcement } from "./policy.js";

describe("codexEnforcement", () => {
  it("exec: -s and -c flags; app server: thread/start settings; ask through approvals, auto_approve through approval_policy never", () => {
    const policy = { sandbox: "read_only", webSearch: "deny", approvals: { permission: "ask" } } as const;
    const plan = { sandbox: "read-only", webSearch: "disabled", approvalPolicy: "untrusted" } as const;
    expect(codexEnforcement(policy, plan, "exec").map((e) => [e.field, e.mechanisms, e.detail])).toEqual([
      ["sandbox", ["cli_flag"], "-s read-only; a command the host approves runs outside the sandbox (codex's semantics)"],
      ["webSearch", ["cli_flag"], 'web_search = "disabled"'],
      ["approvals.permission", ["approval"], expect.stringContaining("untrusted")],
    ]);
    expect(codexEnforcement(policy, plan, "app-server")[0]).toMatchObject({
      mechanisms: ["cli_config"],
      detail: "thread/start sandbox read-only; a command the host approves runs outside the sandbox (codex's semantics)",
    });
    const denied = { ...policy, approvals: { permission: "auto_deny" } } as const;
    expect(codexEnforcement(denied, plan, "app-server")[0]).toMatchObject({ detail: "thread/start sandbox read-only" });
    const never = codexEnforcement({ approvals: { permission: "auto_approve" } }, { approvalPolicy: "never" }, "app-server");
    expect(never).toEqual([
      expect.objectContaining({ enforced: true, mechanisms: ["cli_config"], detail: expect.stringContaining("never") as string }),
    ]);
  });
});
