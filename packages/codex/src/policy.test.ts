import { describe, expect, it } from "vitest";
import { ErrPolicyCapabilityUnsupported } from "@adaptor/driver";
import { isError } from "@adaptor/errors";
import { CODEX_DESCRIPTOR } from "./descriptor.js";
import { codexEnforcement, planPolicy } from "./policy.js";

describe("codexEnforcement", () => {
  it("exec: -s and -c flags; app server: thread/start settings; ask through approvals, auto_approve through approval_policy never", () => {
    const policy = { sandbox: "read_only", webSearch: "deny", approvals: { permission: "auto_deny" } } as const;
    const plan = { sandbox: "read-only", webSearch: "disabled", approvalPolicy: "untrusted" } as const;
    expect(codexEnforcement(policy, plan, "exec").map((e) => [e.field, e.mechanisms, e.detail])).toEqual([
      ["sandbox", ["cli_flag"], "-s read-only"],
      ["webSearch", ["cli_flag"], 'web_search = "disabled"'],
      ["approvals.permission", ["approval"], expect.stringContaining("untrusted")],
    ]);
    expect(codexEnforcement(policy, plan, "app-server")[0]).toMatchObject({
      mechanisms: ["cli_config"],
      detail: "thread/start sandbox read-only",
    });
    const never = codexEnforcement({ approvals: { permission: "auto_approve" } }, { approvalPolicy: "never" }, "app-server");
    expect(never).toEqual([
      expect.objectContaining({ enforced: true, mechanisms: ["cli_config"], detail: expect.stringContaining("never") as string }),
    ]);
  });

  it("a sandbox accepted on best effort under ask is listed as not enforced, with the reason", () => {
    const policy = { sandbox: "workspace_write", approvals: { permission: "ask" } } as const;
    const plan = planPolicy(policy, CODEX_DESCRIPTOR, true);
    expect(plan).toMatchObject({ sandbox: "workspace-write", approvalPolicy: "untrusted", sandboxBestEffort: true });
    expect(codexEnforcement(policy, plan, "app-server")).toEqual([
      {
        field: "sandbox",
        value: "workspace_write",
        enforced: false,
        mechanisms: [],
        detail: expect.stringContaining("outside its sandbox") as string,
      },
      expect.objectContaining({ field: "approvals.permission", value: "ask", enforced: true, mechanisms: ["approval"] }),
    ]);
  });
});

describe("planPolicy", () => {
  it.each(["read_only", "workspace_write"] as const)(
    "sandbox %s with permission ask is refused with PolicyCapabilityUnsupportedError",
    (sandbox) => {
      let thrown: unknown;
      try {
        planPolicy({ sandbox, approvals: { permission: "ask" } }, CODEX_DESCRIPTOR);
      } catch (error) {
        thrown = error;
      }
      expect(isError(thrown, ErrPolicyCapabilityUnsupported)).toBe(true);
      expect(thrown).toMatchObject({ driver: "codex", dimension: "sandbox", value: sandbox });
      expect((thrown as Error).message).toContain("outside its sandbox");
      expect((thrown as Error).message).toContain("bestEffortPolicy");
    },
  );

  it("ask with sandbox unrestricted or unset, and a confining sandbox with the other modes, are planned as before", () => {
    expect(planPolicy({ sandbox: "unrestricted", approvals: { permission: "ask" } }, CODEX_DESCRIPTOR)).toEqual({
      sandbox: "danger-full-access",
      approvalPolicy: "untrusted",
    });
    expect(planPolicy({ approvals: { permission: "ask" } }, CODEX_DESCRIPTOR)).toEqual({ approvalPolicy: "untrusted" });
    expect(planPolicy({ sandbox: "read_only", approvals: { permission: "auto_deny" } }, CODEX_DESCRIPTOR)).toEqual({
      sandbox: "read-only",
      approvalPolicy: "untrusted",
    });
    expect(planPolicy({ sandbox: "workspace_write", approvals: { permission: "auto_approve" } }, CODEX_DESCRIPTOR)).toEqual({
      sandbox: "workspace-write",
      approvalPolicy: "never",
    });
    expect(planPolicy({ sandbox: "read_only" }, CODEX_DESCRIPTOR)).toEqual({ sandbox: "read-only" });
  });
});
