import type { McpServerConfig, PolicyEnforcement, RunPolicy } from "@adaptor/driver";
import { reportEnforcement } from "@adaptor/driver/kit";

/** Tools that can change files or run code; denied under the `read_only` sandbox. */
const WRITE_TOOLS = ["Write", "Edit", "MultiEdit", "NotebookEdit", "Bash"];
/** Tools that reach the web; denied when `webSearch` is `deny`. */
const WEB_TOOLS = ["WebSearch", "WebFetch"];

/** What a run policy adds to a claude launch. */
export interface PolicyLaunch {
  readonly args: string[];
  readonly env: Record<string, string>;
  /** Settings for `--settings <file>`, when the policy needs any. */
  readonly settings?: { permissions: { deny: string[]; allow: string[] } };
}

/**
 * Maps the enforceable parts of a run policy to Claude flags and settings (each claim proved in
 * test/policy.test.ts on the real binary): `read_only` → permission deny rules for every
 * writing or code-running tool; `unrestricted` → `bypassPermissions` (with `IS_SANDBOX=1` as root,
 * which the CLI otherwise refuses, docs/protocols.md); `webSearch: "deny"` → deny rules for the
 * web tools; trusted MCP servers (the SDK's host tools) → allow rules. Approval modes are applied
 * by the SDK, not the CLI.
 */
export function policyLaunch(policy: RunPolicy | undefined, mcpServers: readonly McpServerConfig[] = []): PolicyLaunch {
  const deny: string[] = [];
  // `mcp__<server>` allows every tool of a trusted server (the SDK's host tools) without asking.
  const allow = mcpServers.filter((server) => server.trusted).map((server) => `mcp__${server.name}`);
  const args: string[] = [];
  const env: Record<string, string> = {};
  if (policy?.sandbox === "read_only") deny.push(...WRITE_TOOLS);
  if (policy?.sandbox === "unrestricted") {
    args.push("--permission-mode", "bypassPermissions");
    if (process.getuid?.() === 0) env.IS_SANDBOX = "1";
  }
  if (policy?.webSearch === "deny") deny.push(...WEB_TOOLS);
  return { args, env, ...(deny.length || allow.length ? { settings: { permissions: { deny, allow } } } : {}) };
}

/**
 * What a claude run enforced of its policy, for `DriverResponse.enforcement`: `read_only` and
 * `webSearch: "deny"` by permission deny rules in the `--settings` file, `unrestricted` by
 * `--permission-mode bypassPermissions`; approval modes by the SDK's broker answering the CLI's
 * `can_use_tool` requests (`--permission-prompt-tool stdio`).
 */
export function claudeEnforcement(policy: RunPolicy | undefined): PolicyEnforcement[] {
  return reportEnforcement(policy, (field, value) => {
    if (field === "sandbox" && value === "read_only")
      return { mechanisms: ["cli_config"], detail: `--settings permissions.deny: ${WRITE_TOOLS.join(", ")}` };
    if (field === "sandbox") return { mechanisms: ["cli_flag"], detail: "--permission-mode bypassPermissions" };
    if (field === "webSearch") return { mechanisms: ["cli_config"], detail: `--settings permissions.deny: ${WEB_TOOLS.join(", ")}` };
    return { mechanisms: ["approval"], detail: "the CLI asks through --permission-prompt-tool stdio (can_use_tool); the SDK answers" };
  });
}
