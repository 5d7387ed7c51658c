import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { validateDriverConfig, type CommonDriverConfig } from "@adaptor/driver/kit";
import { optionChecks } from "@adaptor/errors";
import { SAFE_ENV_BASE } from "@adaptor/driver/process";
import type { ToolCallUpdate } from "@agentclientprotocol/sdk";
import { AcpDriver } from "../acp-driver.js";
import { toolNameOf } from "../turn/tool-call.js";
import { validateAcpConfig, type AcpConfig } from "../config/acp-config.js";
import { trustedDescriptor } from "./trusted-workspace.js";

/** The `@google/gemini-cli` version this package pins and is tested against. */
export const PINNED_GEMINI_VERSION = "0.61.0";

/**
 * The host variables gemini-cli inherits when `inheritEnv` is unset: the safe base
 * (`SAFE_ENV_BASE`) plus what it reads for its login and settings: `GEMINI_*`, `GOOGLE_*`
 * (`GOOGLE_API_KEY`, `GOOGLE_GEMINI_BASE_URL`, `GOOGLE_CLOUD_PROJECT`, `GOOGLE_APPLICATION_CREDENTIALS`, ...),
 * `NO_COLOR`. Extend it by spreading: `inheritEnv: [...GEMINI_INHERITED_ENV, "HTTPS_PROXY"]`.
 */
export const GEMINI_INHERITED_ENV: readonly string[] = Object.freeze([...SAFE_ENV_BASE, "GEMINI_*", "GOOGLE_*", "NO_COLOR"]);

/**
 * Why a Gemini thread turn cannot continue in a new process: gemini-cli 0.61.0's `session/load`
 * fails across processes, so its conversations continue only on the live process that ran them.
 */
export const GEMINI_RESUME_LIMIT =
  'gemini-cli 0.61.0 cannot continue a session in a new process (its session/load answers -32603, "No previous sessions found for this project." or "Invalid session identifier", although the session file exists); a Gemini thread continues only on the live process of its previous turn (same Agent, within idleMs, no spawn: true)';

/**
 * gemini-cli 0.61.0's environment switches that load settings or run commands from outside the
 * run's control: `GEMINI_CLI_SYSTEM_SETTINGS_PATH` and `GEMINI_CLI_SYSTEM_DEFAULTS_PATH` (a settings
 * file whose `tools.discoveryCommand`, hooks or MCP servers run commands, loaded whatever folder
 * trust says), `GEMINI_CLI_IDE_SERVER_STDIO_COMMAND` (a command it starts to reach an IDE) and
 * `GEMINI_SANDBOX_PROXY_COMMAND` (a command it starts with its sandbox). Under a confining policy
 * (without `workspaceSettings`) one the host sets refuses the run; an inherited one is removed.
 */
const CONFINED_ENV: readonly string[] = [
  "GEMINI_CLI_SYSTEM_SETTINGS_PATH",
  "GEMINI_CLI_SYSTEM_DEFAULTS_PATH",
  "GEMINI_CLI_IDE_SERVER_STDIO_COMMAND",
  "GEMINI_SANDBOX_PROXY_COMMAND",
];

/** Flags the preset sets itself; `extraArgs` may not contain them. */
const OWNED_FLAGS: readonly string[] = Object.freeze([
  "--acp",
  "--experimental-acp",
  "-m",
  "--model",
  "-p",
  "--prompt",
  "-i",
  "--prompt-interactive",
  "--approval-mode",
  "-y",
  "--yolo",
  "-r",
  "--resume",
]);

/**
 * Configuration of {@link gemini}: the common driver fields plus `workspaceSettings`. `command` defaults to Node running the
 * pinned `@google/gemini-cli` bundle when that optional peer dependency is installed next to this
 * package (else `gemini` on PATH; a run with neither fails with a `NOT_FOUND` DriverError); `model`
 * is passed as `-m` (default: the CLI's own, `auto`, which first asks a router model);
 * `inheritEnv` defaults to {@link GEMINI_INHERITED_ENV}; `extraArgs` follow `--acp` and may not
 * hold the flags the preset owns.
 */
