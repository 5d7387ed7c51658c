import { InvalidPolicyError, type ApprovalMode } from "@adaptor/driver";
import { describeRule, type ApprovalRule } from "./approval-rule.js";

/** A rule of the run as a mode switch is checked against it. */
export interface HeldRule {
  readonly rule: ApprovalRule;
  readonly outcome: "approve" | "deny";
  /** Its index in `policy.approvals.rules` when given before the run; undefined when remembered with an answer. */
  readonly given?: number | undefined;
}

/**
 * Refuses a `permission` switch made during the run (`stream.setApprovalMode`) to `auto_approve`
 * while the run holds a deny rule, as a policy giving both is refused at launch: an auto mode
 * decides before any rule, so the switch would let through every call the deny rule names. The
 * rules given before the run and those remembered with an answer so far count alike. A switch to
 * `auto_deny` is always made (a lock-down: the allow rules then decide nothing, and nothing they
 * named runs).
 * @param driver - the driver type, for the error.
 * @param permission - the mode switched to (`inherit` left as given).
 * @returns an `InvalidPolicyError` (field `approvals.permission`, value the mode) whose message
 * names the first such rule and where it came from; undefined when the switch may be made.
 */
export function modeSwitchError(
  driver: string,
  permission: ApprovalMode | undefined,
  rules: readonly HeldRule[],
): InvalidPolicyError | undefined {
  if (permission !== "auto_approve") return undefined;
  const outcome = "deny";
  const held = rules.find((rule) => rule.outcome === outcome);
  if (!held) return undefined;
  const error = new InvalidPolicyError(driver, "approvals.permission", permission);
  const origin = held.given !== undefined ? `approvals.rules[${held.given}]` : "remembered with an answer";
  error.message =
    `${driver}: invalid policy approvals.permission: setApprovalMode({ permission: "${permission}" }) refused: ` +
    `the run's ${outcome} rule (${describeRule(held.rule)}, ${origin}) would never be consulted, as "${permission}" ` +
    `approves every call before any rule; the run goes on in its mode ` +
    `(rules answer only the calls that would be asked: keep permission "ask" and answer the rest in onApproval)`;
  return error;
}

/**
 * `policy.approvals.rules` as a switch made before the run's start is checked against them (the
 * rules are checked in full when the run starts: an entry that is not a rule is left out here).
 */
export function policyHeldRules(rules: unknown): HeldRule[] {
  if (!Array.isArray(rules)) return [];
  return rules.flatMap((rule: unknown, given): HeldRule[] => {
    if (typeof rule !== "object" || rule === null) return [];
    const { outcome } = rule as { outcome?: unknown };
    return outcome === "approve" || outcome === "deny" ? [{ rule: rule as ApprovalRule, outcome, given }] : [];
  });
}
