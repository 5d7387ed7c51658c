import {
  assertPolicySupported,
  HumanDecisionModeUnsupportedError,
  type DriverCapabilities,
  type DriverDescriptor,
  type EnforcementMechanism,
  type PolicyEnforcement,
  type RunPolicy,
  type SandboxMode,
} from "@adaptor/driver";
import { reportEnforcement } from "@adaptor/driver/kit";
import type { AcpConfig } from "../config/acp-config.js";

/** What the host does with an agent's `fs/write_text_file`. */
export type HostWrites = "deny" | "workspace" | "allow";
/** What the host does with an agent's `terminal/create` (`ask`: asks before every command, whatever the agent asked before). */
export type HostCommands = "deny" | "ask" | "allow";

/** The host capabilities offered to the agent in `initialize`; a method of one not offered is answered method-not-found. */
export interface HostOffer {
  /** `fs.readTextFile` and `fs.writeTextFile`. */
  readonly fs: boolean;
  /** `terminal`. */
  readonly terminal: boolean;
}

/** How one ACP run enforces its policy: the session mode to set and check, and the host's own rules. */
export interface AcpPolicyPlan {
  /** The session mode to select and verify, and the policy field it enforces. */
  readonly mode?: { readonly id: string; readonly field: string; readonly value: string };
  /**
   * `read_only` (with or without a mode of its own): deny every permission ask for a tool whose ACP
   * kind is not `read` or `search` (an ask for a `think`-kind tool is an ask to act: an agent may
   * label a tool that starts a sub-agent so).
   */
  readonly denyNonReadAsks: boolean;
  /**
   * The policy fields whose enforcement relies on the agent asking the host (`read_only` through
   * `askMode`, an explicit `ask` / `auto_deny`): a tool call that acts (ACP kind `edit`, `delete`,
   * `move`, `execute`, `other` or none) and runs without a permission ask breaks them, and the run
   * fails with `policy_violation`.
   */
  readonly unaskedFails: readonly string[];
  /**
   * The policy fields a tool call that changes the machine (ACP kind `edit`, `delete`, `move`,
   * `execute`, by the most acting kind of its updates) breaks when it runs without a permission ask,
   * or any call run although its ask was denied, where the rest is left to the agent's session mode:
   * `sandbox` under a declared read-only mode (`sandboxModes.read_only`). An agent's own
   * configuration may loosen its mode (a workspace file allowing the shell there); this is the
   * evidence the host sees of it. Calls the agent reports as `read`, `search`, `fetch`, `think`,
   * `switch_mode`, `other` or without a kind are left to the mode.
   */
  readonly changeFails: readonly string[];
  /** The host's rule for `fs/write_text_file`. */
  readonly writes: HostWrites;
  /** The host's rule for `terminal/create`. */
  readonly commands: HostCommands;
  /**
   * What the host offers: nothing with `hostCapabilities: false`; under `workspace_write` no
   * terminal unless the permission mode is `ask` (a command the host spawns is not confined to the
   * working directory, so a human approves each one).
   */
  readonly offer: HostOffer;
  /** The permission mode the host applies to its own fs writes and terminals (unset: none asked). */
  readonly hostAsks: boolean;
  /** True when the run accepts best effort (`bestEffortPolicy`). */
  readonly bestEffort: boolean;
  /** The enforcement report, before the mode was checked. */
  readonly enforcement: PolicyEnforcement[];
}

const ALL_SANDBOX: readonly SandboxMode[] = ["read_only", "workspace_write", "unrestricted"];
const ALL_MODES = ["inherit", "ask", "auto_approve", "auto_deny"] as const;
const READ_KINDS: readonly string[] = ["read", "search"];

/**
 * True when `policy` confines the agent: a `sandbox` other than `unrestricted`, or a permission
 * mode other than `inherit`.
 */
export function confinesAgent(policy: RunPolicy | undefined): boolean {
  const sandbox = policy?.sandbox;
  const permission = policy?.approvals?.permission;
  return (sandbox !== undefined && sandbox !== "unrestricted") || (permission !== undefined && permission !== "inherit");
}

