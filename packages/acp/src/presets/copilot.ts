import { createRequire } from "node:module";
import { homedir } from "node:os";
import { join } from "node:path";
import { validateDriverConfig, type CommonDriverConfig } from "@adaptor/driver/kit";
import { SAFE_ENV_BASE } from "@adaptor/driver/process";
import { optionChecks } from "@adaptor/errors";
import { AcpDriver, type AgentNotice } from "../acp-driver.js";
import { validateAcpConfig, type AcpConfig } from "../config/acp-config.js";
import { trustedDescriptor } from "./trusted-workspace.js";

/** The `@github/copilot` version this package pins and is tested against. */
export const PINNED_COPILOT_VERSION = "1.0.102";

/**
 * The host variables GitHub Copilot CLI inherits when `inheritEnv` is unset: the safe base plus its
 * own settings and login (`COPILOT_*`, `GH_TOKEN`, `GITHUB_TOKEN`, `GH_HOST`), proxies and `NO_COLOR`.
 * `COPILOT_ALLOW_ALL` and `COPILOT_ASSISTED_APPROVAL` are removed under a confining policy, and `COPILOT_HOME` is the preset's
 * (see {@link CopilotConfig.copilotHome}).
 */
export const COPILOT_INHERITED_ENV: readonly string[] = Object.freeze([
  ...SAFE_ENV_BASE,
  "COPILOT_*",
  "GH_TOKEN",
  "GITHUB_TOKEN",
  "GH_HOST",
  "HTTP_PROXY",
  "HTTPS_PROXY",
  "NO_PROXY",
  "NO_COLOR",
]);

/** Copilot's ACP session mode in which it asks before edits and shell commands. */
const AGENT_MODE = "https://agentclientprotocol.com/protocol/session-modes#agent";

/**
 * The environment variables with which Copilot runs every tool unasked: `COPILOT_ALLOW_ALL` (its
 * exact value `true` also trusts the working directory, loading its MCP servers and hooks), and
 * `COPILOT_ASSISTED_APPROVAL` (a model judges and approves asks).
 */
const ALLOW_ALL_ENV: readonly string[] = ["COPILOT_ALLOW_ALL", "COPILOT_ASSISTED_APPROVAL"];

/**
 * Copilot's tools that run without a permission ask (ACP kind `other`), not offered to the model
 * under a confining policy, where each call would fail the run: `sql` (its per-session todo
 * database) and `task` (a sub-agent, whose own calls it does ask about).
 */
const CONFINED_ARGS: readonly string[] = ["--excluded-tools", "sql", "task"];

/**
 * Flags refused in `extraArgs`: the preset's own, and those that approve tools, paths or URLs,
 * change the mode, filter tools, or trust folders, plugins or MCP config.
 */
const OWNED_FLAGS: readonly string[] = Object.freeze([
  "--acp",
  "--allow-all-tools",
  "--allow-all-paths",
  "--allow-all-urls",
  "--allow-all",
  "--yolo",
  "--allow-tool",
  "--allow-url",
  "--assisted-approval",
  "--autopilot",
  "--mode",
  "--plan",
  "--trust-folder",
  "--add-dir",
  "--plugin-dir",
  "--additional-mcp-config",
  "--enable-mcp-server",
  "--available-tools",
  "--excluded-tools",
  "-p",
  "--prompt",
  "-i",
  "--interactive",
]);

/**
 * Configuration of {@link copilot}: the common driver fields. `command` defaults to the pinned
 * `@github/copilot` platform binary when that optional peer dependency is installed next to this
 * package (else `copilot` on PATH). Copilot logs in with `COPILOT_GITHUB_TOKEN` / `GH_TOKEN` /
 * `GITHUB_TOKEN`, or uses a model provider of its own (`COPILOT_PROVIDER_BASE_URL`, `COPILOT_MODEL`, …);
 * `inheritEnv` defaults to {@link COPILOT_INHERITED_ENV}. `env.COPILOT_HOME` is refused: use `copilotHome`.
 */
export interface CopilotConfig extends CommonDriverConfig {
  /**
   * The directory Copilot keeps its config, sessions and logs in (`COPILOT_HOME`). Default
   * `~/.adaptor/copilot` (of the host process's user). Not the user's own `~/.copilot`: the folders
   * a user trusted there (Copilot's "trust this folder?" answer) would load a cloned repository's
   * MCP servers and hooks into the run. With `workspaceSettings` the default is Copilot's own.
   */
  readonly copilotHome?: string;
  /**
   * Leave folder trust to the user's Copilot config (`~/.copilot`, or `copilotHome`): a trusted
   * working directory's own files then apply (`.mcp.json`, `.github/mcp.json` and `.vscode/mcp.json`
   * servers Copilot starts at session start, hooks that run commands, plugins, agents, skills).
   * Default false: the preset points `COPILOT_HOME` at {@link CopilotConfig.copilotHome}, in which no
   * folder is trusted. True: `read_only` and the permission modes are refused before launch
   * (`PolicyCapabilityUnsupportedError`, `HumanDecisionModeUnsupportedError`): the workspace's
   * servers and hooks run commands no mode governs.
   */
  readonly workspaceSettings?: boolean;
}

