import {
  assertPolicySupported,
  HumanDecisionModeUnsupportedError,
  PolicyCapabilityUnsupportedError,
  type DriverDescriptor,
  type McpServerConfig,
  type PolicyEnforcement,
  type RunPolicy,
  type SandboxMode,
} from "@adaptor/driver";
import { reportEnforcement } from "@adaptor/driver/kit";
import { configKeySetBy } from "./config-key.js";
import type { AskForApproval } from "./protocol/generated/v2/AskForApproval.js";
import type { SandboxPolicy } from "./protocol/generated/v2/SandboxPolicy.js";

/**
 * Why codex cannot relay an MCP server's elicitation under approval policy `never`: codex 0.171.0
 * declines it itself and never sends `mcpServer/elicitation/request`.
 */
export const ELICITATION_UNDER_NEVER =
  'under approval_policy = "never" codex declines an MCP server\'s elicitation itself and never relays it to the host';

/** codex's sandbox names (`thread/start` `sandbox`, `codex exec -s`). */
export type CodexSandbox = "read-only" | "workspace-write" | "danger-full-access";

/** What a {@link RunPolicy} becomes on the codex side. Unset fields are left to codex's own config. */
export interface CodexPolicyPlan {
  readonly sandbox?: CodexSandbox;
  /** `thread/start` `approvalPolicy` (`-c approval_policy=` for exec). */
  readonly approvalPolicy?: "untrusted" | "never";
  /** `web_search` config: `"live"` offers the model the web search tool, `"disabled"` removes it. */
  readonly webSearch?: "live" | "disabled";
  /** Set when the driver turned web search off because of the run's effort: why (the enforcement detail says it). */
  readonly webSearchOffForEffort?: string;
  /**
   * Set when the run accepted best effort (`bestEffortPolicy`) for a confining sandbox that codex's
   * approval policy can leave (permission `ask`, or `inherit` with codex's own policy other than
   * `never`): why the sandbox is reported not enforced.
   */
  readonly sandboxBestEffort?: string;
  /**
   * Set for permission `ask` with no sandbox in the policy: the driver then runs each turn in
   * `danger-full-access` ({@link sandbox}; app server: `turn/start` `sandboxPolicy`, not
   * `thread/start` `sandbox`, which makes codex 0.171.0 mark the working directory trusted in its
   * config.toml and load the project's `.codex/config.toml`), because in codex's own sandbox a
   * command the host approved runs confined or not by a race ({@link ASK_WITHOUT_SANDBOX}). The
   * reason, for the enforcement detail.
   */
  readonly sandboxForAsk?: string;
  /**
   * Set when the policy sets no sandbox and the permission is not `ask`: the sandbox codex applied
   * of its own, as the thread's opening answer names it (`read-only`, `workspace-write`,
   * `danger-full-access`, `external-sandbox`), for the approvals entry of the enforcement report.
   */
  readonly ownSandbox?: string;
  /** True when the run has MCP servers of the host's (not the SDK's host-tool server): the enforcement detail says how their tools are approved. */
  readonly hostMcpServers?: boolean;
  /**
   * Set for permission `inherit` under a confining sandbox: codex's own approval policy, known only
   * once `thread/start` / `thread/resume` answered, is checked by {@link checkInheritedApprovals}
   * before the first turn starts (`"refuse"`, or `"best_effort"` with `bestEffortPolicy`).
   */
  readonly inheritedApprovals?: "refuse" | "best_effort";
  /**
   * Sandbox `workspace_write` only: the writable roots besides the working directory, pinned by the
   * driver (`sandbox_workspace_write.writable_roots`, so a `writable_roots` line in codex's
   * config.toml cannot widen the sandbox) to the run's `additionalDirectories`, else `[]`; or the
   * host's own `configOverrides` value of that key, passed as it is. The enforcement detail lists them.
   */
  readonly writableRoots?: readonly string[] | string | number | boolean;
  /**
   * Sandbox `workspace_write` with `additionalDirectories` only: the directories as the run gave
   * them, in the order of {@link writableRoots} (their resolved paths), for the enforcement detail.
   */
  readonly requestedDirectories?: readonly string[];
  /** True when {@link writableRoots} is the host's own `configOverrides` value, not the driver's pin. */
  readonly hostWritableRoots?: boolean;
  /**
   * Sandbox `read_only` only: the run's `additionalDirectories`, accepted without widening writes
   * (codex's read-only sandbox lets commands read every path already), for the enforcement detail.
   */
  readonly readOnlyDirectories?: readonly string[];
}