export interface GeminiConfig extends CommonDriverConfig {
  /**
   * Trust the working directory, so gemini-cli loads its own files there: `.gemini/settings.json`
   * (hooks and MCP servers that run commands, tool discovery commands, allow rules that answer
   * asks), `.gemini/.env` and every key of `.env` (`GOOGLE_GEMINI_BASE_URL` points the model API,
   * the conversation and the key elsewhere), `GEMINI.md`, workspace policies and skills. Default
   * false: the preset sets `GEMINI_CLI_TRUST_WORKSPACE=false`, so none of these apply, and
   * gives the agent `GEMINI_API_KEY`, `GOOGLE_API_KEY`, `GOOGLE_CLOUD_PROJECT` and
   * `GOOGLE_CLOUD_LOCATION` as the empty string when the environment lacks them, so no `.env`
   * (an untrusted folder's would supply them, and so does the home directory's) fills them in:
   * pass credentials in the environment or `env`; and gemini-cli
   * itself refuses its `autoEdit` and `yolo` modes: `workspace_write` and `unrestricted` are then
   * refused before launch, as are MCP servers and host tools (gemini-cli drops every MCP server in
   * an untrusted folder). True sets `GEMINI_CLI_TRUST_WORKSPACE=true`: MCP over stdio and HTTP, `workspace_write` →
   * `autoEdit` and `unrestricted` → `yolo` are offered, and `read_only` and the permission modes
   * are refused before launch (`PolicyCapabilityUnsupportedError`,
   * `HumanDecisionModeUnsupportedError`): the workspace's hooks run commands no mode governs.
   */
  readonly workspaceSettings?: boolean;
}

/** The pinned bundle's path, or undefined when the package is not installed. */
function geminiBundle(): string | undefined {
  try {
    const require = createRequire(import.meta.url);
    return join(dirname(require.resolve("@google/gemini-cli/package.json")), "bundle", "gemini.js");
  } catch {
    return undefined;
  }
}

/**
 * What gemini-cli 0.61.0 has proved in this package's tests, in an untrusted working directory
 * (the default): `read_only` → session mode `plan`, the permission modes → `default`.
 */
const DESCRIPTOR_CONFIG: Partial<AcpConfig> = {
  type: "gemini",
  displayName: "Gemini CLI",
  sandboxModes: { read_only: "plan" },
  askMode: "default",
  // gemini-cli 0.61.0 answers session/set_mode with an error for a mode it lacks and sends no current_mode_update.
  modeConfirmedByAnswer: true,
  // With the host's fs offered, gemini-cli 0.61.0 reads a file before creating it and takes the
  // host's "not found" for a failure (its ENOENT check misses the JSON-RPC error): write_file of a
  // new file fails. It keeps its own file system and shell.
  hostCapabilities: false,
  loadSession: false,
  // An untrusted folder makes gemini-cli 0.61.0 drop every MCP server, the host's own included (the
  // tools never reach the model): MCP servers and host tools are refused before launch instead.
  mcpTransports: [],
};

/**
 * With `workspaceSettings`: the trusted modes `workspace_write` → `autoEdit`, `unrestricted` →
 * `yolo`; no `read_only` or ask mode (the workspace's hooks and allow rules act outside them).
 */
const TRUSTED_DESCRIPTOR_CONFIG: Partial<AcpConfig> = {
  ...trustedDescriptor(DESCRIPTOR_CONFIG, { workspace_write: "autoEdit", unrestricted: "yolo" }),
  mcpTransports: ["stdio", "http"],
};

function descriptorConfig(config: GeminiConfig | undefined): Partial<AcpConfig> {
  return config?.workspaceSettings === true ? TRUSTED_DESCRIPTOR_CONFIG : DESCRIPTOR_CONFIG;
}

/**
 * The ACP config `gemini(config)` runs: `node <bundle> --acp [-m model]`.
 * @throws InvalidDriverConfigError for a refused field (see {@link GeminiConfig}), or an owned flag in `extraArgs`.
 */
export function geminiAcpConfig(config: GeminiConfig | undefined): AcpConfig {
  const checked = validateDriverConfig<GeminiConfig>("gemini", config, {
    ownedFlags: OWNED_FLAGS,
    shape: { workspaceSettings: optionChecks.boolean() },
  });
  const { workspaceSettings = false, ...common } = checked;
  const bundle = common.command === undefined ? geminiBundle() : undefined;
  const base = bundle ? { command: process.execPath, args: [bundle, "--acp"] } : { command: common.command ?? "gemini", args: ["--acp"] };
  const descriptor = workspaceSettings ? TRUSTED_DESCRIPTOR_CONFIG : DESCRIPTOR_CONFIG;
  return validateAcpConfig("gemini", {
    ...common,
    ...descriptor,
    command: base.command,
    args: base.args,
    // Overrides folder trust whatever the user's settings and trustedFolders.json say.
    env: {
      ...common.env,
      GEMINI_CLI_TRUST_WORKSPACE: workspaceSettings ? "true" : "false",
    },
    modelFlag: "-m",
    loadSessionUnsupportedReason: GEMINI_RESUME_LIMIT,
    inheritEnv: common.inheritEnv ?? GEMINI_INHERITED_ENV,
  });
}

