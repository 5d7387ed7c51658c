import type { McpServerConfig, RunPolicy } from "@adaptor/driver";

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