/** The config key of the writable roots codex adds to the `workspace-write` sandbox. */
export const WRITABLE_ROOTS_KEY = "sandbox_workspace_write.writable_roots";

/**
 * `extraArgs` flags of `codex exec` 0.171.0 that widen a confining sandbox, refused when the run
 * sets sandbox `read_only` or `workspace_write` (accepted otherwise): `--add-dir` (another
 * writable root), `--trust` (loads the project's `.codex/config.toml`, whose sandbox settings and
 * MCP commands then apply, and saves that trust) and `--dangerously-bypass-hook-trust` (runs
 * unreviewed hooks, which no sandbox confines).
 */
export const SANDBOX_WIDENING_FLAGS: readonly string[] = Object.freeze(["--add-dir", "--trust", "--dangerously-bypass-hook-trust"]);

/** The launch settings {@link planPolicy} checks against the policy. */
export interface CodexLaunchSettings {
  readonly extraArgs?: readonly string[];
  readonly configOverrides?: Readonly<Record<string, string | number | boolean | readonly string[]>>;
}

/** Why a confining sandbox cannot be enforced under `ask` (what codex 0.171.0 does with an approved command). */
export const SANDBOX_UNDER_ASK =
  "under ask codex runs a command the host approved outside its sandbox when the sandbox blocks it (it retries without " +
  "asking again) or when the model asks for escalated permissions (the approval request looks the same); use auto_approve " +
  "or auto_deny with this sandbox, or ask with sandbox unrestricted";

/**
 * Why permission `ask` with no sandbox runs codex in `danger-full-access` (codex 0.171.0). Left to
 * itself codex takes `sandbox_mode` from its config, else `workspace-write` for a project the user
 * trusted (or distrusted) in config.toml, else `read-only`. Under approval policy `untrusted` it asks,
 * then runs the approved command in that sandbox; only when the command exits within a short window
 * of its start with output that looks like a sandbox denial does codex run it again outside the
 * sandbox, so an approved write fails ("Read-only file system") or runs by a race.
 */
export const ASK_WITHOUT_SANDBOX =
  "no sandbox set: each turn runs with sandbox danger-full-access (turn/start sandboxPolicy), so a command the host approved runs as approved (in codex's " +
  "own default sandbox it would run confined or not by a race); codex itself may run a command it deems safe unasked, " +
  "unconfined (codex 0.171.0 asked for ls, cat, git status and pwd as well)";

/**
 * What approval policy `never` does to the tools of the host's MCP servers (app-server): codex
 * 0.171.0 refuses a call it would ask about when it may not ask, so the driver gives every such
 * server `default_tools_approval_mode = "approve"` and its tools run unasked.
 */
export const MCP_TOOLS_UNDER_NEVER = 'MCP servers\' tools run unasked (default_tools_approval_mode = "approve")';

/** Why a confining sandbox cannot be enforced with MCP servers of the host's (not the SDK's host tools) unless every call is denied. */
export const SANDBOX_WITH_MCP =
  "an MCP server's tool runs outside codex's sandbox (the server is a process of its own, or remote), and under this " +
  "sandbox with approval policy never (permission unset, auto_approve, or inherit) codex refuses every MCP tool call " +
  '("MCP tool call requires approval, but approval policy is never"); use sandbox unrestricted with the MCP servers';

/** Why a confining sandbox cannot be enforced under codex's own approval policy `policy` (permission `inherit`). */
export function sandboxUnderInherited(policy: AskForApproval): string {
  return (
    `codex's own approval policy is ${JSON.stringify(policy)}: under it codex runs a command the host approved outside its ` +
    "sandbox (an escalated command, or a retry after the sandbox blocked it); leave the permission unset or use auto_approve " +
    'or auto_deny with this sandbox, or set approval_policy = "never" in codex\'s config'
  );
}

/** The writable roots `roots` as JSON, each given as `requested` named it and, when it differs, followed by `-> real path`. */
function rootsNamed(roots: readonly string[], requested: readonly string[] | undefined): string {
  return JSON.stringify(
    roots.map((root, index) => (requested?.[index] !== undefined && requested[index] !== root ? `${requested[index]} -> ${root}` : root)),
  );
}

const SANDBOXES: Readonly<Record<SandboxMode, CodexSandbox>> = {
  read_only: "read-only",
  workspace_write: "workspace-write",
  unrestricted: "danger-full-access",
};

