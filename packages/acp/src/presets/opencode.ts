import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { validateDriverConfig, type CommonDriverConfig } from "@adaptor/driver/kit";
import { SAFE_ENV_BASE } from "@adaptor/driver/process";
import { optionChecks } from "@adaptor/errors";
import { AcpDriver } from "../acp-driver.js";
import { validateAcpConfig, type AcpConfig } from "../config/acp-config.js";
import { trustedDescriptor } from "./trusted-workspace.js";

/** The `opencode-ai` version this package pins and is tested against. */
export const PINNED_OPENCODE_VERSION = "1.18.33";

/**
 * The host variables OpenCode inherits when `inheritEnv` is unset: the safe base plus its own
 * settings and the usual provider keys (`OPENCODE_*`, `OPENAI_*`, `ANTHROPIC_*`, proxies, `NO_COLOR`).
 */
export const OPENCODE_INHERITED_ENV: readonly string[] = Object.freeze([
  ...SAFE_ENV_BASE,
  "OPENCODE_*",
  "OPENAI_*",
  "ANTHROPIC_*",
  "HTTP_PROXY",
  "HTTPS_PROXY",
  "NO_PROXY",
  "NO_COLOR",
]);

/** The session mode (an OpenCode agent the preset defines) in which it asks before edits, commands and sub-agents. */
export const OPENCODE_ASK_AGENT = "adaptor-ask";
/** The session mode (an OpenCode agent the preset defines) without edit, command or sub-agent tools. */
export const OPENCODE_READ_ONLY_AGENT = "adaptor-read-only";

/**
 * OpenCode's tool that starts a sub-agent: the sub-agent runs as another OpenCode agent in a
 * session of its own, whose asks and calls never reach the ACP client, so under `ask`, `auto_deny`
 * and `read_only` the host denies its ask without asking.
 */
const OPENCODE_DELEGATION_TOOLS: readonly string[] = ["task"];

/**
 * opencode 1.18.33's environment switches that load config (plugins, which are JavaScript OpenCode
 * runs; MCP servers; permission rules) from outside the run's control: `OPENCODE_CONFIG` (a config
 * file), `OPENCODE_CONFIG_DIR` (a config directory, with its `plugin/`),
 * `OPENCODE_TEST_MANAGED_CONFIG_DIR` (in place of the machine's managed config directory) and
 * `OPENCODE_PERMISSION` (permission rules over every agent's). Under a confining policy (without
 * `workspaceSettings`) one the host sets refuses the run; an inherited one is removed.
 */
const CONFINED_ENV: readonly string[] = [
  "OPENCODE_CONFIG",
  "OPENCODE_CONFIG_DIR",
  "OPENCODE_TEST_MANAGED_CONFIG_DIR",
  "OPENCODE_PERMISSION",
];

/**
 * The two primary agents the preset adds to OpenCode's config, offered as session modes: one whose
 * every edit, command, web fetch and sub-agent asks (`session/request_permission`), one that may
 * not edit, run commands or start sub-agents (OpenCode's own `permission` rules; OpenCode's `plan`
 * agent is not used: in the tests it still wrote a file).
 */
const PRESET_AGENTS = {
  [OPENCODE_ASK_AGENT]: {
    mode: "primary",
    description: "Asks before every edit, command, web fetch and sub-agent (adaptor policy ask).",
    permission: { edit: "ask", bash: "ask", webfetch: "ask", task: "ask" },
  },
  [OPENCODE_READ_ONLY_AGENT]: {
    mode: "primary",
    description: "Reads only: no edits, commands or sub-agents (adaptor policy read_only).",
    permission: { edit: "deny", bash: "deny", webfetch: "ask", task: "deny" },
  },
};

/**
 * Configuration of {@link opencode}: the common driver fields plus `opencodeConfig`, OpenCode's
 * own config object (providers, model, ...), handed to it as `OPENCODE_CONFIG_CONTENT` together with
 * the preset's two agents (auto-update and sharing off). `command` defaults to the pinned
 * `opencode-ai` binary when that optional peer dependency is installed next to this package (else
 * `opencode` on PATH); `inheritEnv` defaults to {@link OPENCODE_INHERITED_ENV}.
 */
export interface OpencodeConfig extends CommonDriverConfig {
  /** OpenCode's config (the `opencode.json` shape); the preset adds its agents. Default `{}`. */
  readonly opencodeConfig?: Readonly<Record<string, unknown>>;
  /**
   * Load the working directory's own OpenCode config: `opencode.json` / `opencode.jsonc` and the
   * `.opencode/` folder (plugins, which are JavaScript OpenCode runs; MCP servers it starts;
   * permission rules that answer asks; providers that point the model API elsewhere). Default
   * false: the preset sets `OPENCODE_DISABLE_PROJECT_CONFIG=1`, so none of these apply. True
   * loads them; `read_only` and the permission modes are then refused before launch
   * (`PolicyCapabilityUnsupportedError`, `HumanDecisionModeUnsupportedError`): the workspace's
   * plugins run code no agent's rules govern.
   */
  readonly workspaceSettings?: boolean;
}

