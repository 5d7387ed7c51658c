import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { validateDriverConfig, type CommonDriverConfig } from "@adaptor/driver/kit";
import { SAFE_ENV_BASE } from "@adaptor/driver/process";
import { optionChecks } from "@adaptor/errors";
import { AcpDriver } from "../acp-driver.js";
import { validateAcpConfig, type AcpConfig } from "../config/acp-config.js";
import { claudeInheritedSession } from "./claude-inherited-session.js";
import { trustedDescriptor } from "./trusted-workspace.js";

/** The `@zed-industries/claude-agent-acp` version this package pins and is tested against. */
export const PINNED_CLAUDE_AGENT_ACP_VERSION = "0.23.1";

/**
 * The host variables the adapter (and the Claude Code it runs) inherits when `inheritEnv` is unset:
 * the safe base plus `ANTHROPIC_*`, `CLAUDE_*`, proxies and `NO_COLOR`.
 */
export const CLAUDE_AGENT_ACP_INHERITED_ENV: readonly string[] = Object.freeze([
  ...SAFE_ENV_BASE,
  "ANTHROPIC_*",
  "CLAUDE_*",
  "HTTP_PROXY",
  "HTTPS_PROXY",
  "NO_PROXY",
  "NO_COLOR",
]);

/**
 * Configuration of {@link claudeAgentAcp}: the common driver fields. `command` defaults to Node
 * running the pinned adapter when that optional peer dependency is installed next to this package
 * (else `claude-agent-acp` on PATH); `inheritEnv` defaults to {@link CLAUDE_AGENT_ACP_INHERITED_ENV}.
 */
export interface ClaudeAgentAcpConfig extends CommonDriverConfig {
  /**
   * Load the working directory's Claude Code settings (`.claude/settings.json`,
   * `.claude/settings.local.json`): their hooks run shell commands, their `env` can point the model
   * API (the conversation and the key) elsewhere, their permission rules answer asks. Default
   * false: every session asks the adapter for the `user` setting source only (`_meta.claudeCode.options.settingSources`;
   * the adapter itself passes user, project and local). The adapter still reads the workspace's
   * `permissions.defaultMode` and `model` itself when it opens a session: for a run that leaves
   * them to the agent (approval modes `inherit`, no `model`) the driver then selects what the
   * host's own settings (user, managed) choose: their mode (else `default`) and model (else the
   * first one the adapter offers). True keeps the adapter's sources; `read_only` and the
   * permission modes are then refused before launch (`PolicyCapabilityUnsupportedError`,
   * `HumanDecisionModeUnsupportedError`): the workspace's hooks run commands no mode governs.
   */
  readonly workspaceSettings?: boolean;
}

/** Session options that keep the adapter's Claude Code to the user's settings. */
const USER_SETTINGS_ONLY = Object.freeze({ claudeCode: { options: { settingSources: ["user"] } } });

function adapterEntry(): string | undefined {
  try {
    return join(dirname(createRequire(import.meta.url).resolve("@zed-industries/claude-agent-acp/package.json")), "dist", "index.js");
  } catch {
    return undefined;
  }
}

/**
 * What claude-agent-acp 0.23.1 has proved in this package's tests: `read_only` → session mode
 * `dontAsk` (every tool that needs a permission is denied; its `plan` mode still wrote a file), the
 * permission modes → `default` (it asks before edits and commands); MCP over stdio; fork. No
 * interrupt: after a `session/cancel`, 0.23.1 answers the session's next prompt at once with
 * `end_turn`, no model request and no output (the cancelled query's leftover result), so the turn
 * after an interrupt would not run (`test/turn-control.test.ts`).
 */
const DESCRIPTOR_CONFIG: Partial<AcpConfig> = {
  type: "claude-agent-acp",
  displayName: "Claude Agent (ACP adapter)",
  sandboxModes: { read_only: "dontAsk" },
  askMode: "default",
  mcpTransports: ["stdio"],
  interrupt: false,
};

/** With `workspaceSettings`: no `read_only` or ask mode (the workspace's hooks act outside them). */
const TRUSTED_DESCRIPTOR_CONFIG = trustedDescriptor(DESCRIPTOR_CONFIG);

/** The ACP config `claudeAgentAcp(config)` runs: `node <adapter>/dist/index.js`. */
export function claudeAgentAcpConfig(config: ClaudeAgentAcpConfig | undefined): AcpConfig {
  const { workspaceSettings = false, ...checked } = validateDriverConfig<ClaudeAgentAcpConfig>("claude-agent-acp", config, {
    shape: { workspaceSettings: optionChecks.boolean() },
  });
  const entry = checked.command === undefined ? adapterEntry() : undefined;
  const base = entry ? { command: process.execPath, args: [entry] } : { command: checked.command ?? "claude-agent-acp", args: [] };
  return validateAcpConfig("claude-agent-acp", {
    ...checked,
    ...(workspaceSettings
      ? { ...TRUSTED_DESCRIPTOR_CONFIG, workspaceSettings }
      : { ...DESCRIPTOR_CONFIG, sessionMeta: USER_SETTINGS_ONLY }),
    command: base.command,
    args: base.args,
    inheritEnv: checked.inheritEnv ?? CLAUDE_AGENT_ACP_INHERITED_ENV,
  });
}

/**
 * Claude Code through Zed's ACP adapter (`@zed-industries/claude-agent-acp` 0.23.1). `read_only`
 * selects session mode `dontAsk`, the permission modes `default`, each checked after it was set.
 * Under either the session is opened without the adapter's tools that write unasked in every mode
 * (`CronCreate`, `CronDelete`, `EnterWorktree`, `ExitWorktree`: `disallowedTools`), and an ask
 * offers only its options for the one call (no "Always Allow"). Such a run continuing a session in
 * which an ask was answered "Always Allow" runs in a new process, where the grant does not hold.
 */
export function claudeAgentAcp(config?: ClaudeAgentAcpConfig): AcpDriver {
  const trusted = config?.workspaceSettings === true;
  return new AcpDriver(trusted ? TRUSTED_DESCRIPTOR_CONFIG : DESCRIPTOR_CONFIG, {
    resolve: () => claudeAgentAcpConfig(config),
    // The adapter takes the session's mode and model from the workspace's files whatever the
    // setting sources: a run that leaves them to the agent gets the host's own instead.
    ...(trusted ? {} : { inheritedSession: claudeInheritedSession }),
    // Its "Always Allow" adds a rule to the session in its process only (0.23.1): the session loaded
    // in a new process asks again (test/claude-agent-acp-always-grant.test.ts).
    grantsEndWithProcess: true,
  });
}
