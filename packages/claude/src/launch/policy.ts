import {
  PolicyCapabilityUnsupportedError,
  type DriverRequest,
  type McpServerConfig,
  type PolicyEnforcement,
  type RunPolicy,
} from "@adaptor/driver";
import { reportEnforcement } from "@adaptor/driver/kit";
import type { ClaudeConfig } from "../config.js";

/**
 * The built-in tools that only read (files, the CLI's own task list, tool schemas): the only
 * built-ins offered under the `read_only` sandbox (`--tools`; the structured-output tool of
 * `--json-schema` is not a built-in and stays). Every other built-in, including any a later CLI
 * adds, is not offered at all. Names the pinned CLI does not have are ignored by it.
 * AskUserQuestion is left out: the CLI's `dontAsk` mode denies it even when a rule allows it.
 */
export const READ_ONLY_TOOLS: readonly string[] = Object.freeze([
  "Read",
  "Glob",
  "Grep",
  "LS",
  "NotebookRead",
  "ToolSearch",
  "TodoWrite",
  "TaskCreate",
  "TaskGet",
  "TaskList",
  "TaskUpdate",
]);
/** Tools that reach the web; denied when `webSearch` is `deny`, and not offered under `read_only`. */
const WEB_TOOLS = ["WebSearch", "WebFetch"];

/** What a run policy adds to a claude launch. */
export interface PolicyLaunch {
  readonly args: string[];
  readonly env: Record<string, string>;
  /** Under `read_only`: the only tools the every-tool hook may ask about ({@link READ_ONLY_TOOLS}). */
  readonly askableTools?: readonly string[];
  /**
   * Under an `ask` / `auto_deny` permission mode: the every-tool hook runs for every process and
   * answers "ask" for each call except the read tools ({@link READ_ONLY_TOOLS}, left to the CLI's
   * own defaults), so an allow rule of any settings file (the user's own included) cannot run a
   * command or an edit without the host's decision. Under `read_only` with such a mode too, where
   * it asks only about a read a deny rule of the run names (`dontAsk` would run it unasked).
   */
  readonly guardAllowRules?: boolean;
  /** Settings for `--settings <file>`, when the policy needs any; `disableAllHooks` under `read_only`. */
  readonly settings?: { permissions: { deny: string[]; allow: string[] }; disableAllHooks?: boolean };
}

/**
 * Maps the enforceable parts of a run policy to Claude flags and settings (each claim proved in
 * test/claude on the real binary):
 * - `read_only` fails closed: `--tools` offers only {@link READ_ONLY_TOOLS} (no web tools: the
 *   driver cannot offer `webSearch: "allow"`), and `--permission-mode dontAsk` denies, without
 *   asking, every call no rule allows: an MCP server's tool, a read outside the working directory,
 *   a question. The SDK's host tools (trusted servers) stay allowed: they are the host's own code.
 *   With `askForEveryTool`, the hook asks only about {@link READ_ONLY_TOOLS} (its "ask" would
 *   otherwise bring an MCP server's tool to the host, past `dontAsk`). `disableAllHooks` in the
 *   driver's settings file keeps every settings file's hooks (the user's own included) from
 *   running or answering; the driver's control-protocol hooks still run.
 * - `unrestricted` → `bypassPermissions` (with `IS_SANDBOX=1` as root, which the CLI otherwise
 *   refuses, docs/protocols.md), unless the permission mode is `ask` or `auto_deny`: then no
 *   sandbox, and the launch of the `ask` / `auto_deny` item below (the host decides every call).
 * - `webSearch: "deny"` → deny rules for the web tools.
 * - trusted MCP servers (the SDK's host tools) → allow rules.
 * - the run's permission rules (`toolRules`, from `allowedTools` / `disallowedTools`) → allow and
 *   deny rules in the same settings file.
 * - a `permission` approval mode of `ask` or `auto_deny` (without a sandbox mode, or under
 *   `unrestricted`) →
 *   `--permission-mode default`, so a `defaultMode` from a settings file (the workspace's own
 *   `.claude/settings.json` may say `acceptEdits`, which runs edits and shell writes unasked)
 *   does not decide in the host's place; and the every-tool hook answers "ask" for every call
 *   but the read tools, which outranks the allow rules of any settings file
 *   ({@link PolicyLaunch.guardAllowRules}).
 * Approval modes are applied by the SDK, not the CLI.
 * @throws PolicyCapabilityUnsupportedError (matches `ErrPolicyCapabilityUnsupported`) under a
 * policy the host's config would loosen (`read_only`, or a `permission` approval mode of `ask` or
 * `auto_deny`): when the run's `allowedTools` or `extraArgs` pre-approve tools (`--allowedTools`,
 * `--allowed-tools`), or `workspaceSettings` loads the workspace's hooks, which run commands no
 * policy governs.
 */
