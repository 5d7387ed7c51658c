import * as path from "node:path";
import { realDirectory } from "@adaptor/driver/kit";
import { ruleShapeError, type ApprovalRule, type RememberedRule } from "./approval-rule.js";

/**
 * A rule the host gives before the run (`policy.approvals.rules`): the SDK answers every later
 * `permission` ask it matches as it answers a rule remembered with an answer (same matching, same
 * `approval.requested` / `approval.resolved` notices with `data.rule` and `data.scope` `run`),
 * without asking anyone. A deny rule wins over an allow rule that matches the same ask.
 */
export interface ApprovalPolicyRule extends ApprovalRule {
  /** `approve`: the call runs unasked; `deny`: it is refused with {@link reason}. */
  readonly outcome: "approve" | "deny";
  /** A deny's reason, as the agent reads it. Default `"denied by policy rule"`; only with `deny`. */
  readonly reason?: string;
}

/** The deny reason of a policy rule that gives none. */
export const POLICY_RULE_DENY_REASON = "denied by policy rule";

/**
 * The file tools of the drivers, as their asks name them: Claude Code's `Edit`, `Write`,
 * `MultiEdit`, `NotebookEdit`, and Codex's `apply_patch`.
 */
export const EDIT_TOOLS: readonly string[] = Object.freeze(["Edit", "Write", "MultiEdit", "NotebookEdit", "apply_patch"]);

/**
 * The rules of "accept edits" (the Claude Agent SDK's `permissionMode: "acceptEdits"`): an allow
 * for each file tool (`toolNames`, default {@link EDIT_TOOLS}) whose every file is inside one of
 * `folders`, compared after resolving `.`, `..` and symbolic links (a link inside a folder that
 * leads out does not match). Edits elsewhere, commands and every other tool are still asked. Give
 * them as `policy.approvals.rules` (with `approvals.permission` `ask` or unset). An ACP agent names
 * its file tools itself: pass them as `toolNames`.
 * @param folders - absolute folders, e.g. the run's `cwd`.
 * @throws TypeError for no folder or one that is not an absolute path, or an empty tool name.
 * @example
 * agent.run("fix the test", { cwd, policy: { approvals: { permission: "ask", rules: acceptEdits(cwd) } } });
 */
export function acceptEdits(
  folders: string | readonly string[],
  options: { readonly toolNames?: readonly string[] } = {},
): ApprovalPolicyRule[] {
  const list = typeof folders === "string" ? [folders] : [...folders];
  if (list.length === 0) throw new TypeError("acceptEdits: give at least one folder");
  for (const folder of list)
    if (typeof folder !== "string" || !path.isAbsolute(folder))
      throw new TypeError(`acceptEdits: a folder must be an absolute path, got ${JSON.stringify(folder)}`);
  const toolNames = options.toolNames ?? EDIT_TOOLS;
  for (const toolName of toolNames)
    if (typeof toolName !== "string" || toolName === "") throw new TypeError("acceptEdits: a tool name must be a non-empty string");
  return list.flatMap((folder) => toolNames.map((toolName): ApprovalPolicyRule => ({ toolName, pathPrefix: folder, outcome: "approve" })));
}

/**
 * Checks `policy.approvals.rules`: an array of rules of {@link ruleShapeError}'s shape, each with an
 * `outcome` of `approve` or `deny` and, for a deny, an optional non-empty string `reason` without
 * a NUL character; no `approve` when `readOnly` (an allow would widen what a read-only run lets
 * through without a person, as `approve({ remember })` is refused there). Rules answer asks only,
 * so a rule the run's `permission` mode would decide against before any rule is consulted is
 * refused: a `deny` under `auto_approve` (the call would run) and an `approve` under `auto_deny`.
 * A `deny` with `permission` unset or `inherit` is refused too: the CLI's own configuration then
 * decides what it asks, and a call it runs unasked never meets the rule (Claude Code runs `cat`
 * unasked in its default mode and every call under `bypassPermissions`; codex asks nothing under
 * approval policy `never` or runs a sandboxed command unasked under `on-request`).
 * @param permission - the policy's `approvals.permission`, as given (undefined when unset).
 * @returns the field at fault (e.g. `approvals.rules[0].pathPrefix`), its value and why, or undefined.
 */
