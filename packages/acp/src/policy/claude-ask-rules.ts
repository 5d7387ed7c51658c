/**
 * The built-in tools of a Claude Code ACP adapter that get a `permissions.ask` rule under the
 * `ask` and `auto_deny` permission modes: every built-in but the ones that only read (Read, Glob,
 * Grep, LS, NotebookRead, ToolSearch, the task list), as the claude driver's every-call ask hook.
 * In its `default` mode Claude Code runs read-only shell commands (`ls`, `echo x`) and some web
 * fetches without asking; an ask rule outranks that and the allow rules of the user's settings.
 * Names the pinned Claude Code does not have are ignored by it; a built-in a later one adds is
 * left to its `default` mode.
 */
export const CLAUDE_ASKED_TOOLS: readonly string[] = Object.freeze([
  "Agent",
  "Task",
  "Bash",
  "BashOutput",
  "KillShell",
  "TaskOutput",
  "TaskStop",
  "Edit",
  "MultiEdit",
  "Write",
  "NotebookEdit",
  "WebFetch",
  "WebSearch",
  "Skill",
  "SlashCommand",
  "EnterPlanMode",
  "ExitPlanMode",
  "CronList",
  "ListMcpResourcesTool",
  "ReadMcpResourceTool",
]);

type Settings = Record<string, unknown>;

/** The host's own Claude Code settings as an object (none: empty); `null` for a settings file path. */
function hostSettings(own: unknown): Settings | null {
  if (own === undefined) return {};
  if (typeof own === "object" && own !== null && !Array.isArray(own)) return own as Settings;
  if (typeof own !== "string" || !own.trim().startsWith("{")) return null;
  try {
    const parsed: unknown = JSON.parse(own);
    return typeof parsed === "object" && parsed !== null && !Array.isArray(parsed) ? (parsed as Settings) : null;
  } catch {
    return null;
  }
}

/**
 * The session `_meta` for a Claude Code ACP adapter under the `ask` or `auto_deny` permission
 * mode: the host's own, with {@link CLAUDE_ASKED_TOOLS} added to the `permissions.ask` rules of
 * the settings Claude Code gets as `--settings` (`claudeCode.options.extraArgs.settings`, a JSON
 * string: both pinned adapters pass `extraArgs` on to the Claude Agent SDK). The host's own
 * settings (`claudeCode.options.settings` or `extraArgs.settings`, an object or a JSON string)
 * are kept, merged into that one. Undefined when the host's settings are a file path, which
 * cannot be merged.
 */
export function withAskRules(meta: Readonly<Record<string, unknown>> | undefined): Readonly<Record<string, unknown>> | undefined {
  const claudeCode = (meta?.["claudeCode"] ?? {}) as Settings;
  const { settings: optionSettings, ...options } = (claudeCode["options"] ?? {}) as Settings;
  const extraArgs = (options["extraArgs"] ?? {}) as Settings;
  const own = hostSettings(optionSettings ?? extraArgs["settings"]);
  if (own === null) return undefined;
  const permissions = (own["permissions"] ?? {}) as Settings;
  const ask: unknown[] = Array.isArray(permissions["ask"]) ? permissions["ask"] : [];
  const settings = { ...own, permissions: { ...permissions, ask: [...ask, ...CLAUDE_ASKED_TOOLS.filter((tool) => !ask.includes(tool))] } };
  return {
    ...meta,
    claudeCode: { ...claudeCode, options: { ...options, extraArgs: { ...extraArgs, settings: JSON.stringify(settings) } } },
  };
}