export function policyLaunch(
  policy: RunPolicy | undefined,
  mcpServers: readonly McpServerConfig[] = [],
  config: Pick<ClaudeConfig, "extraArgs" | "workspaceSettings"> = {},
  toolRules: DriverRequest["toolRules"] = {},
): PolicyLaunch {
  refuseLooseningConfig(policy, config, toolRules.allow ?? []);
  const deny: string[] = [...(toolRules.deny ?? [])];
  // `mcp__<server>` allows every tool of a trusted server (the SDK's host tools) without asking.
  const allow = mcpServers.filter((server) => server.trusted).map((server) => `mcp__${server.name}`);
  allow.push(...(toolRules.allow ?? []));
  const args: string[] = [];
  const env: Record<string, string> = {};
  const readOnly = policy?.sandbox === "read_only";
  if (readOnly) args.push("--tools", READ_ONLY_TOOLS.join(","), "--permission-mode", "dontAsk");
  const hostDecides = hostDecidesCalls(policy);
  if (policy?.sandbox === "unrestricted" && !hostDecides) {
    args.push("--permission-mode", "bypassPermissions");
    if (process.getuid?.() === 0) env.IS_SANDBOX = "1";
  }
  if (hostDecides) args.push("--permission-mode", "default");
  if (policy?.webSearch === "deny") deny.push(...WEB_TOOLS);
  return {
    args,
    env,
    ...(readOnly ? { askableTools: READ_ONLY_TOOLS } : {}),
    // Under read_only the hook asks only about a read a deny rule of the run names (dontAsk runs reads unasked).
    ...(hostDecides || (readOnly && asksOrDenies(policy)) ? { guardAllowRules: true } : {}),
    // Under read_only no settings file's hook runs: a user's PreToolUse hook answering "allow"
    // would otherwise let a call past dontAsk (a read outside the working directory), and a hook
    // runs commands. The driver's own hooks (the control protocol's callbacks) still run.
    ...(deny.length || allow.length || readOnly
      ? { settings: { permissions: { deny, allow }, ...(readOnly ? { disableAllHooks: true } : {}) } }
      : {}),
  };
}

/** True when the run's `permission` approvals are the host's to decide: `ask` or `auto_deny`. */
function asksOrDenies(policy: RunPolicy | undefined): boolean {
  const mode = policy?.approvals?.permission;
  return mode === "ask" || mode === "auto_deny";
}

/**
 * True when every call but the read tools must wait for the host's answer (`ask` / `auto_deny`)
 * and no `read_only` sandbox already refuses them: without a sandbox mode, and under
 * `unrestricted`, which then only means that no sandbox confines what the host approves
 * (`bypassPermissions` would run every call unasked).
 */
function hostDecidesCalls(policy: RunPolicy | undefined): boolean {
  return asksOrDenies(policy) && policy?.sandbox !== "read_only";
}

/** The CLI flags that add allow rules: a call they match runs without the CLI asking anyone. */
const ALLOW_RULE_FLAGS = ["--allowedTools", "--allowed-tools"];

/** The first argument of `extraArgs` that adds allow rules ({@link ALLOW_RULE_FLAGS}, alone or `--flag=value`), if any. */
export function allowRuleFlag(extraArgs: readonly string[] = []): string | undefined {
  return extraArgs.find((arg) => ALLOW_RULE_FLAGS.some((name) => arg === name || arg.startsWith(`${name}=`)));
}