export function policyRulesError(
  rules: unknown,
  readOnly: boolean,
  permission?: unknown,
): { readonly field: string; readonly value: unknown; readonly reason: string } | undefined {
  const field = "approvals.rules";
  if (!Array.isArray(rules)) return { field, value: rules, reason: "must be an array of rules" };
  for (const [index, rule] of rules.entries()) {
    const at = `${field}[${index}]`;
    const shape = ruleShapeError(rule, at);
    const fields = rule as Record<string, unknown>;
    const valueOf = (name: string): unknown => (name === at ? rule : fields[name.slice(name.lastIndexOf(".") + 1)]);
    if (shape) return { field: shape.field, value: valueOf(shape.field), reason: shape.reason };
    for (const name of Object.keys(fields))
      if (!["toolName", "command", "commandPrefix", "pathPrefix", "outcome", "reason"].includes(name))
        return { field: `${at}.${name}`, value: fields[name], reason: "is not a rule field" };
    const outcome = fields["outcome"];
    if (outcome !== "approve" && outcome !== "deny")
      return { field: `${at}.outcome`, value: outcome, reason: 'must be "approve" or "deny"' };
    const reason = fields["reason"];
    if (reason !== undefined && (outcome !== "deny" || typeof reason !== "string" || reason === ""))
      return { field: `${at}.reason`, value: reason, reason: "must be a non-empty string, and only with a deny" };
    if (typeof reason === "string" && reason.includes("\0"))
      return { field: `${at}.reason`, value: reason, reason: "cannot hold a NUL character" };
    const decidedFirst = outcome === "deny" ? "auto_approve" : "auto_deny";
    if (permission === decidedFirst)
      return {
        field: `${at}.outcome`,
        value: outcome,
        reason:
          `a ${outcome} rule is never consulted under approvals.permission "${decidedFirst}", which ${outcome === "deny" ? "approves" : "denies"} every call before any rule ` +
          `(rules answer only the calls that would be asked); use permission "ask" with the rules and an onApproval that ${outcome === "deny" ? "approves" : "denies"} the rest` +
          (outcome === "deny" ? " (a deny rule is matched conservatively; it is not a sandbox)" : ""),
      };
    if (outcome === "deny" && (permission === undefined || permission === "inherit"))
      return {
        field: `${at}.outcome`,
        value: outcome,
        reason:
          `a deny rule is never consulted for the calls the CLI runs unasked, and with approvals.permission ${permission === undefined ? "unset" : '"inherit"'} the CLI's own configuration decides what it asks ` +
          '(Claude Code runs cat, a settings allow rule\'s calls, and everything under sandbox "unrestricted" unasked; codex asks nothing under a confining sandbox or its own "on-request" policy); ' +
          'use permission "ask" with the rules and an onApproval that approves the rest (a deny rule is matched conservatively; it is not a sandbox)',
      };
    if (outcome === "approve" && readOnly)
      return {
        field: `${at}.outcome`,
        value: outcome,
        reason: 'an allow rule cannot be given with policy.sandbox "read_only" (a deny can)',
      };
  }
  return undefined;
}

/**
 * The policy's rules as the broker keeps them (scope `run`), a path rule's folder resolved now,
 * at the run's start: a folder swapped for a link to elsewhere later does not carry the rule there.
 */
export function presetRules(rules: readonly ApprovalPolicyRule[] = []): RememberedRule[] {
  return rules.map(({ outcome, reason, ...rule }) => ({
    rule: {
      ...(rule.toolName !== undefined ? { toolName: rule.toolName } : {}),
      ...(rule.command !== undefined ? { command: rule.command } : {}),
      ...(rule.commandPrefix !== undefined ? { commandPrefix: rule.commandPrefix } : {}),
      ...(rule.pathPrefix !== undefined ? { pathPrefix: rule.pathPrefix } : {}),
    },
    scope: "run",
    realFolder: rule.pathPrefix !== undefined ? realDirectory(rule.pathPrefix) : undefined,
    decision: outcome === "approve" ? { outcome: "approve" } : { outcome: "deny", reason: reason ?? POLICY_RULE_DENY_REASON },
  }));
}
