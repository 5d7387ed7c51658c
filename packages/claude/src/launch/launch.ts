import { planModeArgs, refusePlanModeAllowRules } from "./plan-mode.js";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { DriverRequest, McpServerConfig } from "@adaptor/driver";
import { defaultClaudeCommand } from "../command.js";
import { checkStdioServerCommands, mergeChildEnv } from "@adaptor/driver/process";
import { CLAUDE_INHERITED_ENV, type ClaudeConfig } from "../config.js";
import { readCheckpointData } from "../session/checkpoint-data.js";
import { checkAddDirs } from "./add-dirs.js";
import { jsonSchemaArgs } from "./json-schema.js";
import { writeMcpConfig } from "./mcp-config.js";
import { policyLaunch } from "./policy.js";
import { stageSkills } from "./skills.js";

/** Everything one claude process is started with, plus what to remove after it ends. */
export interface Launch {
  readonly command: string;
  readonly args: string[];
  readonly env: Record<string, string | undefined>;
  readonly cwd: string;
  /** The `--model` the process was given, checked against the init line's model (protocol/model-check.ts). */
  readonly model?: string;
  /** The run's MCP servers, checked against the init line's status (protocol/mcp-status.ts). */
  readonly mcpServers?: readonly McpServerConfig[];
  /**
   * Why stdio servers of the run that are not required will not start (`command not found: …`),
   * by name, found before launch: their `mcp.status` error in place of the CLI's `Connection closed`.
   */
  readonly mcpCommandProblems?: ReadonlyMap<string, string>;
  /**
   * Under the `read_only` sandbox: the only tools the every-tool hook (`askForEveryTool`) may ask
   * the host about; any other call is left to the CLI's `dontAsk` mode, which denies it.
   */
  readonly askableTools?: readonly string[];
  /** Under `ask` / `auto_deny`: the every-tool hook guards against allow rules (see `PolicyLaunch.guardAllowRules`). */
  readonly guardAllowRules?: boolean;
  /**
   * The run has `budget.maxToolCalls`: the every-tool hook holds each call until the driver has
   * reported it (the SDK counts it then), and a call that arrives after the run was stopped never runs.
   */
  readonly holdToolCalls?: boolean;
  /**
   * Set for a turn started in plan mode (`--permission-mode plan`): the mode the policy launched
   * in, which an approved `ExitPlanMode` returns the CLI to (see `planModeArgs`).
   */
  readonly modeAfterPlan?: string;
  /** Removes per-run files (private MCP config, staged skills); idempotent. */
  cleanup(): Promise<void>;
}

/** The print-mode flags of the stream-json protocol on stdin and stdout (docs/protocols.md). */
export const STREAM_JSON_FLAGS: readonly string[] = ["-p", "--output-format", "stream-json", "--input-format", "stream-json", "--verbose"];

/**
 * Builds the launch of one run: the stream-json protocol flags the driver owns
 * (docs/protocols.md), model and session flags, per-run files in a private 0700 directory, then
 * the host's `extraArgs`. Per-feature parts live beside this file, one per concern.
 */