/**
 * Refuses a run that would let calls past a `read_only` sandbox or the host's approvals: the run's
 * own allow rules, allow rules in `extraArgs`, or the workspace's settings files (their hooks run
 * commands).
 */
function refuseLooseningConfig(
  policy: RunPolicy | undefined,
  config: Pick<ClaudeConfig, "extraArgs" | "workspaceSettings">,
  allowRules: readonly string[],
): void {
  const [dimension, value] =
    policy?.sandbox === "read_only"
      ? ["sandbox", "read_only"]
      : asksOrDenies(policy)
        ? ["approvals.permission", policy!.approvals!.permission!]
        : [undefined, undefined];
  if (dimension === undefined || value === undefined) return;
  const flag = allowRuleFlag(config.extraArgs);
  const why =
    allowRules.length > 0
      ? `allowedTools let calls run without the host being asked; drop them or the policy`
      : flag !== undefined
        ? `extraArgs hold ${flag.split("=")[0]}, whose allow rules let calls run without the host being asked; drop the flag or the policy`
        : config.workspaceSettings
          ? "workspaceSettings loads the workspace's hooks, which run commands no policy governs; drop the option or the policy"
          : undefined;
  if (why === undefined) return;
  const error = new PolicyCapabilityUnsupportedError("claude", dimension, value);
  error.message = `claude: policy ${dimension}=${JSON.stringify(value)} cannot be enforced: ${why}`;
  throw error;
}

/**
 * What a claude run enforced of its policy, for `DriverResponse.enforcement`: `read_only` by
 * `--tools` (only {@link READ_ONLY_TOOLS}) and `--permission-mode dontAsk`, `unrestricted` by
 * `--permission-mode bypassPermissions`, `webSearch: "deny"` by permission deny rules in the
 * `--settings` file; approval modes by the SDK's broker answering the CLI's `can_use_tool`
 * requests (`--permission-prompt-tool stdio`).
 */
export function claudeEnforcement(policy: RunPolicy | undefined): PolicyEnforcement[] {
  return reportEnforcement(policy, (field, value) => {
    if (field === "sandbox" && value === "read_only")
      return {
        mechanisms: ["cli_flag", "cli_config"],
        detail: `--tools ${READ_ONLY_TOOLS.join(",")} --permission-mode dontAsk; --settings disableAllHooks (no settings file's hook runs)`,
      };
    if (field === "sandbox" && hostDecidesCalls(policy))
      return {
        mechanisms: ["cli_flag"],
        detail: `no sandbox; --permission-mode default: every call but the read tools waits for the host's answer (approvals.permission ${policy?.approvals?.permission})`,
      };
    if (field === "sandbox") return { mechanisms: ["cli_flag"], detail: "--permission-mode bypassPermissions" };
    if (field === "webSearch") return { mechanisms: ["cli_config"], detail: `--settings permissions.deny: ${WEB_TOOLS.join(", ")}` };
    if (field === "approvals.permission" && policy?.sandbox === "unrestricted" && value === "auto_approve")
      return { mechanisms: ["cli_flag"], detail: "--permission-mode bypassPermissions: every call runs without being asked" };
    if (field === "approvals.permission" && hostDecidesCalls(policy))
      return {
        mechanisms: ["approval", "cli_flag"],
        detail:
          "--permission-mode default (no settings file's mode applies) and a PreToolUse hook answering ask for every call but the read tools (no settings file's allow rule applies); the CLI asks through --permission-prompt-tool stdio (can_use_tool); the SDK answers",
      };
    if (field === "approvals.elicitation")
      return {
        mechanisms: ["approval"],
        detail: "the CLI relays an MCP server's elicitation as an elicitation control request on stdio; the SDK answers",
      };
    return { mechanisms: ["approval"], detail: "the CLI asks through --permission-prompt-tool stdio (can_use_tool); the SDK answers" };
  });
}
