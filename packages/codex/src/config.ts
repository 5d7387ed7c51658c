import { validateDriverConfig, type CommonDriverConfig } from "@adaptor/driver/kit";
import { driverConfigHints } from "@adaptor/driver";
import { optionChecks, type OptionShape } from "@adaptor/errors";
import { configKeySetBy } from "./config-key.js";
import { SAFE_ENV_BASE, type InheritEnv } from "@adaptor/driver/process";

/**
 * The host variables the codex CLI inherits when `inheritEnv` is unset: the safe base
 * (`SAFE_ENV_BASE`: PATH, HOME, USER, LOGNAME, SHELL, LANG, LANGUAGE, LC_*, TZ, TERM, TMPDIR, TMP,
 * TEMP, XDG_* directories, proxies, CA certificates) plus what the CLI reads for its own
 * authentication and settings: `OPENAI_*`, `CODEX_*`, `RUST_LOG`. Extend it for other providers,
 * e.g. `inheritEnv: [...CODEX_INHERITED_ENV, "AZURE_OPENAI_API_KEY"]`.
 */
export const CODEX_INHERITED_ENV: readonly string[] = Object.freeze([...SAFE_ENV_BASE, "OPENAI_*", "CODEX_*", "RUST_LOG"]);

/** How the driver talks to codex. */
export type CodexTransport = "app-server" | "exec";

/**
 * Configuration of the Codex driver: the kit's common fields (`CommonDriverConfig`: command,
 * model, cwd, env, inheritEnv, extraArgs, killGraceMs, maxLineBytes, maxRawBytes, idleMs,
 * maxConcurrentSpawns) plus Codex's own. Captured (copied) at construction; no I/O until a run.
 */
