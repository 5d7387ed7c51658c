/**
 * The tools of a Claude Code ACP adapter that run without a permission ask in every session mode
 * (also `dontAsk`, the read-only mode) and change the working directory (ACP kind `other`, as
 * claude-agent-acp 0.23.1 reports them):
 * - `CronCreate` / `CronDelete`: a scheduled prompt (a durable one is written to
 *   `.claude/scheduled_tasks.json` and runs in later sessions);
 * - `EnterWorktree` / `ExitWorktree`: a git branch and worktree under `.claude/worktrees/` (created,
 *   or removed on exit).
 */
export const CLAUDE_UNASKED_WRITING_TOOLS: readonly string[] = Object.freeze(["CronCreate", "CronDelete", "EnterWorktree", "ExitWorktree"]);

/**
 * The session `_meta` for a Claude Code ACP adapter under a policy that confines it: the host's
 * own, with {@link CLAUDE_UNASKED_WRITING_TOOLS} added to `claudeCode.options.disallowedTools`
 * (after the host's own), so the adapter's Claude Code does not offer them to the model.
 */
export function withoutUnaskedWritingTools(meta: Readonly<Record<string, unknown>> | undefined): Readonly<Record<string, unknown>> {
  const claudeCode = (meta?.["claudeCode"] ?? {}) as Record<string, unknown>;
  const options = (claudeCode["options"] ?? {}) as Record<string, unknown>;
  const own: unknown[] = Array.isArray(options["disallowedTools"]) ? options["disallowedTools"] : [];
  const disallowedTools = [...own, ...CLAUDE_UNASKED_WRITING_TOOLS.filter((tool) => !own.includes(tool))];
  return { ...meta, claudeCode: { ...claudeCode, options: { ...options, disallowedTools } } };
}

/** True for a call of {@link CLAUDE_UNASKED_WRITING_TOOLS} by name. */
export function isClaudeUnaskedWritingTool(toolName: string): boolean {
  return CLAUDE_UNASKED_WRITING_TOOLS.includes(toolName);
}

/** The `claudeCode.options.disallowedTools` names of a session `_meta` (none: empty). */
export function disallowedToolsOf(meta: Readonly<Record<string, unknown>> | undefined): string[] {
  const claudeCode = meta?.["claudeCode"] as Record<string, unknown> | undefined;
  const options = claudeCode?.["options"] as Record<string, unknown> | undefined;
  const tools = options?.["disallowedTools"];
  return Array.isArray(tools) ? tools.filter((tool): tool is string => typeof tool === "string") : [];
}