/** True for a permission ask the `read_only` gate lets through: a tool whose ACP kind is `read` or `search`. */
export function isReadOnlyKind(kind: unknown): boolean {
  return typeof kind === "string" && READ_KINDS.includes(kind);
}

/**
 * The policy capabilities an ACP agent's config lets the driver enforce: sandbox levels with a
 * session mode (`sandboxModes`), plus `read_only` when `askMode` names a mode in which the agent asks
 * before every edit and command (the host then denies every ask that is not a read); permission
 * modes `ask`, `auto_approve`, `auto_deny` only with `askMode`. With `bestEffortPolicy` every value
 * is accepted and the Result says what was not enforced.
 */
export function acpPolicyCapabilities(config: Partial<AcpConfig>): Pick<DriverCapabilities, "policy" | "approvals"> {
  const modes = typeof config.sandboxModes === "object" && config.sandboxModes !== null ? config.sandboxModes : {};
  const asks = typeof config.askMode === "string" && config.askMode !== "";
  if (config.bestEffortPolicy === true)
    return {
      policy: { sandbox: ALL_SANDBOX, webSearch: ["allow", "deny"], browser: ["allow", "deny"], activeExecutionTimeout: false },
      approvals: { permission: ALL_MODES, plan_review: ALL_MODES, question: ["inherit", "ask", "auto_deny"] },
    };
  const sandbox = ALL_SANDBOX.filter((level) => typeof modes[level] === "string" || (level === "read_only" && asks));
  return {
    policy: { sandbox, webSearch: [], browser: [], activeExecutionTimeout: false },
    approvals: { permission: asks ? ALL_MODES : ["inherit"], plan_review: ["inherit"], question: ["inherit"] },
  };
}

/**
 * Plans how a run enforces `policy` on an ACP agent (see {@link acpPolicyCapabilities}), refusing
 * before launch what cannot be enforced.
 * @throws InvalidPolicyError, PolicyCapabilityUnsupportedError, HumanDecisionModeUnsupportedError
 * (the descriptor's check); HumanDecisionModeUnsupportedError for a permission mode together with a
 * `workspace_write` / `unrestricted` session mode (in which the agent does not ask), unless
 * `bestEffortPolicy`.
 */