/**
 * Maps a run policy to codex settings, refusing before launch what the descriptor does not declare
 * (the SDK checks first; this is the driver's own guard):
 * - `sandbox` read_only / workspace_write / unrestricted → `read-only` / `workspace-write` / `danger-full-access`;
 * - `webSearch` allow / deny → config `web_search = "live"` / `"disabled"`;
 * - `approvals.permission` picks codex's approval policy; the decisions themselves are the SDK's
 *   (its approval broker answers auto modes, docs/design.md "Drivers"): `ask` and `auto_deny` →
 *   `untrusted` (codex asks before every command that is not known-safe and before every file
 *   change; each ask goes to the sink); `auto_approve` → `never` (codex asks nothing and the
 *   sandbox is the bound, so `read_only` stays read-only); unset → `never` under sandbox `read_only`
 *   or `workspace_write` (the host set a sandbox and no approval mode: the sandbox is the bound),
 *   otherwise codex's own policy; `inherit` → codex's own policy (under a confining sandbox it is
 *   checked once the thread is open, {@link checkInheritedApprovals}).
 * - `ask` with no sandbox → `danger-full-access` ({@link ASK_WITHOUT_SANDBOX}): codex's own default
 *   sandbox would run a command the host approved confined or not by a race.
 * - `ask` together with sandbox `read_only` or `workspace_write` is refused ({@link SANDBOX_UNDER_ASK}:
 *   under `untrusted` codex runs an approved command outside its sandbox; under its other policies it
 *   does not ask before a sandboxed command), unless `bestEffort`: then the run goes on and the
 *   plan's `sandboxBestEffort` is set.
 * - sandbox `read_only` or `workspace_write` with an MCP server of the host's (`mcpServers` that are
 *   not `trusted`, i.e. not the SDK's host-tool server) is refused unless the permission is
 *   `auto_deny` ({@link SANDBOX_WITH_MCP}: codex would refuse every call of its tools), whatever
 *   `bestEffort` says. Under `auto_deny` codex asks before each MCP tool call and the SDK denies it.
 *
 * @throws InvalidPolicyError for a value outside its domain; PolicyCapabilityUnsupportedError for
 * a sandbox / web search / browser / active-timeout value the descriptor lacks, or for sandbox
 * `read_only` / `workspace_write` with permission `ask` (without `bestEffort`), or with an MCP
 * server of the host's and a permission other than `auto_deny`;
 * HumanDecisionModeUnsupportedError for an approval mode the descriptor lacks.
 */
export function planPolicy(
  policy: RunPolicy | undefined,
  descriptor: DriverDescriptor,
  bestEffort = false,
  launch: CodexLaunchSettings = {},
  mcpServers: readonly McpServerConfig[] = [],
): CodexPolicyPlan {
  if (!policy) return {};
  assertPolicySupported(descriptor, policy);
  const permission = policy.approvals?.permission;
  const confined = policy.sandbox === "read_only" || policy.sandbox === "workspace_write";
  if (confined) refuseWideningArgs(descriptor.type, policy.sandbox!, launch.extraArgs ?? []);
  const hostRoots = launch.configOverrides?.[WRITABLE_ROOTS_KEY];
  const hostMcp = mcpServers.some((server) => server.trusted !== true);
  if (confined && permission === "ask" && !bestEffort) {
    const error = new PolicyCapabilityUnsupportedError(descriptor.type, "sandbox", policy.sandbox!);
    error.message = `${descriptor.type}: policy sandbox=${JSON.stringify(policy.sandbox)} cannot be enforced with permission "ask": ${SANDBOX_UNDER_ASK} (or set bestEffortPolicy to run it with the sandbox reported not enforced)`;
    throw error;
  }
  if (confined && permission !== "ask" && permission !== "auto_deny" && hostMcp) {
    const error = new PolicyCapabilityUnsupportedError(descriptor.type, "sandbox", policy.sandbox!);
    error.message = `${descriptor.type}: policy sandbox=${JSON.stringify(policy.sandbox)} cannot be combined with MCP servers under permission ${JSON.stringify(permission ?? "unset")}: ${SANDBOX_WITH_MCP}`;
    throw error;
  }
  const approvalPolicy =
    permission === "ask" || permission === "auto_deny"
      ? "untrusted"
      : permission === "auto_approve" || (permission === undefined && confined)
        ? "never"
        : undefined;
  if (approvalPolicy === "never" && policy.approvals?.elicitation === "ask") {
    const error = new HumanDecisionModeUnsupportedError(descriptor.type, "elicitation", "ask");
    error.message = `${descriptor.type}: approvals.elicitation "ask" cannot be honoured under permission ${JSON.stringify(permission ?? "unset")}${confined ? ` with sandbox ${JSON.stringify(policy.sandbox)}` : ""}: ${ELICITATION_UNDER_NEVER} (set permission "ask" or "auto_deny")`;
    throw error;
  }
  return {
    ...(policy.sandbox
      ? { sandbox: SANDBOXES[policy.sandbox] }
      : permission === "ask"
        ? { sandbox: "danger-full-access", sandboxForAsk: ASK_WITHOUT_SANDBOX }
        : {}),
    ...(approvalPolicy ? { approvalPolicy } : {}),
    ...(policy.webSearch ? { webSearch: policy.webSearch === "allow" ? "live" : "disabled" } : {}),
    ...(confined && permission === "ask" ? { sandboxBestEffort: SANDBOX_UNDER_ASK } : {}),
    ...(hostMcp ? { hostMcpServers: true } : {}),
    ...(confined && permission === "inherit" ? { inheritedApprovals: bestEffort ? "best_effort" : "refuse" } : {}),
    ...(policy.sandbox === "workspace_write"
      ? hostRoots === undefined
        ? { writableRoots: [] }
        : { writableRoots: hostRoots, hostWritableRoots: true }
      : {}),
  } as CodexPolicyPlan;
}

