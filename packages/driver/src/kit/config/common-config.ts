import { optionChecks, type OptionShape } from "@adaptor/errors";
import { checkDriverConfig, driverConfigRefusal, inheritEnvOption } from "../../config/check-driver-config.js";
import type { InheritEnv } from "../../process/child-env.js";
import { DEFAULT_KILL_GRACE_MS } from "../../process/constants.js";
import type { SpawnOptions } from "../../process/spawn-options.js";
import { deepFreeze } from "../deep-freeze.js";

/**
 * The configuration every CLI driver built on the kit takes, with one meaning and one check
 * ({@link COMMON_CONFIG_SHAPE}). A driver's config interface extends it with its own fields
 * (and may redeclare a field to document its driver-specific default).
 */
export interface CommonDriverConfig {
  /** Executable: a path, or a name searched on `PATH`. Default: the driver's pinned binary. */
  readonly command?: string;
  /** Default model; a run's `model` overrides it. Default: the CLI's own. */
  readonly model?: string;
  /** Working directory (the workspace). Default `process.cwd()`; a run's `cwd` overrides it. */
  readonly cwd?: string;
  /** Environment entries merged over the inherited ones; `undefined` removes a variable. */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /**
   * Which host variables the CLI (and every tool it runs) inherits: an allowlist of names (a
   * trailing `*` matches a prefix), `true` for the whole `process.env`, `false` for none. Default:
   * the driver's list, a safe base (`SAFE_ENV_BASE`) plus the CLI's own settings.
   */
  readonly inheritEnv?: InheritEnv;
  /** Extra CLI flags, after the driver's own. Flags the driver owns are refused. */
  readonly extraArgs?: readonly string[];
  /**
   * Grace in ms after the CLI's interrupt (and after its stdin closed) before escalating, and
   * between SIGTERM and SIGKILL. Default 2,000; at most 2^31-1.
   */
  readonly killGraceMs?: number;
  /** Longest stdout line in bytes; a longer one fails the run with `RESOURCE_EXHAUSTED`. Default 64 MiB. */
  readonly maxLineBytes?: number;
  /**
   * Bound, in bytes, of the raw stdout and of the raw stderr a run keeps for `result.raw()` (the
   * tail; older bytes are counted in `stdoutBytes`/`stderrBytes` and flagged `...Truncated`). A
   * positive integer. Default 1 MiB (1,048,576) each.
   */
  readonly maxRawBytes?: number;
  /**
   * Idle time in ms after which a process parked between thread turns (or pre-warmed) is ended.
   * Default 300,000 (`DEFAULT_IDLE_MS`). A waiting process does not keep Node alive; the host's exit ends it.
   */
  readonly idleMs?: number;
  /** Processes this driver spawns at once; more wait their turn. Default 4. */
  readonly maxConcurrentSpawns?: number;
  /**
   * ms a run may go without any output from the CLI (stdout or stderr), not counting time spent
   * waiting on a human's approval or a host hook, nor time one of the Agent's host tools
   * (`defineTool`) runs while the CLI waits on it (so a host tool that never returns is ended by the
   * run's `timeoutMs`, a cancel or the CLI's own tool timeout, not by this), before it is ended as stalled: the run rejects with a
   * DriverError coded `TIMEOUT` (op `"stall"`; `FORCE_KILLED` wrapping it when SIGTERM was not
   * enough). `0` turns the watchdog off. Default 600,000 (10 minutes); at most 2^31-1.
   */
  readonly stallTimeoutMs?: number;
}

const is = optionChecks;

/**
 * The runtime check of every {@link CommonDriverConfig} field, for `checkOptions` shapes: non-empty
 * `command`, `model`, `cwd`; `env` an object of strings (or `undefined` to remove); `inheritEnv`
 * true, false or variable names; `extraArgs` strings; `killGraceMs`, `idleMs` and `stallTimeoutMs` in [0, 2^31-1];
 * `maxLineBytes`, `maxRawBytes`, `maxConcurrentSpawns` positive integers. Strings holding NUL or
 * a lone surrogate are refused everywhere.
 */
export const COMMON_CONFIG_SHAPE: OptionShape = Object.freeze({
  command: is.string({ nonEmpty: true }),
  model: is.string({ nonEmpty: true }),
  cwd: is.string({ nonEmpty: true }),
  env: is.env({ allowUndefined: true }),
  inheritEnv: inheritEnvOption,
  extraArgs: is.arrayOf(is.string(), "an array of strings"),
  killGraceMs: is.timerMs(),
  maxLineBytes: is.integer(1),
  maxRawBytes: is.integer(1),
  idleMs: is.timerMs(),
  maxConcurrentSpawns: is.integer(1),
  stallTimeoutMs: is.timerMs(),
});

