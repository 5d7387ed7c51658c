import type { InitializeResponse } from "@agentclientprotocol/sdk";

/**
 * True when an agent's `initialize` answer identifies a Claude Code ACP adapter: its `agentInfo`
 * name ends in `claude-code-acp` or `claude-agent-acp` (Zed's adapters and their forks, e.g.
 * `@zed-industries/claude-code-acp`, `@sudocode-ai/claude-code-acp`), or its capabilities carry
 * `_meta.claudeCode`.
 */
export function isClaudeCodeAdapter(init: InitializeResponse): boolean {
  const name = init.agentInfo?.name;
  if (typeof name === "string" && /claude-(code|agent)-acp$/.test(name)) return true;
  const meta = init.agentCapabilities?._meta;
  return typeof meta === "object" && meta !== null && "claudeCode" in meta;
}

/** The `claudeCode.options.settingSources` of a session `_meta`, if the host set one. */
function hostSettingSources(meta: Readonly<Record<string, unknown>> | undefined): unknown {
  const claudeCode = meta?.["claudeCode"] as Record<string, unknown> | undefined;
  const options = claudeCode?.["options"] as Record<string, unknown> | undefined;
  return options?.["settingSources"];
}

/**
 * The session `_meta` for a Claude Code ACP adapter under a policy that confines it: the host's
 * own, with `claudeCode.options.settingSources: ["user"]` added when it set none, so the adapter's
 * Claude Code loads neither the working directory's settings (`.claude/settings.json` and
 * `.claude/settings.local.json`: hooks that run commands, allow rules that answer asks) nor its
 * `.mcp.json` servers. Undefined when the host chose the sources itself.
 */
export function userSettingsOnly(meta: Readonly<Record<string, unknown>> | undefined): Readonly<Record<string, unknown>> | undefined {
  if (hostSettingSources(meta) !== undefined) return undefined;
  const claudeCode = (meta?.["claudeCode"] ?? {}) as Record<string, unknown>;
  const options = (claudeCode["options"] ?? {}) as Record<string, unknown>;
  return { ...meta, claudeCode: { ...claudeCode, options: { ...options, settingSources: ["user"] } } };
}