export interface CodexConfig extends CommonDriverConfig {
  /** Executable. Default: the pinned native binary of `@openai/codex` installed with this package, else `codex` on PATH. */
  readonly command?: string;
  /**
   * `"app-server"` (default): `codex app-server` JSON-RPC with streaming, approvals, resume and fork.
   * `"exec"`: the batch `codex exec --json` (no approval channel; ask modes are refused before launch).
   */
  readonly transport?: CodexTransport;
  /** Default model slug, e.g. `"gpt-5.5"`; a run's `model` overrides it. Default: codex's own config. */
  readonly model?: string;
  /**
   * Which host variables the CLI (and so its shell tool, whose output goes back to the model)
   * inherits: an allowlist of names (a trailing `*` matches a prefix), `true` for the whole
   * `process.env`, `false` for none (pass a complete `env`). Default {@link CODEX_INHERITED_ENV}: a
   * safe base plus the CLI's own `OPENAI_*`/`CODEX_*` settings, so cloud keys, tokens and database
   * URLs of the host stay home unless asked for.
   */
  readonly inheritEnv?: InheritEnv;
  /** `CODEX_HOME` for the CLI: config.toml, sessions (rollouts), state. */
  readonly codexHome?: string;
  /**
   * Config overrides passed as `-c key=value` (dotted keys; values are TOML-encoded: strings quoted,
   * numbers and booleans bare, arrays of strings as TOML arrays). Keys the driver owns (see
   * {@link OWNED_CONFIG_KEYS}) are rejected. Under sandbox `workspace_write` the driver pins
   * `sandbox_workspace_write.writable_roots = []` (so codex's config.toml cannot add writable roots)
   * unless this sets that key, e.g. `{ "sandbox_workspace_write.writable_roots": ["/data"] }`: then
   * those roots are writable too and `result.enforcement` lists them.
   */
  readonly configOverrides?: Readonly<Record<string, string | number | boolean | readonly string[]>>;
  /**
   * Extra CLI flags placed after the subcommand. Flags the driver owns (see {@link OWNED_FLAGS}) are
   * rejected; under sandbox `read_only` / `workspace_write` a run is also refused when these hold a
   * flag that widens the sandbox (`--add-dir`, `--trust`, `--dangerously-bypass-hook-trust`) or set a
   * `sandbox_workspace_write.*` key with `-c`.
   */
  readonly extraArgs?: readonly string[];
  /** `clientInfo.name` sent in `initialize` (codex records it as the thread's originator). Default `"adaptor"`. */
  readonly clientName?: string;
  /**
   * app-server: time in ms codex has to answer one JSON-RPC request (`initialize`, `thread/resume`,
   * `turn/start`, …; not the turn itself) before the run fails with a `TIMEOUT` DriverError.
   * Default 120,000.
   */
  readonly replyTimeoutMs?: number;
  /**
   * app-server: how long, in ms, the processes codex runs beside a turn (such as the `git` commands
   * that describe the working directory) get to end after a healthy run on a pre-warmed process.
   * With nothing left running, the process is handed back to wait for the next first turn; with
   * something still running then, it is ended (and what it started with it), as after any other run.
   * Only such runs wait, and only while something is still running. Default 1,000.
   */
  readonly handBackSettleMs?: number;
  /**
   * How many consecutive model-call retries codex may announce with no model output in between
   * before the driver ends the turn (app-server: an `error` notification with `willRetry: true`;
   * exec: an `error` line whose message starts with `Reconnecting...`, e.g. "Reconnecting...
   * waiting for network": exec's lines carry no flag, so the wording is the signal; their notices
   * get `data.willRetry`, and `attempt` / `maxAttempts` when counted). The next announcement ends
   * the turn as `RunError` `agent_error` ("model unreachable: …; no model output after N retries",
   * with the cause codex logged) and the process is ended. codex 0.171.0 waits for an unreachable
   * model server without end, whatever `request_max_retries` / `stream_max_retries` say, at a
   * doubling backoff (about 5, 10, 20, 40 s…), and those announcements are output, so without this
   * bound only `timeoutMs` would end the run. Retries codex counts itself ("Reconnecting... n/m": a
   * response stream retried under `stream_max_retries`, or the built-in provider's 5 websocket
   * tries before it falls back to HTTP POST) are not counted up to the 5th try: codex ends them by
   * failing the turn or by that fallback within about 6 s. A later try of such a series (a
   * provider's own `stream_max_retries` above 5, whose backoff doubles without a cap) counts. With the default 3 an unreachable server ends the run about 35 s after the
   * turn started (about 6 s more on the built-in provider, for its websocket tries); 0 ends the turn
   * at the first announcement counted. Default 3.
   */
  readonly maxModelRetries?: number;
  /**
   * Accept a run policy this driver cannot enforce, and report it instead of refusing it: today
   * only sandbox `read_only` / `workspace_write` with permission `ask` (under `ask`, codex runs a
   * command the host approved outside its sandbox when the sandbox blocks it, or when the model
   * asks for escalated permissions). With `true` such a run goes on and `result.enforcement` lists
   * the sandbox with `enforced: false`; without it the run is refused before launch with
   * `PolicyCapabilityUnsupportedError`. Default false.
   */
  readonly bestEffortPolicy?: boolean;
}

/**
 * Flags the driver sets itself, or that override what it sets (`--yolo` is codex's hidden alias of
 * `--dangerously-bypass-approvals-and-sandbox`); `extraArgs` may not contain them, also not as
 * `--flag=value`.
 */
export const OWNED_FLAGS: readonly string[] = Object.freeze([
  "--listen",
  "--stdio",
  "--json",
  "--experimental-json",
  "--output-schema",
  "--sandbox",
  "-s",
  "--ask-for-approval",
  "-a",
  "--model",
  "-m",
  "--cd",
  "-C",
  "--dangerously-bypass-approvals-and-sandbox",
  // codex's hidden alias of the flag above
  "--yolo",
  "--approve-for-me",
  "--search",
  "--remote",
  "--last",
  "--ephemeral",
]);

