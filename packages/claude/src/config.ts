import { validateDriverConfig, type CommonDriverConfig } from "@adaptor/driver/kit";
import { driverConfigHints } from "@adaptor/driver";
import { optionChecks, type OptionShape } from "@adaptor/errors";
import { SAFE_ENV_BASE, type InheritEnv } from "@adaptor/driver/process";

/**
 * The host variables the claude CLI inherits when `inheritEnv` is unset: the safe base
 * (`SAFE_ENV_BASE`: PATH, HOME, USER, LOGNAME, SHELL, LANG, LANGUAGE, LC_*, TZ, TERM, TMPDIR, TMP,
 * TEMP, XDG_* directories, proxies, CA certificates) plus what the CLI reads for its own
 * authentication and settings: `ANTHROPIC_*`, `CLAUDE_*`, `DISABLE_*`, `MCP_TIMEOUT`,
 * `MCP_TOOL_TIMEOUT`, `MAX_THINKING_TOKENS`, `BASH_DEFAULT_TIMEOUT_MS`, `BASH_MAX_TIMEOUT_MS`,
 * `BASH_MAX_OUTPUT_LENGTH`. Extend it for Bedrock or Vertex, e.g.
 * `inheritEnv: [...CLAUDE_INHERITED_ENV, "AWS_PROFILE", "AWS_REGION"]`.
 */
export const CLAUDE_INHERITED_ENV: readonly string[] = Object.freeze([
  ...SAFE_ENV_BASE,
  "ANTHROPIC_*",
  "CLAUDE_*",
  "DISABLE_*",
  "MCP_TIMEOUT",
  "MCP_TOOL_TIMEOUT",
  "MAX_THINKING_TOKENS",
  "BASH_DEFAULT_TIMEOUT_MS",
  "BASH_MAX_TIMEOUT_MS",
  "BASH_MAX_OUTPUT_LENGTH",
]);

/**
 * Configuration of the Claude Code driver: the kit's common fields (`CommonDriverConfig`: command,
 * model, cwd, env, inheritEnv, extraArgs, killGraceMs, maxLineBytes, maxRawBytes, idleMs,
 * maxConcurrentSpawns) plus Claude's own. Captured (copied) at construction; no I/O until a run.
 */
export interface ClaudeConfig extends CommonDriverConfig {
  /** Executable. Default: the pinned binary of `@anthropic-ai/claude-code` installed with this package, else `claude` on PATH. */
  readonly command?: string;
  /** Default model, e.g. `"claude-sonnet-4-5"`; a run's `model` overrides it. */
  readonly model?: string;
  /**
   * Which host variables the CLI (and so its Bash tool, whose output goes back to the model)
   * inherits: an allowlist of names (a trailing `*` matches a prefix), `true` for the whole
   * `process.env`, `false` for none (pass a complete `env`). Default {@link CLAUDE_INHERITED_ENV}: a
   * safe base plus the CLI's own `ANTHROPIC_*`/`CLAUDE_*` settings, so cloud keys, tokens and
   * database URLs of the host stay home unless asked for.
   */
  readonly inheritEnv?: InheritEnv;
  /** `CLAUDE_CONFIG_DIR` for the CLI: where it keeps settings, sessions and skills. */
  readonly configDir?: string;
  /** Extra CLI flags. Flags the driver owns (see {@link OWNED_FLAGS}) are rejected. */
  readonly extraArgs?: readonly string[];
  /** Stream text and thinking deltas (`--include-partial-messages`). Default true. */
  readonly partialMessages?: boolean;
  /**
   * Also load the MCP servers of the user's own Claude configuration (user, project, local
   * scopes). Default false: the CLI sees only the run's servers (`--strict-mcp-config`).
   */
  readonly userMcpServers?: boolean;
  /**
   * Also load the settings files of the working directory (`.claude/settings.json` and
   * `.claude/settings.local.json`, the CLI's `project` and `local` setting sources): their hooks,
   * which run shell commands of the workspace's choosing, their permission rules and mode, their
   * env. Default false: only the user's settings (in `configDir`) and the driver's own apply
   * (`--setting-sources user`), so a cloned repository cannot run commands or answer approvals
   * in the host's place. `CLAUDE.md` memory files load either way. A run with a `read_only`
   * sandbox or an `ask` / `auto_deny` permission mode is refused with
   * `PolicyCapabilityUnsupportedError` when this is true: a workspace hook runs outside both.
   */
  readonly workspaceSettings?: boolean;
  /**
   * Load the user's settings file (`settings.json` in `configDir`, the CLI's `user` setting
   * source): its hooks, which run shell commands on the user's behalf, its permission rules, its
   * env. Default true. `false` launches the CLI with no settings file but the driver's own
   * (`--setting-sources ""`, or only the workspace's with `workspaceSettings`), the counterpart of
   * the Claude Agent SDK's `settingSources: []`: an agent isolated from the machine's Claude
   * configuration, with only what the run configures. The user's MCP servers follow
   * `userMcpServers`; credentials and sessions stay in `configDir` either way.
   */
  readonly userSettings?: boolean;
  /**
   * Ask the host for every tool call, including those the CLI allows by itself (reads inside the
   * working directory, read-only shell commands such as `ls`): the driver registers a `PreToolUse`
   * hook over the control protocol that answers "ask" for each call, so each one becomes an
   * approval. Tools of trusted MCP servers (the SDK's host tools) stay allowed without asking, and
   * the sandbox's deny rules still refuse before anyone is asked. Default false.
   */
  readonly askForEveryTool?: boolean;
}