export async function prepareLaunch(config: ClaudeConfig, request: DriverRequest, newSessionId?: string): Promise<Launch> {
  const args = [
    ...STREAM_JSON_FLAGS,
    "--permission-prompt-tool",
    "stdio",
    // Without a system-prompt snapshot row after it, a turn's last message on stdout is the end of
    // the session's chain, so a turn resumed at it (`--resume-session-at`) continues that chain
    // rather than branching beside a trailing row, which a stale process of the same session could
    // otherwise make the CLI load as the conversation when it exits.
    "--system-prompt-snapshot",
    "off",
  ];
  if (config.partialMessages !== false) args.push("--include-partial-messages");
  const model = request.model ?? config.model;
  if (model) args.push("--model", model);
  if (request.session) {
    args.push("--resume", request.session.resumeId);
    // Resume at the checkpoint's last message: what the CLI appended after it is not the conversation.
    const at = readCheckpointData(request.session.data)?.lastMessageId;
    if (at) args.push("--resume-session-at", at);
    if (request.session.fork) args.push("--fork-session");
  } else if (newSessionId) {
    args.push("--session-id", newSessionId);
  }
  // The CLI's own limits stop before the next model call; the SDK counts too (and judges tool calls).
  if (request.budget?.maxTurns !== undefined) args.push("--max-turns", String(request.budget.maxTurns));
  if (request.budget?.maxCostUsd !== undefined) args.push("--max-budget-usd", String(request.budget.maxCostUsd));
  const policy = policyLaunch(request.policy, request.mcpServers, config, request.toolRules);
  if (request.planMode === true) refusePlanModeAllowRules(request.toolRules?.allow ?? [], config.extraArgs);
  const plan = request.planMode === true ? planModeArgs(policy.args) : undefined;
  args.push(...(plan?.args ?? policy.args));
  checkAddDirs(config, request);
  // One flag per directory: the flag takes several values, so a path is never read as another option's.
  for (const dir of request.additionalDirectories ?? []) args.push(`--add-dir=${dir}`);
  if (request.effort) args.push("--effort", request.effort);
  args.push(...jsonSchemaArgs(request));
  const env = claudeEnv(config, request, [policy.env, traceEnv(request)]);
  const cwd = request.cwd ?? config.cwd ?? process.cwd();
  // A stdio server's missing command, which claude would report only as `Connection closed`;
  // a required one's refuses the run here.
  const mcpCommandProblems = await checkStdioServerCommands(request.mcpServers, env, cwd);
  let privateDir: string | undefined;
  const privateFile = async (name: string): Promise<string> => {
    privateDir ??= await mkdtemp(join(env.TMPDIR ?? tmpdir(), "adaptor-claude-"));
    return join(privateDir, name);
  };
  try {
    if (policy.settings) {
      const settingsPath = await privateFile("settings.json");
      await writeFile(settingsPath, JSON.stringify(policy.settings), { mode: 0o600 });
      args.push("--settings", settingsPath);
    }
    if (request.systemPrompt) {
      // From a file: no argv length limit, and text starting with "-" is not read as a flag.
      const promptPath = await privateFile("system-prompt.txt");
      await writeFile(promptPath, request.systemPrompt.text, { mode: 0o600 });
      args.push(request.systemPrompt.mode === "replace" ? "--system-prompt-file" : "--append-system-prompt-file", promptPath);
    }
    if (request.agents) {
      const agentsPath = await privateFile("agents.json");
      await writeFile(agentsPath, JSON.stringify(request.agents), { mode: 0o600 });
      args.push("--agents", agentsPath);
    }
    if (request.mcpServers?.length) {
      args.push("--mcp-config", await writeMcpConfig(await privateFile("mcp.json"), request.mcpServers, env));
    }
    // Only the run's servers, unless the host opted into the user's own.
    if (!config.userMcpServers) args.push("--strict-mcp-config");
    // The workspace's own settings files (hooks that run commands, permission rules) only when asked for.
    args.push("--setting-sources", settingSources(config));
    if (request.skills?.length) args.push(...(await stageSkills(await privateFile("adaptor"), request.skills)));
  } catch (error) {
    if (privateDir) await rm(privateDir, { recursive: true, force: true });
    throw error;
  }
  args.push(...(config.extraArgs ?? []));
  return {
    command: config.command ?? defaultClaudeCommand(),
    args,
    env,
    cwd,
    ...(model ? { model } : {}),
    ...(request.mcpServers ? { mcpServers: request.mcpServers } : {}),
    ...(mcpCommandProblems.size > 0 ? { mcpCommandProblems } : {}),
    ...(policy.askableTools ? { askableTools: policy.askableTools } : {}),
    ...(policy.guardAllowRules ? { guardAllowRules: true } : {}),
    ...(request.budget?.maxToolCalls !== undefined ? { holdToolCalls: true } : {}),
    ...(plan ? { modeAfterPlan: plan.modeAfterPlan } : {}),
    async cleanup() {
      const dir = privateDir;
      privateDir = undefined;
      if (dir) await rm(dir, { recursive: true, force: true });
    },
  };
}

/**
 * The CLI's `--setting-sources`: the user's settings unless `userSettings` is false, the
 * workspace's with `workspaceSettings`; `""` loads no settings file (the driver's `--settings`
 * file still applies).
 */
export function settingSources(config: Pick<ClaudeConfig, "userSettings" | "workspaceSettings">): string {
  return [...(config.userSettings === false ? [] : ["user"]), ...(config.workspaceSettings ? ["project", "local"] : [])].join(",");
}

/** `TRACEPARENT` / `TRACESTATE` for the CLI, from the run's trace context (not a spawn input). */
function traceEnv(request: DriverRequest): Record<string, string> | undefined {
  if (!request.traceparent) return undefined;
  return { TRACEPARENT: request.traceparent, ...(request.tracestate ? { TRACESTATE: request.tracestate } : {}) };
}

/**
 * The environment claude gets for `request`: the inherited variables, the config's `env` and
 * `configDir`, the run's `env`, then `more` (the policy's variables, the trace context).
 */
export function claudeEnv(
  config: ClaudeConfig,
  request: Pick<DriverRequest, "env">,
  more: readonly (Readonly<Record<string, string>> | undefined)[] = [],
): Record<string, string | undefined> {
  return mergeChildEnv({
    inheritEnv: config.inheritEnv,
    defaultInherit: CLAUDE_INHERITED_ENV,
    layers: [config.env, config.configDir ? { CLAUDE_CONFIG_DIR: config.configDir } : undefined, request.env, ...more],
  });
}