export function planAcpPolicy(descriptor: DriverDescriptor, config: AcpConfig, policy: RunPolicy | undefined): AcpPolicyPlan {
  assertPolicySupported(descriptor, policy);
  const bestEffort = config.bestEffortPolicy === true;
  const sandbox = policy?.sandbox;
  const permission = policy?.approvals?.permission;
  const hostAsks = permission !== undefined && permission !== "inherit";
  const sandboxMode = sandbox !== undefined ? config.sandboxModes?.[sandbox] : undefined;
  const askMode = config.askMode;
  // A sandbox mode other than read_only lets the agent act unasked: the permission mode is not enforced there.
  const permissionEnforced = hostAsks && askMode !== undefined && (sandboxMode === undefined || sandbox === "read_only");
  if (hostAsks && !permissionEnforced && !bestEffort)
    throw new HumanDecisionModeUnsupportedError(descriptor.type, "permission", permission);
  let mode: AcpPolicyPlan["mode"];
  if (sandboxMode !== undefined) mode = { id: sandboxMode, field: "sandbox", value: sandbox! };
  else if (askMode !== undefined && (sandbox === "read_only" || permissionEnforced))
    mode =
      sandbox === "read_only"
        ? { id: askMode, field: "sandbox", value: sandbox }
        : { id: askMode, field: "approvals.permission", value: permission! };
  const denyNonReadAsks = sandbox === "read_only";
  // The fields enforced by the agent asking the host: a tool that is not a read running unasked breaks them.
  const unaskedFails = [
    ...(sandbox === "read_only" && sandboxMode === undefined && askMode !== undefined ? ["sandbox"] : []),
    ...(permissionEnforced && (permission === "ask" || permission === "auto_deny") ? ["approvals.permission"] : []),
  ];
  const changeFails = sandbox === "read_only" && sandboxMode !== undefined ? ["sandbox"] : [];
  const writes: HostWrites = sandbox === "read_only" ? "deny" : sandbox === "workspace_write" ? "workspace" : "allow";
  const commands: HostCommands = sandbox === "read_only" ? "deny" : sandbox === "workspace_write" ? "ask" : "allow";
  const host = config.hostCapabilities !== false;
  const offer: HostOffer = { fs: host, terminal: host && (sandbox !== "workspace_write" || permission === "ask") };
  const unasked = "fails the run when a tool that is not a read runs without an ask";
  const enforcement = reportEnforcement(policy, (field, value) => {
    // Without the host's fs and terminal offered, their rules (`onHost`) are not part of the enforcement.
    const how = (
      mechanisms: EnforcementMechanism[],
      detail: string,
      onHost = "",
    ): { mechanisms: EnforcementMechanism[]; detail: string } =>
      host ? { mechanisms, detail: detail + onHost } : { mechanisms: mechanisms.filter((m) => m !== "host_capability"), detail };
    if (field === "sandbox" && sandboxMode !== undefined)
      return value === "read_only"
        ? how(
            ["agent_mode", "host_capability"],
            `session mode ${JSON.stringify(sandboxMode)}; the host denies every ask for a tool that is not a read, fails the run when an edit, delete, move or execute tool runs without an ask`,
            ", and refuses fs/write_text_file and terminal/create",
          )
        : how(
            ["agent_mode", "host_capability"],
            `session mode ${JSON.stringify(sandboxMode)}`,
            value === "workspace_write"
              ? `; the host refuses fs/write_text_file outside the working directory and ${offer.terminal ? "asks before every terminal/create" : "does not offer its terminal"} (a command it spawns is not confined)`
              : "",
          );
    if (field === "sandbox" && value === "read_only" && askMode !== undefined)
      return how(
        ["agent_mode", "approval", "host_capability"],
        `session mode ${JSON.stringify(askMode)} (the agent asks before edits and commands); the host denies every ask for a tool that is not a read, ${unasked}`,
        ", and refuses fs/write_text_file and terminal/create",
      );
    if (field === "approvals.permission" && permissionEnforced)
      return how(
        ["agent_mode", "approval", "host_capability"],
        `session mode ${JSON.stringify(mode?.id ?? askMode)}: the agent asks through session/request_permission${unaskedFails.includes(field) ? `; the host ${unasked}` : ""}`,
        "; the host asks before its own fs/write_text_file and terminal/create",
      );
    if (field === "sandbox" && value === "read_only")
      return {
        notEnforced: "no session mode: only asks for non-read tools, fs/write_text_file and terminal/create are refused",
        bestEffort,
      };
    return { notEnforced: `${descriptor.displayName} has no way to enforce ${field}=${value} (best effort accepted)`, bestEffort };
  });
  return {
    ...(mode ? { mode } : {}),
    denyNonReadAsks,
    unaskedFails,
    changeFails,
    writes,
    commands,
    offer,
    hostAsks,
    bestEffort,
    enforcement,
  };
}

/**
 * What an enforcement entry of an agent no preset describes (plain `acp()`) leaves out: the driver
 * checks only what reaches the host (the session mode it set, the agent's asks, its fs and terminal
 * requests), not what the agent loads by itself.
 */
export const UNKNOWN_AGENT_SCOPE =
  "; only what reaches the host is checked (the session mode, the agent's asks, its fs and terminal requests): the agent's own configuration (settings, hooks, MCP servers or plugins it loads from the working directory or elsewhere) is outside this";

/** `enforcement` with {@link UNKNOWN_AGENT_SCOPE} added to each enforced `sandbox` and `approvals.permission` entry. */
export function withUnknownAgentScope(enforcement: readonly PolicyEnforcement[]): PolicyEnforcement[] {
  return enforcement.map((entry) =>
    entry.enforced && (entry.field === "sandbox" || entry.field === "approvals.permission")
      ? { ...entry, detail: entry.detail + UNKNOWN_AGENT_SCOPE }
      : entry,
  );
}
