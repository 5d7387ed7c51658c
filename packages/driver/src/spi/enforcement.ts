/**
 * How a driver enforces a part of a run policy:
 * - `cli_flag`: a command-line flag of the CLI (`--permission-mode`, `-s read-only`, ...);
 * - `cli_config`: a setting the driver hands the CLI (a settings file, `-c key=value`, a protocol field
 *   such as Codex's `thread/start` `sandbox`);
 * - `hook`: a hook the CLI calls before a tool runs (a deny rule the CLI applies itself counts as `cli_config`);
 * - `approval`: the CLI asks before the action and the SDK's approval broker decides (the mode's own rule:
 *   the host's handler, or an automatic approve / deny);
 * - `host_capability`: the agent does the action through the host (ACP `fs/*`, `terminal/*`), which
 *   checks the policy itself;
 * - `agent_mode`: a mode of the agent's session (ACP `session/set_mode`), checked after it was set;
 * - `sdk`: the SDK itself (the active-execution budget).
 */
export type EnforcementMechanism = "cli_flag" | "cli_config" | "hook" | "approval" | "host_capability" | "agent_mode" | "sdk";

/**
 * One explicitly requested part of a run's policy and whether (and how) it was enforced. Unset
 * fields and `inherit` (the CLI's own configuration) are not listed.
 */
export interface PolicyEnforcement {
  /** The policy field: `"sandbox"`, `"webSearch"`, `"browser"`, `"approvals.permission"`, `"approvals.plan_review"`, `"approvals.question"`, `"approvals.elicitation"`, `"activeExecutionTimeoutMs"`. */
  readonly field: string;
  /** The value requested, e.g. `"read_only"`, `"ask"`, `"deny"`. */
  readonly value: string;
  /**
   * True when the driver enforced it by the listed mechanisms; false when it ran without enforcing
   * it (with a driver option that accepts best effort, e.g. the `bestEffortPolicy` of the ACP and
   * Codex drivers), when the driver found it broken during the run (a `policy_violation` verdict),
   * or when the driver never reported it.
   */
  readonly enforced: boolean;
  /** How it was enforced; empty when `enforced` is false. */
  readonly mechanisms: readonly EnforcementMechanism[];
  /** For people: what the driver set (a flag, a mode id), or why the value was not enforced. */
  readonly detail: string;
  /**
   * True on an entry with `enforced: false` when the host accepted best effort for it through a
   * driver option (the `bestEffortPolicy` of the ACP and Codex drivers). A driver's entry with
   * `enforced: false` without it, in a response without a failure, fails the run: the SDK ends it
   * as `policy_violation` (a value a driver cannot enforce must be refused before launch). Absent
   * means false.
   */
  readonly bestEffort?: boolean;
}
