import type { McpTransport, SandboxMode } from "@adaptor/driver";
import { validateDriverConfig, type CommonDriverConfig } from "@adaptor/driver/kit";
import { optionChecks, type OptionShape } from "@adaptor/errors";

/**
 * Session modes of an ACP agent that enforce a sandbox level, by the level: the mode id the driver
 * selects with `session/set_mode` when a run's policy asks for it. A level without a mode is refused
 * before launch with `PolicyCapabilityUnsupportedError`. Example (Gemini CLI):
 * `{ read_only: "plan", workspace_write: "autoEdit", unrestricted: "yolo" }`. Under the
 * `read_only` mode a tool call of kind `edit`, `delete`, `move` or `execute` that runs without a
 * permission ask fails the run with `policy_violation` (the agent's own configuration loosened the mode).
 */
export type AcpSandboxModes = { readonly [S in SandboxMode]?: string };

/**
 * Configuration of {@link acp}: which ACP agent to run and what it has proved it can do. The
 * common driver fields (`model`, `cwd`, `env`, `inheritEnv` (default `SAFE_ENV_BASE`),
 * `extraArgs` (after `args`), `killGraceMs`, `maxLineBytes`, `maxRawBytes`, `idleMs`,
 * `maxConcurrentSpawns`) mean what they mean for every driver.
 */
