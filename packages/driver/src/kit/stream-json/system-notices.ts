import type { DriverEvent } from "@adaptor/driver";

/** The strings of `value`, when it is an array (other entries skipped); undefined otherwise. */
function strings(value: unknown): string[] | undefined {
  return Array.isArray(value) ? value.filter((entry): entry is string => typeof entry === "string") : undefined;
}

/** `key: value` when `value` is defined, else nothing: for spreading into notice data. */
function field(key: string, value: unknown): Record<string, unknown> {
  return value === undefined ? {} : { [key]: value };
}

/** {@link field} of `value` when it is of type `type` (`"string"`, `"number"`), else nothing. */
function typed(key: string, value: unknown, type: "string" | "number"): Record<string, unknown> {
  return typeof value === type ? { [key]: value } : {};
}

/**
 * The `session.init` notice of a `system` `init` line: what the CLI set the session up with, in
 * the SDK's terms (the Claude Agent SDK's `SDKSystemMessage`). `data`: `sessionId`, `model`,
 * `cwd`, `tools` (the tool names offered to the model), `mcpServers` (`{ name, status }` each),
 * `permissionMode`, `slashCommands`, `agents`, `skills`, `cliVersion`; each only when the line
 * carries it.
 */
export function sessionInitNotice(line: Record<string, unknown>): DriverEvent {
  const servers = Array.isArray(line.mcp_servers)
    ? line.mcp_servers.flatMap((entry) => {
        const server = entry as { name?: unknown; status?: unknown } | null;
        return typeof server?.name === "string" ? [{ name: server.name, status: String(server.status) }] : [];
      })
    : undefined;
  return {
    type: "notice",
    kind: "session.init",
    data: {
      ...typed("sessionId", line.session_id, "string"),
      ...typed("model", line.model, "string"),
      ...typed("cwd", line.cwd, "string"),
      ...field("tools", strings(line.tools)),
      ...field("mcpServers", servers),
      ...typed("permissionMode", line.permissionMode, "string"),
      ...field("slashCommands", strings(line.slash_commands)),
      ...field("agents", strings(line.agents)),
      ...field("skills", strings(line.skills)),
      ...typed("cliVersion", line.claude_code_version, "string"),
    },
  };
}

/**
 * The `context.compacted` notice of a `system` `compact_boundary` line: the CLI replaced the
 * conversation's history with a summary (the Claude Agent SDK's `SDKCompactBoundaryMessage`).
 * `data`: `trigger` (`"manual"` for a `/compact` prompt, `"auto"` when the context was full),
 * `preTokens` (the context's size before, in tokens), `postTokens` (after, when reported).
 */
export function contextCompactedNotice(line: Record<string, unknown>): DriverEvent {
  const meta = (line.compact_metadata ?? {}) as { trigger?: unknown; pre_tokens?: unknown; post_tokens?: unknown };
  return {
    type: "notice",
    kind: "context.compacted",
    message: "conversation history replaced by a summary",
    data: {
      ...typed("trigger", meta.trigger, "string"),
      ...typed("preTokens", meta.pre_tokens, "number"),
      ...typed("postTokens", meta.post_tokens, "number"),
    },
  };
}
