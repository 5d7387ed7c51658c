import type { AllowDeny, ApprovalModes, SandboxMode } from "@adaptor/driver";
import type { ApprovalPolicyRule } from "../approval/policy-rules.js";

/** What happens when an approval times out or is rejected. */
export type ApprovalFallback = "abort" | "continue" | "retry";

/**
 * Approval modes per kind plus deadlines and fallbacks.
 * Unset `permission`: the CLI's own configuration decides which calls it asks about (Claude Code in
 * its default mode asks about writes and commands; codex follows its own `approval_policy`, `never`
 * under a confining sandbox), what it asks is answered
 * as under `ask`, and host tools (`defineTool`) run unasked. Defaults otherwise: plan_review `ask`,
 * question `auto_deny`, elicitation `auto_deny` (an MCP server's request for input is declined
 * without asking, as the peer SDKs do without a callback; `ask` hands it to the host); `timeoutMs` 30,000 (negative:
 * no deadline); `onTimeout` `abort`; `onReject` `continue` (the denial reaches the agent);
 * `maxRetries` 3.
 */
export interface ApprovalPolicy extends ApprovalModes {
  /**
   * Deadline of each ask in ms; negative or `Infinity` means none. Default 30,000. A finite value
   * above 2^31-1 (longer than a Node timer can wait) is `InvalidPolicyError`.
   */
  readonly timeoutMs?: number;
  /**
   * `abort` (RunError `approval_timeout`), `continue` (a deny reaches the agent), `retry` (ask again).
   * Default `abort`. An ask nobody can answer (`run()` without `onApproval`) is denied at once and,
   * unless this is `continue`, ends the run with RunError `approval_denied` (`details.unanswerable`).
   */
  readonly onTimeout?: ApprovalFallback;
  /**
   * After a deny: `abort` (RunError `approval_denied`), `continue`, `retry`. Default `continue`.
   * Applies to the host's denials and to `auto_deny` of `permission` and `plan_review`, never to a
   * question or an elicitation declined by `auto_deny` (the default or set explicitly): the model
   * reads the declined question, the MCP server gets the decline, and the run goes on, so a run
   * whose host never configured questions is not ended by the model asking one. To stop a run on
   * one, set `question: "ask"` (or `elicitation: "ask"`) and deny it.
   */
  readonly onReject?: ApprovalFallback;
  /** Extra asks for `retry`, >= 0. Default 3. */
  readonly maxRetries?: number;
  /**
   * Rules known before the run: a `permission` ask one matches is answered by the SDK at once,
   * without asking anyone, exactly as a rule remembered with an answer (`approve({ remember })`)
   * answers it: same matching (a path rule's folder resolved at the run's start), same notices
   * (`approval.requested` and `approval.resolved` with `data.rule`), a deny rule winning over an
   * allow rule. They apply where the ask would go to the host (`permission` `ask` or unset); an
   * auto mode decides first, so a `deny` rule under `permission: "auto_approve"` (the call would
   * run) and an `approve` rule under `auto_deny` are refused (`InvalidPolicyError`, field
   * `approvals.rules[i].outcome`): give `permission: "ask"` with the rules and an `onApproval`
   * that answers the rest. A `deny` rule with `permission` unset or `inherit` is refused the same
   * way: the CLI's own configuration then decides what it asks, and a call it runs unasked never
   * meets the rule (Claude Code runs `cat` unasked in its default mode; codex asks nothing under a
   * confining sandbox). A call a deny rule names that runs unasked all the same (an ask-exempt
   * tool, a grant of an earlier answer) fails the run `policy_violation`. A command rule matches in any working directory and environment (a
   * remembered one only in the answered ask's). Never written to a CLI's settings: the CLI asks,
   * the SDK answers. `acceptEdits(cwd)` gives the rules of "accept edits". Default: none. An
   * invalid rule, one that could never match (a `commandPrefix` holding a shell operator,
   * expansion or quote; a NUL character in any field), or an `approve` rule under
   * `sandbox: "read_only"`, is `InvalidPolicyError` (field e.g. `approvals.rules[0].pathPrefix`).
   */
  readonly rules?: readonly ApprovalPolicyRule[];
}

/**
 * What a run may do. Unset fields inherit the CLI's own configuration and are never a capability
 * request. Validated before anything starts: an out-of-domain value is `InvalidPolicyError`, a
 * valid value the driver cannot enforce `PolicyCapabilityUnsupportedError`, an explicit approval
 * mode it cannot honour `HumanDecisionModeUnsupportedError`. A call's policy replaces the agent's.
 */
export interface Policy {
  /**
   * File-system and process sandbox: `read_only`, `workspace_write` or `unrestricted`. Unset: the
   * CLI's own setting. An unknown value is `InvalidPolicyError`; one the driver cannot enforce
   * `PolicyCapabilityUnsupportedError`.
   */
  readonly sandbox?: SandboxMode;
  /** Whether the agent may search the web (`allow`/`deny`). Unset: the CLI's own setting. */
  readonly webSearch?: AllowDeny;
  /** Whether the agent may drive a browser (`allow`/`deny`). Unset: the CLI's own setting. */
  readonly browser?: AllowDeny;
  /** Budget of active run time in ms, paused while a human is asked; 0 or unset: unlimited. Exhaustion is RunError `active_execution_timeout`. */
  readonly activeExecutionTimeoutMs?: number;
  /** Approval modes per kind, deadline and fallbacks; see {@link ApprovalPolicy}. */
  readonly approvals?: ApprovalPolicy;
}

/** Read-only sandbox. */
export const policyReadOnly: Policy = Object.freeze({ sandbox: "read_only" });
/** Writes confined to the workspace. */
export const policyWorkspaceWrite: Policy = Object.freeze({ sandbox: "workspace_write" });
/** No sandbox. */
export const policyUnrestricted: Policy = Object.freeze({ sandbox: "unrestricted" });