export interface AcpConfig extends CommonDriverConfig {
  /** Executable of the agent: an absolute path or a name on `PATH`. Required. */
  readonly command: string;
  /** Arguments that make it speak ACP on stdio, e.g. `["--acp"]`. Default none. */
  readonly args?: readonly string[];
  /** Descriptor type, used in errors and thread fingerprints. Default `"acp"`. */
  readonly type?: string;
  /** Human name of the agent. Default `"ACP agent"`. */
  readonly displayName?: string;
  /**
   * The agent's command-line flag that selects the model, e.g. `"--model"`; then the model goes in
   * argv. Default none: the agent's `model` config option (`session/set_config_option`), else
   * `session/set_model`.
   */
  readonly modelFlag?: string;
  /** Session modes that enforce sandbox levels (see {@link AcpSandboxModes}). Default none: every sandbox value is refused. */
  readonly sandboxModes?: AcpSandboxModes;
  /**
   * Continue a stored session in a new process with `session/load` when the agent offers it.
   * Default true. False for agents whose `session/load` does not work across processes: a thread
   * turn then continues only on the live process that ran the previous turn.
   */
  readonly loadSession?: boolean;
  /** Why `session/load` is off, for the `resume_rejected` message. Default a generic sentence. */
  readonly loadSessionUnsupportedReason?: string;
  /**
   * Fork a stored session with the agent's `session/fork` (an unstable ACP method), for
   * `thread.fork()`. Default false: forks are refused before launch. At run time an agent whose
   * `initialize` answer offers no `sessionCapabilities.fork` fails the run (`agent_error`).
   */
  readonly fork?: boolean;
  /**
   * MCP transports the agent accepts in `session/new` (ACP requires stdio, but an agent may still
   * ignore it: then `[]`, and every MCP server is refused before launch). Default `["stdio"]`.
   */
  readonly mcpTransports?: readonly McpTransport[];
  /**
   * The session mode in which the agent asks (`session/request_permission`) before every file
   * change and command, e.g. `"default"`. With it the driver enforces the permission modes `ask`,
   * `auto_approve` and `auto_deny` (it selects this mode and checks that the agent took it) and the
   * `read_only` sandbox when `sandboxModes` has none (this mode, the host denying every ask for a
   * tool that is not a read, and refusing `fs/write_text_file` and `terminal/create`). Default none:
   * those values are refused before launch.
   */
  readonly askMode?: string;
  /**
   * Tools (by the name the driver gives the call) that start a sub-agent whose own tool calls
   * never reach the host: no `session/request_permission`, no `tool_call` (OpenCode's and Kilo
   * CLI's `task`). Under a policy the agent's asks enforce (`ask`, `auto_deny`, `read_only` through
   * `askMode`) an ask for one is denied without asking, with a `notice` `policy` saying why:
   * approving it would let the sub-agent act unasked and unseen. Default none.
   */
  readonly delegationTools?: readonly string[];
  /**
   * The agent answers `session/set_mode` (or `session/set_config_option` for its mode option) with
   * an error for a mode it does not take and reports no `current_mode_update` or
   * `config_option_update`: its success answer is the check that the mode was applied (a report
   * that did come, or a mode option listed in the answer, still decides). Default false: the driver
   * waits for the agent's report. Only for agents proven so in tests (gemini-cli 0.61.0).
   */
  readonly modeConfirmedByAnswer?: boolean;
  /**
   * Offer the host's file system (`fs/read_text_file`, `fs/write_text_file`) and terminal
   * (`terminal/*`) to the agent, so what it does through them follows the run's policy on the host
   * side (see the package README). Default true. With false, nothing is offered in `initialize`
   * and an agent that calls these methods anyway is answered method-not-found (-32601): nothing is
   * read, written or run. Under `workspace_write` the terminal is offered only with the permission
   * mode `ask` (a command the host spawns is not confined to the working directory).
   */
  readonly hostCapabilities?: boolean;
  /**
   * Accept any policy value and run with what can be enforced; the Result's `enforcement` lists
   * what was not (`enforced: false`), and a session mode the agent did not take is reported there
   * instead of failing the run. Default false: a value the driver cannot enforce is refused before
   * launch (`PolicyCapabilityUnsupportedError`, `HumanDecisionModeUnsupportedError`), and a mode
   * the agent did not take fails the run (`AcpModeNotAppliedError`).
   */
  readonly bestEffortPolicy?: boolean;
  /**
   * ms the agent has, in all, to answer a turn's set-up requests (`initialize`, `session/new`,
   * `session/load` or `session/fork`, the mode and model selection) before the run rejects with a
   * DriverError coded `TIMEOUT` (op: the request waiting) and the process is ended. Default
   * 120,000; at most 2^31-1.
   */
  readonly handshakeTimeoutMs?: number;
  /**
   * Sent as `_meta` of `session/new`, `session/load` and `session/fork`: agent-specific session
   * options (e.g. the Claude adapters read `claudeCode.options` there). Default none.
   */
  readonly sessionMeta?: Readonly<Record<string, unknown>>;
  /**
   * Let an agent the driver recognizes load the working directory's own configuration under a
   * policy that confines it (a `sandbox` other than `unrestricted`, or a permission mode other than
   * `inherit`). Default false: to an agent whose `initialize` answer identifies a Claude Code ACP
   * adapter (`agentInfo.name` ending in `claude-code-acp` or `claude-agent-acp`, or
   * `agentCapabilities._meta.claudeCode`) such a run sends `claudeCode.options.settingSources:
   * ["user"]` in the session `_meta` unless `sessionMeta` sets `settingSources` itself, with a
   * `notice` `policy`: the workspace's `.claude/settings.json` hooks and `.mcp.json` servers would
   * run commands no mode governs. Such a run also adds the adapter's tools that write without a
   * permission ask in every mode (`CronCreate`, `CronDelete`, `EnterWorktree`, `ExitWorktree`) to
   * `claudeCode.options.disallowedTools` (after the host's own), with a `notice` `policy`; one of
   * them reported completed without an ask fails the run `policy_violation` under `read_only` too.
   * Under a permission mode other than `inherit` it also sends `permissions.ask` rules for every
   * built-in tool but the read ones in `claudeCode.options.extraArgs.settings` (merged with the
   * host's own settings there or in `claudeCode.options.settings`), with a `notice` `policy`, so
   * read-only shell commands are asked too; a settings file path there cannot be merged and such a
   * run is refused (`HumanDecisionModeUnsupportedError`) when its session opens.
   * Any other agent's own files are outside the driver's checks.
   */
  readonly workspaceSettings?: boolean;
  /**
   * Offer `stream.interrupt()`: ACP's `session/cancel` stops the running turn, whose answer
   * `cancelled` is an interrupted success, and the process and session serve the next turn. A
   * turn not ended `killGraceMs` after the cancel is ended with its process, still as interrupted.
   * Default true; false for an agent whose next turn after a cancel does not run (the SDK then
   * refuses the interrupt with `FeatureUnsupportedError`).
   */
  readonly interrupt?: boolean;
  /**
   * Most bytes of output the host keeps per terminal of the agent (`terminal/create`): the agent's
   * `outputByteLimit` is lowered to it (without one the host keeps 1 MiB). An integer from 1 to
   * 64 MiB (67,108,864), so a `terminal/output` answer (at most 6 JSON characters per byte kept)
   * stays well within what the connection can write. Default 16 MiB (16,777,216).
   */
  readonly maxTerminalOutputBytes?: number;
}

