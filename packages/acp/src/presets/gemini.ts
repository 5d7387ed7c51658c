import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { validateDriverConfig, type CommonDriverConfig } from "@adaptor/driver/kit";
import { SAFE_ENV_BASE } from "@adaptor/driver/process";
import type { ToolCallUpdate } from "@agentclientprotocol/sdk";
import { AcpDriver } from "../acp-driver.js";
import { toolNameOf } from "../turn/tool-call.js";
import { validateAcpConfig, type AcpConfig } from "../config/acp-config.js";

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
 * Configuration of {@link gemini}: the common driver fields. `command` defaults to Node running the
 * pinned `@google/gemini-cli` bundle when that optional peer dependency is installed next to this
 * package (else `gemini` on PATH; a run with neither fails with a `NOT_FOUND` DriverError); `model`
 * is passed as `-m` (default: the CLI's own, `auto`, which first asks a router model);
 * `inheritEnv` defaults to {@link GEMINI_INHERITED_ENV}; `extraArgs` follow `--acp` and may not
 * hold the flags the preset owns.
 */
export type GeminiConfig = CommonDriverConfig;

/** The pinned bundle's path, or undefined when the package is not installed. */
function geminiBundle(): string | undefined {
  try {
    const require = createRequire(import.meta.url);
    return join(dirname(require.resolve("@google/gemini-cli/package.json")), "bundle", "gemini.js");
  } catch {
    return undefined;
  }
}

/** Session modes of gemini-cli 0.61.0 that enforce a sandbox level (proved in this package's tests). */
const GEMINI_SANDBOX_MODES = Object.freeze({ read_only: "plan", workspace_write: "autoEdit", unrestricted: "yolo" });

const DESCRIPTOR_CONFIG: Partial<AcpConfig> = {
  type: "gemini",
  displayName: "Gemini CLI",
  sandboxModes: GEMINI_SANDBOX_MODES,
  askMode: "default",
  // gemini-cli 0.61.0 answers session/set_mode with an error for a mode it lacks and sends no current_mode_update.
  modeConfirmedByAnswer: true,
  // With the host's fs offered, gemini-cli 0.61.0 reads a file before creating it and takes the
  // host's "not found" for a failure (its ENOENT check misses the JSON-RPC error): write_file of a
  // new file fails. It keeps its own file system and shell.
  hostCapabilities: false,
  loadSession: false,
  mcpTransports: ["stdio", "http"],
};

/**
 * The ACP config `gemini(config)` runs: `node <bundle> --acp [-m model]`.
 * @throws InvalidDriverConfigError for a refused field (see {@link GeminiConfig}), or an owned flag in `extraArgs`.
 */
export function geminiAcpConfig(config: GeminiConfig | undefined): AcpConfig {
  const checked = validateDriverConfig<GeminiConfig>("gemini", config, { ownedFlags: OWNED_FLAGS });
  const bundle = checked.command === undefined ? geminiBundle() : undefined;
  const base = bundle ? { command: process.execPath, args: [bundle, "--acp"] } : { command: checked.command ?? "gemini", args: ["--acp"] };
  return validateAcpConfig("gemini", {
    ...checked,
    ...DESCRIPTOR_CONFIG,
    command: base.command,
    args: base.args,
    modelFlag: "-m",
    loadSessionUnsupportedReason: GEMINI_RESUME_LIMIT,
    inheritEnv: checked.inheritEnv ?? GEMINI_INHERITED_ENV,
  });
}

/** gemini-cli names a tool call `<tool>__<call id>`: the tool is the part before `__`. */
function geminiToolName(call: ToolCallUpdate): string {
  const cut = call.toolCallId.indexOf("__");
  return cut > 0 ? call.toolCallId.slice(0, cut) : toolNameOf(call);
}

/**
 * The Gemini CLI driver: gemini-cli 0.61.0 over ACP (`gemini --acp`). Sandbox levels map to its
 * session modes (`read_only` → `plan`, `workspace_write` → `autoEdit`, `unrestricted` → `yolo`);
 * thread turns continue on the live process only ({@link GEMINI_RESUME_LIMIT}); MCP over stdio
 * and HTTP; structured output by prompt instructions and local validation.
 */
export function gemini(config?: GeminiConfig): AcpDriver {
  return new AcpDriver(DESCRIPTOR_CONFIG, { resolve: () => geminiAcpConfig(config), toolName: geminiToolName });
}
