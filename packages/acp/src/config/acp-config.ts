import { checkDriverConfig, driverConfigRefusal, inheritEnvOption, type McpTransport, type SandboxMode } from "@adaptor/driver";
import type { InheritEnv } from "@adaptor/driver/process";
import { optionChecks, type OptionShape } from "@adaptor/errors";

/**
 * Session modes of an ACP agent that enforce a sandbox level, by the level: the mode id the driver
 * selects with `session/set_mode` when a run's policy asks for it. A level without a mode is refused
 * before launch with `PolicyCapabilityUnsupportedError`. Example (Gemini CLI):
 * `{ read_only: "plan", workspace_write: "autoEdit", unrestricted: "yolo" }`.
 */
export type AcpSandboxModes = { readonly [S in SandboxMode]?: string };

/** Configuration of {@link acp}: which ACP agent to run and what it has proved it can do. */
export interface AcpConfig {
  /** Executable of the agent: an absolute path or a name on `PATH`. Required. */
  readonly command: string;
  /** Arguments that make it speak ACP on stdio, e.g. `["--acp"]`. Default none. */
  readonly args?: readonly string[];
  /** Descriptor type, used in errors and thread fingerprints. Default `"acp"`. */
  readonly type?: string;
  /** Human name of the agent. Default `"ACP agent"`. */
  readonly displayName?: string;
  /** Model for every run (a run's `model` overrides it). Applied with `modelFlag`, else the agent's `session/set_model`. */
  readonly model?: string;
  /** The agent's command-line flag that selects the model, e.g. `"--model"`; then the model goes in argv. Default none. */
  readonly modelFlag?: string;
  /** Working directory (a run's `cwd` overrides it). Default `process.cwd()`. */
  readonly cwd?: string;
  /** Variables merged over the inherited environment; `undefined` removes one. */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /**
   * Which host variables the agent inherits: an allowlist (a trailing `*` matches a prefix), `true`
   * for all of `process.env`, `false` for none. Default `SAFE_ENV_BASE` of `@adaptor/driver/process`.
   */
  readonly inheritEnv?: InheritEnv;
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
  /** Milliseconds between SIGTERM and SIGKILL, and the wait after `session/cancel`. Default 2000. */
  readonly killGraceMs?: number;
  /** Longest stdout message in bytes. Default 64 MiB. */
  readonly maxLineBytes?: number;
  /** Raw stdout/stderr kept per run for `Result.raw()`, in bytes per stream. Default 1 MiB. */
  readonly maxRawBytes?: number;
  /** How long a process parked between thread turns waits for the next turn, in ms. Default 300,000. */
  readonly idleMs?: number;
}

const is = optionChecks;
const SANDBOX_LEVELS = ["read_only", "workspace_write", "unrestricted"];

/** Every option of {@link AcpConfig} with its check; a key not listed here is refused. */
export const ACP_CONFIG_SHAPE: OptionShape = {
  command: is.string({ nonEmpty: true }),
  args: is.arrayOf(is.string(), "an array of strings"),
  type: is.string({ nonEmpty: true }),
  displayName: is.string({ nonEmpty: true }),
  model: is.string({ nonEmpty: true }),
  modelFlag: is.string({ nonEmpty: true }),
  cwd: is.string({ nonEmpty: true }),
  env: is.env({ allowUndefined: true }),
  inheritEnv: inheritEnvOption,
  sandboxModes: is.recordOf(is.string({ nonEmpty: true }), { key: is.oneOf(...SANDBOX_LEVELS) }),
  loadSession: is.boolean(),
  loadSessionUnsupportedReason: is.string({ nonEmpty: true }),
  fork: is.boolean(),
  mcpTransports: is.arrayOf(is.oneOf("stdio", "http", "sse"), "an array of \"stdio\", \"http\", \"sse\""),
  killGraceMs: is.timerMs(),
  maxLineBytes: is.integer(1),
  maxRawBytes: is.integer(1),
  idleMs: is.timerMs(),
};

/**
 * Checks an ACP config without I/O and returns a frozen copy (arrays and records copied).
 * @param driver - the descriptor type, for the error's subject.
 * @throws InvalidDriverConfigError (matches `ErrInvalidDriverConfig`; its `cause` is an
 * `InvalidOptionError` naming the field): not an object, a missing or empty `command`, an unknown
 * key, a value of the wrong type, a string with NUL or a lone surrogate, a sandbox level that does
 * not exist, an MCP transport that does not exist, a timer beyond 2^31-1 ms.
 */
export function validateAcpConfig(driver: string, config: unknown): AcpConfig {
  const checked = checkDriverConfig<AcpConfig>(driver, config, ACP_CONFIG_SHAPE);
  if (config === undefined || checked.command === undefined) throw driverConfigRefusal(driver, "command", "is required");
  return Object.freeze({
    ...checked,
    ...(checked.args ? { args: Object.freeze([...checked.args]) } : {}),
    ...(checked.env ? { env: Object.freeze({ ...checked.env }) } : {}),
    ...(Array.isArray(checked.inheritEnv) ? { inheritEnv: Object.freeze([...checked.inheritEnv]) } : {}),
    ...(checked.sandboxModes ? { sandboxModes: Object.freeze({ ...checked.sandboxModes }) } : {}),
    ...(checked.mcpTransports ? { mcpTransports: Object.freeze([...checked.mcpTransports]) } : {}),
  });
}