/** How {@link validateDriverConfig} checks one driver's config beyond the common fields. */
export interface DriverConfigRules {
  /** The driver's own fields and their checks (merged over {@link COMMON_CONFIG_SHAPE}). */
  readonly shape?: OptionShape;
  /**
   * Names peer SDKs give the driver's options, with what to write instead (see `hints` of
   * `checkOptions` in `@adaptor/errors`): an unknown key found here gets that hint.
   */
  readonly hints?: Readonly<Record<string, string>>;
  /** Flags the driver sets itself: `extraArgs` may not hold them (also not as `--flag=value`). */
  readonly ownedFlags?: readonly string[];
  /**
   * Further refusal of one `extraArgs` entry (`next` is the entry after it): the reason, which
   * follows the field name (`"may not set ..."`), or undefined to accept.
   */
  readonly checkArg?: (arg: string, next: string | undefined) => string | undefined;
  /** Further checks of the checked config; `refuse(field, reason)` throws the driver's refusal. */
  readonly check?: (config: Record<string, unknown>, refuse: (field: string, reason: string) => never) => void;
}

/** A deep copy of plain objects and arrays; anything else (functions, class instances) is kept as it is. */
function copyData<T>(value: T): T {
  if (Array.isArray(value)) return value.map(copyData) as T;
  if (typeof value === "object" && value !== null && Object.getPrototypeOf(value) === Object.prototype) {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, copyData(v)])) as T;
  }
  return value;
}

/**
 * Checks a driver's config without I/O and returns a deeply frozen copy (each option read once;
 * the caller's objects are never frozen). `undefined` means "no options".
 *
 * @param driver - the driver type, e.g. `"claude"`; errors name the subject `"<driver> config"`.
 * @throws InvalidDriverConfigError (matches `ErrInvalidDriverConfig`; its `cause` is an
 * `InvalidOptionError` naming the field): an unknown key (with the closest known one suggested),
 * a value that fails {@link COMMON_CONFIG_SHAPE} or `rules.shape`, an owned flag in `extraArgs`, or
 * what `rules.checkArg` / `rules.check` refuse.
 */
export function validateDriverConfig<T extends CommonDriverConfig>(
  driver: string,
  config: T | undefined,
  rules: DriverConfigRules = {},
): T {
  const checked = checkDriverConfig<T>(driver, config, { ...COMMON_CONFIG_SHAPE, ...rules.shape }, rules.hints);
  const refuse = (field: string, reason: string): never => {
    throw driverConfigRefusal(driver, field, reason);
  };
  const extraArgs = checked.extraArgs ?? [];
  for (const [index, arg] of extraArgs.entries()) {
    const flag = arg.split("=", 1)[0] ?? arg;
    if (rules.ownedFlags?.includes(flag)) refuse(`extraArgs[${index}]`, `may not set ${JSON.stringify(arg)}: the driver owns it`);
    const reason = rules.checkArg?.(arg, extraArgs[index + 1]);
    if (reason !== undefined) refuse(`extraArgs[${index}]`, reason);
  }
  rules.check?.(checked as Record<string, unknown>, refuse);
  return deepFreeze(copyData(checked));
}

/**
 * The `spawnCli` options a {@link CommonDriverConfig} sets: `killGraceMs`, `maxLineBytes` and
 * `maxRawBytes`, each only when given (so `spawnCli`'s defaults apply otherwise).
 */
export function spawnLimits(config: CommonDriverConfig): Pick<SpawnOptions, "killGraceMs" | "maxLineBytes" | "maxRawBytes"> {
  return {
    ...(config.killGraceMs !== undefined ? { killGraceMs: config.killGraceMs } : {}),
    ...(config.maxLineBytes !== undefined ? { maxLineBytes: config.maxLineBytes } : {}),
    ...(config.maxRawBytes !== undefined ? { maxRawBytes: config.maxRawBytes } : {}),
  };
}

/** The config's `killGraceMs`, else the default 2,000 ms. */
export function graceMs(config: CommonDriverConfig): number {
  return config.killGraceMs ?? DEFAULT_KILL_GRACE_MS;
}