/**
 * Copilot's own notices, each sent as a whole message chunk of its own: `Info: …` (e.g. "Info:
 * Disabled tools: sql, task", "Info: Request failed due to a transient API error. Retrying...") and
 * `Error: …` (e.g. "Error: Failed to get response from the AI model; retried 5 times …",
 * "Error: Authentication failed with provider at … (HTTP 401)"), after which it ends the turn normally.
 */
function copilotNotice(text: string): AgentNotice | undefined {
  const match = /^(Info|Error): \S/.exec(text);
  if (!match) return undefined;
  const message = text.trim();
  if (match[1] === "Info") return { level: "info", message };
  // The model API's HTTP status: "(HTTP 401)", or the last error's "Last error: 500 …".
  const status = /\(HTTP ([45]\d\d)\)|Last error: ([45]\d\d)\b/.exec(message);
  const code = status?.[1] ?? status?.[2];
  return { level: "error", message, ...(code !== undefined ? { details: { apiErrorStatus: Number(code) } } : {}) };
}

/** The platform binary `@github/copilot` installs (an optional dependency of it). */
function copilotBinary(): string | undefined {
  try {
    const loader = createRequire(import.meta.url).resolve("@github/copilot/package.json");
    const require = createRequire(loader);
    for (const platform of process.platform === "linux" ? ["linux", "linuxmusl"] : [process.platform]) {
      try {
        // The package exports its binary as its main entry.
        return require.resolve(`@github/copilot-${platform}-${process.arch}`);
      } catch {
        // the other libc's package
      }
    }
    return undefined;
  } catch {
    return undefined;
  }
}

/**
 * What Copilot CLI 1.0.102 has proved in this package's tests: the permission modes and `read_only`
 * through its `#agent` session mode (it asks before edits and shell commands); no MCP servers from
 * the host (not proved).
 */
const DESCRIPTOR_CONFIG: Partial<AcpConfig> = {
  type: "copilot",
  displayName: "GitHub Copilot CLI",
  askMode: AGENT_MODE,
  mcpTransports: [],
};

/** With `workspaceSettings`: no `read_only` or ask mode (the workspace's servers and hooks act outside them). */
const TRUSTED_DESCRIPTOR_CONFIG = trustedDescriptor(DESCRIPTOR_CONFIG);

/** The ACP config `copilot(config)` runs: `copilot --acp --no-auto-update`, with `COPILOT_HOME` the preset's. */
export function copilotAcpConfig(config: CopilotConfig | undefined): AcpConfig {
  const checked = validateDriverConfig<CopilotConfig>("copilot", config, {
    ownedFlags: OWNED_FLAGS,
    shape: { copilotHome: optionChecks.string({ nonEmpty: true }), workspaceSettings: optionChecks.boolean() },
    check: (c, refuse) => {
      const env = c["env"] as Record<string, string> | undefined;
      if (env?.["COPILOT_HOME"] !== undefined) refuse("env", "COPILOT_HOME is the preset's: set `copilotHome` instead");
    },
  });
  const { copilotHome, workspaceSettings = false, ...common } = checked;
  const home = copilotHome ?? (workspaceSettings ? undefined : join(homedir(), ".adaptor", "copilot"));
  const binary = common.command === undefined ? copilotBinary() : undefined;
  return validateAcpConfig("copilot", {
    ...common,
    ...(workspaceSettings ? TRUSTED_DESCRIPTOR_CONFIG : DESCRIPTOR_CONFIG),
    command: binary ?? common.command ?? "copilot",
    args: ["--acp", "--no-auto-update"],
    env: { ...common.env, ...(home === undefined ? {} : { COPILOT_HOME: home }) },
    inheritEnv: common.inheritEnv ?? COPILOT_INHERITED_ENV,
  });
}

/**
 * The GitHub Copilot CLI driver: Copilot CLI 1.0.102 over ACP (`copilot --acp`). `read_only` and
 * the permission modes select its `#agent` session mode (checked after it is set); under them its
 * unasked `sql` and `task` tools are removed and `COPILOT_ALLOW_ALL` is refused (set by the host)
 * or removed (inherited). MCP servers are refused before launch. Copilot's own `Info:` / `Error:`
 * lines are `notice`s, not text; a turn that ends after its `Error:` line with no model text (a
 * failed model request) fails as `agent_error` with that message.
 */
export function copilot(config?: CopilotConfig): AcpDriver {
  return new AcpDriver(config?.workspaceSettings === true ? TRUSTED_DESCRIPTOR_CONFIG : DESCRIPTOR_CONFIG, {
    resolve: () => copilotAcpConfig(config),
    allowAllEnv: ALLOW_ALL_ENV,
    confinedArgs: CONFINED_ARGS,
    agentNotice: copilotNotice,
  });
}
