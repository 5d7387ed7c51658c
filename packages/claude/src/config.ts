import { checkDriverConfig, driverConfigRefusal, inheritEnvOption } from "@adaptor/driver";
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

/** Configuration of the Claude Code driver. Captured (copied) at construction; no I/O until a run. */
export interface ClaudeConfig {
  /** Executable. Default: the pinned binary of `@anthropic-ai/claude-code` installed with this package, else `claude` on PATH. */
  readonly command?: string;
  /** Default model, e.g. `"claude-sonnet-4-5"`; a run's `model` overrides it. */
  readonly model?: string;
  /** Working directory (the workspace). Default `process.cwd()`; a run's `cwd` overrides it. */
  readonly cwd?: string;
  /** Environment entries merged over the inherited one; `undefined` removes a variable. */
  readonly env?: Readonly<Record<string, string | undefined>>;
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
  /** Grace in ms after the interrupt request and again after SIGTERM before escalating. Default 2000. */
  readonly killGraceMs?: number;
  /** Longest stdout line in bytes. Default 64 MiB. */
  readonly maxLineBytes?: number;
  /**
   * Bound, in bytes, of the raw stdout and of the raw stderr a run keeps for `result.raw()` (the
   * tail; older bytes are counted in `stdoutBytes`/`stderrBytes` and flagged `...Truncated`). A
   * positive integer. Default 1 MiB (1,048,576) each.
   */
  readonly maxRawBytes?: number;
  /**
   * Also load the MCP servers of the user's own Claude configuration (user, project, local
   * scopes). Default false: the CLI sees only the run's servers (`--strict-mcp-config`).
   */
  readonly userMcpServers?: boolean;
  /** Idle time in ms after which a process parked between thread turns is ended. Default 300,000. */
  readonly idleMs?: number;
  /** Processes spawned at once by this driver (p-queue). Default 4. */
  readonly maxConcurrentSpawns?: number;
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
  "--dangerously-skip-permissions",
  "--allow-dangerously-skip-permissions",
  "--settings",
]);

const is = optionChecks;

/** Every option of {@link ClaudeConfig} with its runtime check; a key not listed here is refused. */
const CLAUDE_CONFIG_SHAPE: OptionShape = {
  command: is.string({ nonEmpty: true }),
  model: is.string({ nonEmpty: true }),
  cwd: is.string({ nonEmpty: true }),
  env: is.env({ allowUndefined: true }),
  inheritEnv: inheritEnvOption,
  configDir: is.string({ nonEmpty: true }),
  extraArgs: is.arrayOf(is.string(), "an array of strings"),
  partialMessages: is.boolean(),
  killGraceMs: is.timerMs(),
  maxLineBytes: is.integer(1),
  maxRawBytes: is.integer(1),
  userMcpServers: is.boolean(),
  idleMs: is.timerMs(),
  maxConcurrentSpawns: is.integer(1),
  askForEveryTool: is.boolean(),
};

/**
 * Checks a config without I/O and returns a frozen copy of it (each option read once; `extraArgs`
 * and `env` copied). `undefined` means "no options".
 * @throws InvalidDriverConfigError (matches `ErrInvalidDriverConfig`; its `cause` is an
 * `InvalidOptionError` naming the field): an unknown key (with the closest known one suggested),
 * a value of the wrong type, an `inheritEnv` that is not true, false or an array of variable
 * names, an empty `command`, `model`, `cwd` or `configDir`, a string holding NUL or a lone UTF-16
 * surrogate, a `killGraceMs` or `idleMs` outside [0, 2^31-1] ms (a Node timer cannot wait longer),
 * a `maxLineBytes`, `maxRawBytes` or `maxConcurrentSpawns` that is not a positive integer, or an
 * owned flag in `extraArgs`.
 */
export function validateClaudeConfig(config: ClaudeConfig | undefined): ClaudeConfig {
  const checked = checkDriverConfig<ClaudeConfig>("claude", config, CLAUDE_CONFIG_SHAPE);
  for (const [index, arg] of (checked.extraArgs ?? []).entries()) {
    const flag = arg.split("=", 1)[0] ?? arg;
    if (OWNED_FLAGS.includes(flag) || (/^-[a-zA-Z]{2,}$/.test(arg) && /[prc]/.test(arg.slice(1)))) {
      throw driverConfigRefusal("claude", `extraArgs[${index}]`, `may not set ${JSON.stringify(arg)}: the driver owns it`);
    }
  }
  return Object.freeze({
    ...checked,
    ...(checked.extraArgs ? { extraArgs: Object.freeze([...checked.extraArgs]) } : {}),
    ...(checked.env ? { env: Object.freeze({ ...checked.env }) } : {}),
    ...(Array.isArray(checked.inheritEnv) ? { inheritEnv: Object.freeze([...checked.inheritEnv]) } : {}),
  });
}