/** gemini-cli names a tool call `<tool>__<call id>`: the tool is the part before `__`. */
function geminiToolName(call: ToolCallUpdate): string {
  const cut = call.toolCallId.indexOf("__");
  return cut > 0 ? call.toolCallId.slice(0, cut) : toolNameOf(call);
}

/**
 * gemini-cli 0.61.0's shell call as an input, as it sends no `rawInput`: its title is the command
 * exactly (the shell tool's display title), its text content `[in <dir_path>]` or `[current working
 * directory <dir>]`, then ` (<description>)` and ` [background]` when set. Gives `command`, and
 * `dir_path` or `cwd` when the content reads so with one `]` (else the content's text as `details`,
 * compared whole: a folder the model names may hold `]`, so a text holding two, a background call's
 * included, could name another folder); undefined for any other tool or a call without a title.
 */
export function geminiToolInput(call: ToolCallUpdate, toolName: string): Record<string, unknown> | undefined {
  if (toolName !== "run_shell_command" || typeof call.title !== "string" || call.title === "") return undefined;
  const first = call.content?.[0];
  const text = first?.type === "content" && first.content.type === "text" ? first.content.text : undefined;
  if (text === undefined) return { command: call.title };
  const folder = /^\[(in|current working directory) ([^\]\n]*)\](?: \(|$)/.exec(text);
  // A second `]` (a description holding one, or ` [background]`) could also close a folder holding
  // `]` (`[in /w] (x] (tests)` is `/w] (x` too): the folder is not known, so the text is compared whole.
  if (folder === null || text.indexOf("]") !== text.lastIndexOf("]")) return { command: call.title, details: text };
  return { command: call.title, [folder[1] === "in" ? "dir_path" : "cwd"]: folder[2] };
}

/**
 * The Gemini CLI driver: gemini-cli 0.61.0 over ACP (`gemini --acp`), in an untrusted working
 * directory unless `workspaceSettings` (see {@link GeminiConfig}); under `read_only` and the
 * permission modes, its system settings and command switches (`GEMINI_CLI_SYSTEM_SETTINGS_PATH`,
 * `GEMINI_CLI_SYSTEM_DEFAULTS_PATH`, `GEMINI_CLI_IDE_SERVER_STDIO_COMMAND`,
 * `GEMINI_SANDBOX_PROXY_COMMAND`) are refused (set by the host) or removed (inherited, with a
 * `notice` `policy`). Sandbox levels map to its
 * session modes (`read_only` → `plan`; with `workspaceSettings`, `workspace_write` → `autoEdit`,
 * `unrestricted` → `yolo`);
 * thread turns continue on the live process only ({@link GEMINI_RESUME_LIMIT}); MCP over stdio
 * and HTTP; structured output by prompt instructions and local validation.
 */
export function gemini(config?: GeminiConfig): AcpDriver {
  return new AcpDriver(descriptorConfig(config), {
    resolve: () => geminiAcpConfig(config),
    toolName: geminiToolName,
    toolInput: geminiToolInput,
    // gemini-cli fills these from a `.env` (an untrusted folder's too) only when they are unset.
    ...(config?.workspaceSettings === true ? {} : { emptyWhenUnset: GEMINI_ENV_CREDENTIALS, allowAllEnv: CONFINED_ENV }),
  });
}

/**
 * The credentials gemini-cli 0.61.0 takes from an untrusted folder's `.env` (or the home
 * directory's) when its environment lacks them: without `workspaceSettings` they come from the
 * environment only (the empty string when it has none, which gemini-cli treats as missing).
 */
const GEMINI_ENV_CREDENTIALS = ["GEMINI_API_KEY", "GOOGLE_API_KEY", "GOOGLE_CLOUD_PROJECT", "GOOGLE_CLOUD_LOCATION"] as const;
