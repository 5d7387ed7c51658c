import type { McpTransport, SandboxMode } from "@adaptor/driver";
import { validateDriverConfig, type CommonDriverConfig } from "@adaptor/driver/kit";
import { optionChecks, type OptionShape } from "@adaptor/errors";

/**
 * Session modes of an ACP agent that enforce a sandbox level, by the level: the mode id the driver
 * selects with `session/set_mode` when a run's policy asks for it. A level without a mode is refused
 * before launch with `PolicyCapabilityUnsupportedError`. Example (Gemini CLI):
 * `{ read_only: "plan", workspace_write: "autoEdit", unrestricted: "yolo" }`.
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
  /** MCP transports the agent accepts in `session/new` (ACP requires stdio). Default `["stdio"]`. */
  readonly mcpTransports?: readonly McpTransport[];
  /**
   * ms the agent has, in all, to answer a turn's set-up requests (`initialize`, `session/new`,
   * `session/load` or `session/fork`, the mode and model selection) before the run rejects with a
   * DriverError coded `TIMEOUT` (op: the request waiting) and the process is ended. Default
   * 120,000; at most 2^31-1.
   */
  readonly handshakeTimeoutMs?: number;
}

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
  handshakeTimeoutMs: is.timerMs(),
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
