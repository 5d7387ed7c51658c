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

/**
 * Claude Code's tools that only read the output of, or end, a background command by its id: the
 * adapter runs them without a permission ask (ACP kind `execute`). Under the adapter's `mcp__acp__`
 * server (`mcp__acp__BashOutput`, `mcp__acp__KillShell`) the id is a host terminal's.
 */
const CLAUDE_TERMINAL_CONTROL_TOOLS: readonly string[] = Object.freeze(["BashOutput", "KillShell", "KillBash", "TaskOutput", "TaskStop"]);

/** The input fields these tools name their command by (`task_id`, `bash_id`, `shell_id`, by version). */
const TERMINAL_ID_FIELDS: readonly string[] = Object.freeze(["task_id", "bash_id", "shell_id"]);

/** The other fields these tools take, none of which runs anything (`block`, `timeout`, `filter`). */
const TERMINAL_CONTROL_OPTIONS: readonly string[] = Object.freeze(["block", "timeout", "filter"]);

/**
 * True when a call of a Claude Code adapter only reads the output of, or ends, host terminals whose
 * command the host approved: its tool is `BashOutput`, `KillShell`, `KillBash`, `TaskOutput` or
 * `TaskStop` (bare or under the `mcp__acp__` prefix), its input names at least one id (`task_id`,
 * `bash_id`, `shell_id`), every id it names is a string `approved` holds, and it has no field but
 * those and `block`, `timeout`, `filter`. Such a call runs nothing new: it is no unasked execution.
 * Any other call (another tool, an id under another field, a field these tools do not take such as
 * a `command`, an id the host never approved) is false.
 */
export function controlsApprovedTerminal(toolName: string, input: unknown, approved: (terminalId: string) => boolean): boolean {
  const bare = toolName.startsWith("mcp__acp__") ? toolName.slice("mcp__acp__".length) : toolName;
  if (!CLAUDE_TERMINAL_CONTROL_TOOLS.includes(bare)) return false;
  if (typeof input !== "object" || input === null || Array.isArray(input)) return false;
  const fields = input as Record<string, unknown>;
  if (Object.keys(fields).some((field) => !TERMINAL_ID_FIELDS.includes(field) && !TERMINAL_CONTROL_OPTIONS.includes(field))) return false;
  const ids = TERMINAL_ID_FIELDS.filter((field) => field in fields).map((field) => fields[field]);
  return ids.length > 0 && ids.every((id) => typeof id === "string" && approved(id));
}