/** Flags the driver sets itself; `extraArgs` may not contain them (the protocol depends on them). */
export const OWNED_FLAGS: readonly string[] = Object.freeze([
  "-p",
  "--print",
  "--output-format",
  "--input-format",
  "--verbose",
  "--permission-prompt-tool",
  "--permission-prompts",
  "--include-partial-messages",
  "--replay-user-messages",
  "--model",
  "--resume",
  "-r",
  "--continue",
  "-c",
  "--fork-session",
  "--resume-session-at",
  "--resume-drops-turn",
  "--system-prompt-snapshot",
  "--session-id",
  "--json-schema",
  "--mcp-config",
  "--strict-mcp-config",
  "--permission-mode",
  "--tools",
  "--dangerously-skip-permissions",
  "--allow-dangerously-skip-permissions",
  "--settings",
  "--setting-sources",
]);

const is = optionChecks;

/** Claude's own options with their runtime checks (the common ones come from the kit); a key not listed is refused. */
const CLAUDE_CONFIG_SHAPE: OptionShape = {
  configDir: is.string({ nonEmpty: true }),
  partialMessages: is.boolean(),
  userMcpServers: is.boolean(),
  workspaceSettings: is.boolean(),
  userSettings: is.boolean(),
  askForEveryTool: is.boolean(),
};

/** The Claude Agent SDK's names for options, with what to write instead (those this config takes are never consulted). */
const CLAUDE_PEER_HINTS = driverConfigHints("Claude Agent SDK");

/**
 * Checks a config without I/O and returns a frozen copy of it (each option read once; `extraArgs`
 * and `env` copied). `undefined` means "no options".
 * @throws InvalidDriverConfigError (matches `ErrInvalidDriverConfig`; its `cause` is an
 * `InvalidOptionError` naming the field): an unknown key (with the closest known one suggested),
 * a value of the wrong type, an `inheritEnv` that is not true, false or an array of variable
 * names, an empty `command`, `model`, `cwd` or `configDir`, a string holding NUL or a lone UTF-16
 * surrogate, a `killGraceMs` or `idleMs` outside [0, 2^31-1] ms (a Node timer cannot wait longer),
 * a `maxLineBytes`, `maxRawBytes` or `maxConcurrentSpawns` that is not a positive integer, or an
 * owned flag in `extraArgs` (also inside a group of short flags such as `-pc`).
 */
export function validateClaudeConfig(config: ClaudeConfig | undefined): ClaudeConfig {
  return validateDriverConfig("claude", config, {
    shape: CLAUDE_CONFIG_SHAPE,
    hints: CLAUDE_PEER_HINTS,
    ownedFlags: OWNED_FLAGS,
    checkArg: (arg) =>
      /^-[a-zA-Z]{2,}$/.test(arg) && /[prc]/.test(arg.slice(1)) ? `may not set ${JSON.stringify(arg)}: the driver owns it` : undefined,
  });
}
