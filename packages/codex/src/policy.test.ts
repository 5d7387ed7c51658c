import { describe, expect, it } from "vitest";
import { ErrPolicyCapabilityUnsupported } from "@adaptor/driver";
import { isError } from "@adaptor/errors";
import { CODEX_DESCRIPTOR } from "./descriptor.js";
import {
  ASK_WITHOUT_SANDBOX,
  checkInheritedApprovals,
  codexEnforcement,
  MCP_TOOLS_UNDER_NEVER,
  planPolicy,
  SANDBOX_UNDER_ASK,
} from "./policy.js";

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
    expect(plan).toMatchObject({ sandbox: "workspace-write", approvalPolicy: "untrusted", sandboxBestEffort: SANDBOX_UNDER_ASK });
    expect(codexEnforcement(policy, plan, "app-server")).toEqual([
      {
        field: "sandbox",
        value: "workspace_write",
        enforced: false,
        mechanisms: [],
        detail: expect.stringContaining("outside its sandbox") as string,
        bestEffort: true,
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

  it("ask with sandbox unrestricted, and a confining sandbox with the other modes, are planned as before", () => {
    expect(planPolicy({ sandbox: "unrestricted", approvals: { permission: "ask" } }, CODEX_DESCRIPTOR)).toEqual({
      sandbox: "danger-full-access",
      approvalPolicy: "untrusted",
    });
    expect(planPolicy({ sandbox: "read_only", approvals: { permission: "auto_deny" } }, CODEX_DESCRIPTOR)).toEqual({
      sandbox: "read-only",
      approvalPolicy: "untrusted",
    });
    expect(planPolicy({ sandbox: "workspace_write", approvals: { permission: "auto_approve" } }, CODEX_DESCRIPTOR)).toEqual({
      sandbox: "workspace-write",
      approvalPolicy: "never",
      writableRoots: [],
    });
  });

  it("ask with no sandbox runs codex in danger-full-access, and the approvals entry says so; auto_deny and auto_approve leave codex's own sandbox", () => {
    const policy = { approvals: { permission: "ask" } } as const;
    const plan = planPolicy(policy, CODEX_DESCRIPTOR);
    expect(plan).toEqual({ sandbox: "danger-full-access", approvalPolicy: "untrusted", sandboxForAsk: ASK_WITHOUT_SANDBOX });
    expect(codexEnforcement(policy, plan, "app-server")).toEqual([
      {
        field: "approvals.permission",
        value: "ask",
        enforced: true,
        mechanisms: ["approval"],
        detail: expect.stringContaining("sandbox danger-full-access (turn/start sandboxPolicy)") as string,
      },
    ]);
    expect(planPolicy({ approvals: { permission: "auto_deny" } }, CODEX_DESCRIPTOR)).toEqual({ approvalPolicy: "untrusted" });
    expect(planPolicy({ approvals: { permission: "auto_approve" } }, CODEX_DESCRIPTOR)).toEqual({ approvalPolicy: "never" });
  });

  it("auto_approve with an MCP server of the host's: its tools run unasked, as the approvals entry says", () => {
    const policy = { approvals: { permission: "auto_approve" } } as const;
    const server = { name: "fixture", transport: "stdio", command: "fixture" } as const;
    const plan = planPolicy(policy, CODEX_DESCRIPTOR, false, {}, [server]);
    expect(plan).toEqual({ approvalPolicy: "never", hostMcpServers: true });
    expect(codexEnforcement(policy, plan, "app-server")[0]?.detail).toContain(MCP_TOOLS_UNDER_NEVER);
    expect(codexEnforcement(policy, planPolicy(policy, CODEX_DESCRIPTOR), "app-server")[0]?.detail).not.toContain("MCP");
  });

  it("a confining sandbox with permission unset is planned with approval policy never; unrestricted or no sandbox leaves codex's own", () => {
    expect(planPolicy({ sandbox: "read_only" }, CODEX_DESCRIPTOR)).toEqual({ sandbox: "read-only", approvalPolicy: "never" });
    expect(planPolicy({ sandbox: "workspace_write" }, CODEX_DESCRIPTOR)).toEqual({
      sandbox: "workspace-write",
      approvalPolicy: "never",
      writableRoots: [],
    });
    expect(planPolicy({ sandbox: "unrestricted" }, CODEX_DESCRIPTOR)).toEqual({ sandbox: "danger-full-access" });
    expect(planPolicy({ webSearch: "deny" }, CODEX_DESCRIPTOR)).toEqual({ webSearch: "disabled" });
  });

  it("a confining sandbox with permission inherit leaves codex's policy and marks it to be checked once the thread is open", () => {
    const policy = { sandbox: "read_only", approvals: { permission: "inherit" } } as const;
    expect(planPolicy(policy, CODEX_DESCRIPTOR)).toEqual({ sandbox: "read-only", inheritedApprovals: "refuse" });
    expect(planPolicy(policy, CODEX_DESCRIPTOR, true)).toEqual({ sandbox: "read-only", inheritedApprovals: "best_effort" });
    expect(planPolicy({ sandbox: "unrestricted", approvals: { permission: "inherit" } }, CODEX_DESCRIPTOR)).toEqual({
      sandbox: "danger-full-access",
    });
  });
});

describe("checkInheritedApprovals", () => {
  const policy = { sandbox: "workspace_write", approvals: { permission: "inherit" } } as const;
  const refuse = planPolicy(policy, CODEX_DESCRIPTOR);

  it("codex's own policy never keeps the plan; a plan not marked is kept whatever the policy", () => {
    expect(checkInheritedApprovals(refuse, "never", policy, "codex")).toBe(refuse);
    const ask = planPolicy({ approvals: { permission: "inherit" } }, CODEX_DESCRIPTOR);
    expect(checkInheritedApprovals(ask, "untrusted", { approvals: { permission: "inherit" } }, "codex")).toBe(ask);
  });

  it.each([
    "untrusted",
    "on-request",
    { granular: { sandbox_approval: false, rules: true, skill_approval: true, request_permissions: true, mcp_elicitations: true } },
  ] as const)("codex's own policy %j is refused with PolicyCapabilityUnsupportedError", (effective) => {
    let thrown: unknown;
    try {
      checkInheritedApprovals(refuse, effective, policy, "codex");
    } catch (error) {
      thrown = error;
    }
    expect(isError(thrown, ErrPolicyCapabilityUnsupported)).toBe(true);
    expect(thrown).toMatchObject({ driver: "codex", dimension: "sandbox", value: "workspace_write" });
    expect((thrown as Error).message).toContain(`permission "inherit": codex's own approval policy is ${JSON.stringify(effective)}`);
    expect((thrown as Error).message).toContain("bestEffortPolicy");
  });

  it("with best effort the sandbox is reported not enforced, naming codex's policy", () => {
    const plan = checkInheritedApprovals(planPolicy(policy, CODEX_DESCRIPTOR, true), "on-request", policy, "codex");
    expect(codexEnforcement(policy, plan, "app-server")).toEqual([
      {
        field: "sandbox",
        value: "workspace_write",
        enforced: false,
        mechanisms: [],
        detail: expect.stringContaining(`best effort accepted): codex's own approval policy is "on-request"`) as string,
        bestEffort: true,
      },
    ]);
  });
});

describe("planPolicy: launch settings that widen a confining sandbox", () => {
  const refused = (sandbox: "read_only" | "workspace_write" | "unrestricted" | undefined, extraArgs: string[]): boolean => {
    try {
      planPolicy(sandbox ? { sandbox } : { webSearch: "deny" }, CODEX_DESCRIPTOR, false, { extraArgs });
      return false;
    } catch (error) {
      return isError(error, ErrPolicyCapabilityUnsupported);
    }
  };

  it.each([
    [["--add-dir", "/data"]],
    [["--add-dir=/data"]],
    [["--trust"]],
    [["--dangerously-bypass-hook-trust"]],
    [["-c", "sandbox_workspace_write.writable_roots=[]"]],
    [["--config=sandbox_workspace_write.network_access=true"]],
  ])("refuses %j under read_only and workspace_write, accepts it without a sandbox or under unrestricted", (extraArgs) => {
    expect(refused("read_only", extraArgs)).toBe(true);
    expect(refused("workspace_write", extraArgs)).toBe(true);
    expect(refused("unrestricted", extraArgs)).toBe(false);
    expect(refused(undefined, extraArgs)).toBe(false);
  });

  it("workspace_write pins the writable roots to [] unless configOverrides sets them (then the report lists them)", () => {
    const policy = { sandbox: "workspace_write" } as const;
    const pinned = planPolicy(policy, CODEX_DESCRIPTOR);
    expect(pinned).toMatchObject({ writableRoots: [] });
    expect(pinned.hostWritableRoots).toBeUndefined();
    expect(codexEnforcement(policy, pinned, "exec")[0]?.detail).toBe("-s workspace-write; sandbox_workspace_write.writable_roots = []");
    const host = planPolicy(policy, CODEX_DESCRIPTOR, false, {
      configOverrides: { "sandbox_workspace_write.writable_roots": ["/data"] },
    });
    expect(host).toMatchObject({ writableRoots: ["/data"], hostWritableRoots: true });
    expect(codexEnforcement(policy, host, "app-server")[0]?.detail).toBe(
      'thread/start sandbox workspace-write; writable roots besides the working directory (configOverrides sandbox_workspace_write.writable_roots): ["/data"]',
    );
    expect(planPolicy({ sandbox: "read_only" }, CODEX_DESCRIPTOR).writableRoots).toBeUndefined();
  });
});