/**
 * Refuses `extraArgs` that widen the confining sandbox `sandbox`: a {@link SANDBOX_WIDENING_FLAGS}
 * flag (also as `--flag=value`), or a `-c`/`--config` setting of `sandbox_workspace_write.*`
 * (those go through `configOverrides`, where the report lists the writable roots).
 */
function refuseWideningArgs(driverType: string, sandbox: SandboxMode, extraArgs: readonly string[]): void {
  for (const [index, arg] of extraArgs.entries()) {
    const flag = arg.split("=", 1)[0] ?? arg;
    const why = SANDBOX_WIDENING_FLAGS.includes(flag)
      ? `extraArgs hold ${flag}, which lets commands past the sandbox; drop the flag or the sandbox`
      : configKeySetBy(arg, extraArgs[index + 1])?.startsWith("sandbox_workspace_write.")
        ? `extraArgs set ${configKeySetBy(arg, extraArgs[index + 1])!}; set it in configOverrides instead (the report then lists it)`
        : undefined;
    if (why === undefined) continue;
    const error = new PolicyCapabilityUnsupportedError(driverType, "sandbox", sandbox);
    error.message = `${driverType}: policy sandbox=${JSON.stringify(sandbox)} cannot be enforced: ${why}`;
    throw error;
  }
}

const SANDBOX_POLICY_NAMES: Readonly<Record<SandboxPolicy["type"], string>> = {
  readOnly: "read-only",
  workspaceWrite: "workspace-write",
  dangerFullAccess: "danger-full-access",
  externalSandbox: "external-sandbox",
};

/** The name of codex's sandbox `policy` (an answer's `SandboxPolicy`): `read-only`, `workspace-write`, `danger-full-access`, `external-sandbox`; `undefined` for none or an unknown type. */
export function sandboxPolicyName(policy: SandboxPolicy | undefined): string | undefined {
  const type = (policy as { type?: unknown } | undefined)?.type;
  return typeof type === "string" && Object.hasOwn(SANDBOX_POLICY_NAMES, type)
    ? SANDBOX_POLICY_NAMES[type as SandboxPolicy["type"]]
    : undefined;
}

/**
 * The plan with the sandbox codex applied of its own (`applied`, from the `thread/start` /
 * `thread/resume` / `thread/fork` answer) as {@link CodexPolicyPlan.ownSandbox}, when the plan
 * sets none; otherwise, or when codex named none, the plan as is.
 */
export function withOwnSandbox(plan: CodexPolicyPlan, applied: SandboxPolicy | undefined): CodexPolicyPlan {
  const name = sandboxPolicyName(applied);
  return plan.sandbox || name === undefined ? plan : { ...plan, ownSandbox: name };
}

/**
 * Checks codex's own approval policy (`effective`, from the `thread/start` / `thread/resume`
 * answer) for a plan with `inheritedApprovals`: `never` keeps the sandbox the bound and the plan is
 * returned as is; any other policy (`untrusted`, `on-request`, `granular`) can run a command the
 * host approved outside the sandbox, so the run is refused, or with best effort the returned plan
 * reports the sandbox not enforced. A plan without `inheritedApprovals` is returned as is.
 *
 * @throws PolicyCapabilityUnsupportedError (dimension `sandbox`) for a policy other than `never`
 * without best effort.
 */