/** Config keys the driver sets from the run policy; `configOverrides` may not set them. */
export const OWNED_CONFIG_KEYS: readonly string[] = Object.freeze(["approval_policy", "sandbox_mode", "web_search", "model"]);

const is = optionChecks;

/** Codex's own options with their runtime checks (the common ones come from the kit); a key not listed is refused. */
const CODEX_CONFIG_SHAPE: OptionShape = {
  transport: is.oneOf("app-server", "exec"),
  codexHome: is.string({ nonEmpty: true }),
  configOverrides: is.recordOf(
    is.anyOf(
      "a string, a finite number, a boolean or an array of strings",
      is.string(),
      is.number(),
      is.boolean(),
      is.arrayOf(is.string()),
    ),
  ),
  clientName: is.string({ nonEmpty: true }),
  replyTimeoutMs: is.timerMs({ positive: true }),
  handBackSettleMs: is.timerMs(),
  maxModelRetries: is.integer(0),
  bestEffortPolicy: is.boolean(),
};

/** The Codex SDK's names for options, with what to write instead (those this config takes are never consulted). */
const CODEX_PEER_HINTS = driverConfigHints("Codex SDK");

/**
 * Checks a config without I/O and returns a frozen copy of it (each option read once; `extraArgs`,
 * `env` and `configOverrides` copied). `undefined` means "no options".
 * @throws InvalidDriverConfigError (matches `ErrInvalidDriverConfig`; its `cause` is an
 * `InvalidOptionError` naming the field): an unknown key (with the closest known one suggested),
 * a value of the wrong type, an `inheritEnv` that is not true, false or an array of variable
 * names, an unknown transport, an empty `command`, `model`, `cwd`, `codexHome`
 * or `clientName`, a string holding NUL or a lone UTF-16 surrogate, a `killGraceMs`, `idleMs`
 * or `handBackSettleMs` outside [0, 2^31-1] ms or a `replyTimeoutMs` outside (0, 2^31-1] ms (a Node timer cannot wait
 * longer), a `maxLineBytes`, `maxRawBytes` or `maxConcurrentSpawns` that is not a positive integer, a `maxModelRetries` that is not an integer ≥ 0, an owned flag in `extraArgs` (or an owned
 * config key set there with `-c`/`--config`), or an owned or malformed key in `configOverrides`.
 */
export function validateCodexConfig(config: CodexConfig | undefined): CodexConfig {
  return validateDriverConfig("codex", config, {
    shape: CODEX_CONFIG_SHAPE,
    hints: CODEX_PEER_HINTS,
    ownedFlags: OWNED_FLAGS,
    checkArg: (arg, next) => {
      const key = configKeySetBy(arg, next);
      return key && OWNED_CONFIG_KEYS.some((owned) => key === owned || key.startsWith(`${owned}.`))
        ? `may not set config key ${JSON.stringify(key)}: the driver owns it`
        : undefined;
    },
    check: (checked, refuse) => {
      for (const key of Object.keys((checked as CodexConfig).configOverrides ?? {})) {
        if (OWNED_CONFIG_KEYS.includes(key)) refuse(`configOverrides.${key}`, `may not be set: the driver owns it`);
        if (!/^[A-Za-z0-9_.-]+$/.test(key)) refuse(`configOverrides key ${JSON.stringify(key)}`, "is not a dotted TOML key");
      }
    },
  });
}

/** A config value TOML-encoded: strings as basic strings (a JSON string literal is one), arrays of strings as arrays. */
export function tomlValue(value: string | number | boolean | readonly string[]): string {
  return typeof value === "string" || Array.isArray(value) ? JSON.stringify(value) : String(value);
}

/** `-c key=value` arguments of `configOverrides`, values TOML-encoded. */
export function configOverrideArgs(
  overrides: Readonly<Record<string, string | number | boolean | readonly string[]>> | undefined,
): string[] {
  const args: string[] = [];
  for (const [key, value] of Object.entries(overrides ?? {})) args.push("-c", `${key}=${tomlValue(value)}`);
  return args;
}