function opencodeBinary(): string | undefined {
  try {
    return join(dirname(createRequire(import.meta.url).resolve("opencode-ai/package.json")), "bin", "opencode.exe");
  } catch {
    return undefined;
  }
}

/**
 * What opencode 1.18.33 has proved in this package's tests: `read_only` → the preset's read-only
 * agent, the permission modes → the preset's asking agent (both selected through its `mode` config
 * option and checked); MCP over stdio.
 */
const DESCRIPTOR_CONFIG: Partial<AcpConfig> = {
  type: "opencode",
  displayName: "OpenCode",
  sandboxModes: { read_only: OPENCODE_READ_ONLY_AGENT },
  askMode: OPENCODE_ASK_AGENT,
  delegationTools: OPENCODE_DELEGATION_TOOLS,
  mcpTransports: ["stdio"],
};

/** With `workspaceSettings`: no `read_only` or ask mode (the workspace's plugins act outside them). */
const TRUSTED_DESCRIPTOR_CONFIG = trustedDescriptor(DESCRIPTOR_CONFIG);

/** The ACP config `opencode(config)` runs: `opencode acp` with the preset's agents in `OPENCODE_CONFIG_CONTENT`. */
export function opencodeAcpConfig(config: OpencodeConfig | undefined): AcpConfig {
  const checked = validateDriverConfig<OpencodeConfig>("opencode", config, {
    ownedFlags: ["acp"],
    shape: { opencodeConfig: optionChecks.object(), workspaceSettings: optionChecks.boolean() },
    check: (c, refuse) => {
      const env = c["env"] as Record<string, string> | undefined;
      if (env?.["OPENCODE_CONFIG_CONTENT"] !== undefined)
        refuse("env", "OPENCODE_CONFIG_CONTENT is the preset's: set `opencodeConfig` instead");
    },
  });
  const { opencodeConfig = {}, workspaceSettings = false, ...common } = checked;
  const own = opencodeConfig as Record<string, unknown>;
  const content = {
    autoupdate: false,
    share: "disabled",
    ...own,
    agent: { ...((own["agent"] as Record<string, unknown> | undefined) ?? {}), ...PRESET_AGENTS },
  };
  const binary = common.command === undefined ? opencodeBinary() : undefined;
  return validateAcpConfig("opencode", {
    ...common,
    ...(workspaceSettings ? TRUSTED_DESCRIPTOR_CONFIG : DESCRIPTOR_CONFIG),
    command: binary ?? common.command ?? "opencode",
    args: ["acp"],
    env: {
      OPENCODE_DISABLE_AUTOUPDATE: "1",
      OPENCODE_DISABLE_MODELS_FETCH: "1",
      OPENCODE_DISABLE_LSP_DOWNLOAD: "1",
      OPENCODE_DISABLE_SHARE: "1",
      ...common.env,
      ...(workspaceSettings ? {} : { OPENCODE_DISABLE_PROJECT_CONFIG: "1" }),
      OPENCODE_CONFIG_CONTENT: JSON.stringify(content),
    },
    inheritEnv: common.inheritEnv ?? OPENCODE_INHERITED_ENV,
  });
}

/**
 * The OpenCode driver: opencode 1.18.33 over ACP (`opencode acp`). `read_only` and the permission
 * modes select agents the preset adds to OpenCode's config (see {@link OPENCODE_ASK_AGENT},
 * {@link OPENCODE_READ_ONLY_AGENT}), checked after they are set; under them its config switches
 * (`OPENCODE_CONFIG`, `OPENCODE_CONFIG_DIR`, `OPENCODE_TEST_MANAGED_CONFIG_DIR`,
 * `OPENCODE_PERMISSION`) are refused (set by the host) or removed (inherited, with a `notice`
 * `policy`); `env.OPENCODE_CONFIG_CONTENT` is refused (use `opencodeConfig`). MCP over stdio.
 */
export function opencode(config?: OpencodeConfig): AcpDriver {
  const trusted = config?.workspaceSettings === true;
  return new AcpDriver(trusted ? TRUSTED_DESCRIPTOR_CONFIG : DESCRIPTOR_CONFIG, {
    resolve: () => opencodeAcpConfig(config),
    ...(trusted ? {} : { allowAllEnv: CONFINED_ENV }),
  });
}
