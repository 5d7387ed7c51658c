import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { validateDriverConfig, type CommonDriverConfig } from "@adaptor/driver/kit";
import { optionChecks } from "@adaptor/errors";
import { SAFE_ENV_BASE } from "@adaptor/driver/process";
import { AcpDriver } from "../acp-driver.js";
import { validateAcpConfig, type AcpConfig } from "../config/acp-config.js";
import { trustedDescriptor } from "./trusted-workspace.js";

/** The `@qwen-code/qwen-code` version this package pins and is tested against. */
export const PINNED_QWEN_VERSION = "0.24.4";

/**
 * The host variables Qwen Code inherits when `inheritEnv` is unset: the safe base plus its login and
 * proxy settings (`OPENAI_*`, `QWEN_*`, `DASHSCOPE_*`, `HTTP_PROXY`, `HTTPS_PROXY`, `NO_PROXY`, `NO_COLOR`).
 */
export const QWEN_INHERITED_ENV: readonly string[] = Object.freeze([
  ...SAFE_ENV_BASE,
  "OPENAI_*",
  "QWEN_*",
  "DASHSCOPE_*",
  "HTTP_PROXY",
  "HTTPS_PROXY",
  "NO_PROXY",
  "NO_COLOR",
]);

const OWNED_FLAGS: readonly string[] = Object.freeze([
  "--acp",
  "--experimental-acp",
  "--approval-mode",
  "-y",
  "--yolo",
  "--auth-type",
  "-p",
  "--prompt",
]);

/**
 * Configuration of {@link qwen}: the common driver fields. `command` defaults to Node running the
 * pinned `@qwen-code/qwen-code` entry when that optional peer dependency is installed next to this
 * package (else `qwen` on PATH); the agent logs in with an OpenAI-compatible key (`OPENAI_API_KEY`,
 * `OPENAI_BASE_URL`, `OPENAI_MODEL` in `env`); `inheritEnv` defaults to {@link QWEN_INHERITED_ENV}.
 */
export interface QwenConfig extends CommonDriverConfig {
  /**
   * Trust the working directory, so Qwen Code loads its own files there: `.qwen/settings.json`
   * (hooks that run commands, permission rules that answer asks, `env`), `.env` files (an
   * `OPENAI_BASE_URL` there points the model API, the conversation and the key elsewhere),
   * `QWEN.md`. Default false: the preset turns Qwen Code's folder trust on and trusts no folder
   * (`QWEN_CODE_SYSTEM_SETTINGS_PATH` and `QWEN_CODE_TRUSTED_FOLDERS_PATH` name files shipped with
   * this package, in place of the machine's system settings and the user's trusted folders), so
   * none of these apply. True leaves both to the machine and the user; `read_only` and the
   * permission modes are then refused before launch (`PolicyCapabilityUnsupportedError`,
   * `HumanDecisionModeUnsupportedError`): the workspace's hooks run commands no mode governs.
   */
  readonly workspaceSettings?: boolean;
}

/** The files that turn folder trust on and trust no folder (shipped in `src/presets/qwen-untrusted`). */
function untrustedFiles(): { settings: string; folders: string } {
  const dir = fileURLToPath(new URL("../../src/presets/qwen-untrusted/", import.meta.url));
  return { settings: join(dir, "system-settings.json"), folders: join(dir, "trusted-folders.json") };
}

function qwenEntry(): string | undefined {
  try {
    return join(dirname(createRequire(import.meta.url).resolve("@qwen-code/qwen-code/package.json")), "cli-entry.js");
  } catch {
    return undefined;
  }
}

/**
 * What qwen-code 0.24.4 has proved in this package's tests: `read_only` → session mode `plan`; the
 * permission modes through session mode `default` (it asks before edits and shell commands; its own
 * default, `auto`, lets a classifier run commands unasked); no MCP (it never offered a declared
 * stdio server to the model, so MCP servers are refused before launch).
 */
const DESCRIPTOR_CONFIG: Partial<AcpConfig> = {
  type: "qwen",
  displayName: "Qwen Code",
  sandboxModes: { read_only: "plan" },
  askMode: "default",
  mcpTransports: [],
};

/** With `workspaceSettings`: no `read_only` or ask mode (the workspace's hooks and allow rules act outside them). */
const TRUSTED_DESCRIPTOR_CONFIG = trustedDescriptor(DESCRIPTOR_CONFIG);

/** The ACP config `qwen(config)` runs: `node <cli-entry.js> --acp --auth-type openai`. */
export function qwenAcpConfig(config: QwenConfig | undefined, extra: Partial<AcpConfig> = {}): AcpConfig {
  const { workspaceSettings = false, ...checked } = validateDriverConfig<QwenConfig>("qwen", config, {
    ownedFlags: OWNED_FLAGS,
    shape: { workspaceSettings: optionChecks.boolean() },
  });
  const untrusted = untrustedFiles();
  const entry = checked.command === undefined ? qwenEntry() : undefined;
  const flags = ["--acp", "--auth-type", "openai"];
  const base = entry ? { command: process.execPath, args: [entry, ...flags] } : { command: checked.command ?? "qwen", args: flags };
  return validateAcpConfig("qwen", {
    ...checked,
    ...(workspaceSettings ? TRUSTED_DESCRIPTOR_CONFIG : DESCRIPTOR_CONFIG),
    ...extra,
    command: base.command,
    args: base.args,
    env: workspaceSettings
      ? checked.env
      : { ...checked.env, QWEN_CODE_SYSTEM_SETTINGS_PATH: untrusted.settings, QWEN_CODE_TRUSTED_FOLDERS_PATH: untrusted.folders },
    inheritEnv: checked.inheritEnv ?? QWEN_INHERITED_ENV,
  });
}

/**
 * The Qwen Code driver: qwen-code 0.24.4 over ACP. The host's fs and terminal capabilities are
 * offered; `read_only` selects session mode `plan`, a permission mode selects `default`, each
 * checked after it was set; MCP servers are refused before launch.
 */
export function qwen(config?: QwenConfig): AcpDriver {
  return new AcpDriver(config?.workspaceSettings === true ? TRUSTED_DESCRIPTOR_CONFIG : DESCRIPTOR_CONFIG, {
    resolve: () => qwenAcpConfig(config),
  });
}