export function checkInheritedApprovals(
  plan: CodexPolicyPlan,
  effective: AskForApproval | undefined,
  policy: RunPolicy | undefined,
  driverType: string,
): CodexPolicyPlan {
  if (!plan.inheritedApprovals || effective === undefined || effective === "never") return plan;
  const reason = sandboxUnderInherited(effective);
  if (plan.inheritedApprovals === "best_effort") return { ...plan, sandboxBestEffort: reason };
  const sandbox = String(policy?.sandbox);
  const error = new PolicyCapabilityUnsupportedError(driverType, "sandbox", sandbox);
  error.message = `${driverType}: policy sandbox=${JSON.stringify(sandbox)} cannot be enforced with permission "inherit": ${reason} (or set bestEffortPolicy to run it with the sandbox reported not enforced)`;
  throw error;
}

/**
 * What a codex run enforced of its policy, for `DriverResponse.enforcement`: the sandbox by
 * codex's own sandbox (`-s` for exec, `thread/start` `sandbox` for the app server), web search by
 * the `web_search` setting, approval modes by codex's `approval_policy` (`untrusted`: codex asks and
 * the SDK's broker answers; `never`: codex asks nothing and its sandbox is the bound). A sandbox the
 * run accepted on best effort (`plan.sandboxBestEffort`, the reason) is listed as not enforced.
 */
export function codexEnforcement(
  policy: RunPolicy | undefined,
  plan: CodexPolicyPlan,
  transport: "exec" | "app-server",
): PolicyEnforcement[] {
  const exec = transport === "exec";
  return reportEnforcement(policy, (field, value) => {
    if (field === "sandbox" && plan.sandboxBestEffort)
      return {
        notEnforced: `sandbox ${String(plan.sandbox)} set, not enforced (best effort accepted): ${plan.sandboxBestEffort}`,
        bestEffort: true,
      };
    if (field === "sandbox") {
      const roots = plan.hostWritableRoots
        ? `; writable roots besides the working directory (configOverrides ${WRITABLE_ROOTS_KEY}): ${JSON.stringify(plan.writableRoots)}`
        : Array.isArray(plan.writableRoots) && plan.writableRoots.length > 0
          ? `; writable roots besides the working directory (additionalDirectories, ${WRITABLE_ROOTS_KEY}): ${rootsNamed(plan.writableRoots, plan.requestedDirectories)}`
          : plan.writableRoots
            ? `; ${WRITABLE_ROOTS_KEY} = []`
            : plan.readOnlyDirectories
              ? `; additionalDirectories readable (the read-only sandbox lets commands read every path), not writable: ${JSON.stringify(plan.readOnlyDirectories)}`
              : "";
      return exec
        ? { mechanisms: ["cli_flag"], detail: `-s ${String(plan.sandbox)}${roots}` }
        : { mechanisms: ["cli_config"], detail: `thread/start sandbox ${String(plan.sandbox)}${roots}` };
    }
    if (field === "approvals.elicitation")
      return plan.approvalPolicy === "never"
        ? { mechanisms: [exec ? "cli_flag" : "cli_config"], detail: ELICITATION_UNDER_NEVER }
        : { mechanisms: ["approval"], detail: "codex relays an MCP server's elicitation (mcpServer/elicitation/request); the SDK answers" };
    if (field === "approvals.question" && value === "ask")
      return {
        mechanisms: ["cli_config", "approval"],
        detail:
          "features.default_mode_request_user_input = true in the thread's config: the model may call request_user_input, which codex sends as item/tool/requestUserInput; the SDK answers each question",
      };
    if (field === "approvals.question")
      return {
        mechanisms: ["cli_config", "approval"],
        detail:
          "features.default_mode_request_user_input stays off: codex answers the model's request_user_input itself (unavailable in the default mode); one that reaches the driver is denied by the SDK",
      };
    if (field === "webSearch")
      return {
        mechanisms: [exec ? "cli_flag" : "cli_config"],
        detail: `web_search = "${String(plan.webSearch)}"${plan.webSearchOffForEffort ? ` (set by the driver for effort minimal: ${plan.webSearchOffForEffort})` : ""}`,
      };
    const own = plan.ownSandbox ? `; sandbox ${plan.ownSandbox} (codex's own for this working directory, as for a new thread)` : "";
    return plan.approvalPolicy === "never"
      ? {
          mechanisms: [exec ? "cli_flag" : "cli_config"],
          detail: `approval_policy = "never": codex asks nothing; its sandbox is the bound${own}${plan.hostMcpServers ? `; ${MCP_TOOLS_UNDER_NEVER}` : ""}`,
        }
      : {
          mechanisms: ["approval"],
          detail: `approval_policy = "untrusted": codex asks before commands and file changes; the SDK answers${plan.sandboxForAsk ? `; ${plan.sandboxForAsk}` : own}`,
        };
  });
}