/** Default of {@link AcpConfig.maxTerminalOutputBytes}: 16 MiB. */
export const DEFAULT_MAX_TERMINAL_OUTPUT_BYTES = 16 * 1024 * 1024;
/** Upper bound of {@link AcpConfig.maxTerminalOutputBytes}: 64 MiB. */
const MAX_TERMINAL_OUTPUT_BYTES = 64 * 1024 * 1024;

const is = optionChecks;
const SANDBOX_LEVELS = ["read_only", "workspace_write", "unrestricted"];

/** The options of {@link AcpConfig} beyond the common driver fields, with their checks. */
export const ACP_CONFIG_SHAPE: OptionShape = {
  command: is.string({ nonEmpty: true }),
  args: is.arrayOf(is.string(), "an array of strings"),
  type: is.string({ nonEmpty: true }),
  displayName: is.string({ nonEmpty: true }),
  modelFlag: is.string({ nonEmpty: true }),
  sandboxModes: is.recordOf(is.string({ nonEmpty: true }), { key: is.oneOf(...SANDBOX_LEVELS) }),
  loadSession: is.boolean(),
  loadSessionUnsupportedReason: is.string({ nonEmpty: true }),
  fork: is.boolean(),
  mcpTransports: is.arrayOf(is.oneOf("stdio", "http", "sse"), 'an array of "stdio", "http", "sse"'),
  askMode: is.string({ nonEmpty: true }),
  delegationTools: is.arrayOf(is.string({ nonEmpty: true }), "an array of tool names"),
  modeConfirmedByAnswer: is.boolean(),
  hostCapabilities: is.boolean(),
  bestEffortPolicy: is.boolean(),
  handshakeTimeoutMs: is.timerMs(),
  sessionMeta: is.object(),
  workspaceSettings: is.boolean(),
  interrupt: is.boolean(),
  maxTerminalOutputBytes: is.integer(1, MAX_TERMINAL_OUTPUT_BYTES),
};

/**
 * Checks an ACP config without I/O and returns a deeply frozen copy.
 * @param driver - the descriptor type, for the error's subject.
 * @throws InvalidDriverConfigError (matches `ErrInvalidDriverConfig`; its `cause` is an
 * `InvalidOptionError` naming the field): not an object, a missing or empty `command`, an unknown
 * key, a value of the wrong type, a string with NUL or a lone surrogate, a sandbox level or MCP
 * transport that does not exist, a timer beyond 2^31-1 ms, a limit that is not a positive integer.
 */
export function validateAcpConfig(driver: string, config: unknown): AcpConfig {
  return validateDriverConfig<AcpConfig>(driver, config as AcpConfig | undefined, {
    shape: ACP_CONFIG_SHAPE,
    check: (checked, refuse) => {
      if (checked["command"] === undefined) refuse("command", "is required");
    },
  });
}
