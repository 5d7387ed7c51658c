import { describe, expect, it } from "vitest";
import { Agent, FeatureUnsupportedError, findError, InvalidOptionError } from "adaptor";
import { codex } from "@adaptor/codex";

// What the Codex driver cannot deliver is refused before launch (the command below does not
// exist: a spawn would fail with NOT_FOUND instead).

describe("Codex refuses what it cannot deliver", () => {
  it.each(["app-server", "exec"] as const)("subagent definitions over %s: FeatureUnsupportedError, nothing started", async (transport) => {
    await using agent = new Agent(codex({ command: "/nonexistent/codex", transport }));
    const refused = await agent
      .run("hi", { agents: { reviewer: { description: "Reviews", prompt: "You review." } } })
      .catch((e: unknown) => e);
    expect(findError(refused, FeatureUnsupportedError)).toMatchObject({ driver: "codex", feature: "agents" });
  });

  it.each([
    ["allowedTools", { allowedTools: ["Bash"] }],
    ["disallowedTools", { disallowedTools: ["Bash"] }],
  ] as const)("%s (the Claude driver's permission rules): FeatureUnsupportedError, nothing started", async (feature, options) => {
    await using agent = new Agent(codex({ command: "/nonexistent/codex" }));
    const refused = await agent.run("hi", options).catch((e: unknown) => e);
    expect(findError(refused, FeatureUnsupportedError)).toMatchObject({ driver: "codex", feature });
  });

  it.each(["app-server", "exec"] as const)(
    "additionalDirectories with no sandbox in the policy (codex's own config picks it) over %s: FeatureUnsupportedError naming why, nothing started",
    async (transport) => {
      await using agent = new Agent(codex({ command: "/nonexistent/codex", transport }));
      const permissions = [undefined, "inherit", "auto_approve", "auto_deny"] as const;
      for (const permission of transport === "exec" ? ([undefined, "inherit"] as const) : permissions) {
        const policy = permission ? { approvals: { permission } } : undefined;
        const refused = await agent.run("hi", { additionalDirectories: ["/data"], ...(policy ? { policy } : {}) }).catch((e: unknown) => e);
        expect(findError(refused, FeatureUnsupportedError)).toMatchObject({
          driver: "codex",
          feature: "additionalDirectories",
          reason: expect.stringContaining("codex's own config picks its sandbox") as string,
        });
      }
    },
  );

  it.each([
    { sandbox: "workspace_write" },
    { sandbox: "read_only" },
    { sandbox: "unrestricted" },
    { approvals: { permission: "ask" } },
  ] as const)("additionalDirectories under %j is accepted: the run gets as far as starting codex (NOT_FOUND here)", async (policy) => {
    await using agent = new Agent(codex({ command: "/nonexistent/codex" }));
    const started = await agent.run("hi", { policy, additionalDirectories: ["/data"] }).catch((e: unknown) => e);
    expect(findError(started, FeatureUnsupportedError)).toBeUndefined();
    expect(String(started)).toContain("NOT_FOUND");
  });

  it("additionalDirectories under workspace_write with configOverrides writable_roots: InvalidOptionError, nothing started", async () => {
    await using agent = new Agent(
      codex({ command: "/nonexistent/codex", configOverrides: { "sandbox_workspace_write.writable_roots": ["/other"] } }),
    );
    const refused = await agent
      .run("hi", { policy: { sandbox: "workspace_write" }, additionalDirectories: ["/data"] })
      .catch((e: unknown) => e);
    expect(findError(refused, InvalidOptionError)).toMatchObject({ field: "additionalDirectories" });
  });
});
