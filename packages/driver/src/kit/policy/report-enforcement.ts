import type { EnforcementMechanism, PolicyEnforcement } from "../../spi/enforcement.js";
import type { RunPolicy } from "../../spi/policy.js";

/** What a rule says of a field it does not enforce when it gives no reason (returns `undefined`). */
export const NOT_ENFORCED_BY_RULE = "the driver's enforcement rule does not enforce it";

/**
 * How a driver enforces one policy field and value: its mechanisms and a sentence; or
 * `{ notEnforced }` (why not; `bestEffort` when the host accepted best effort for it, see
 * {@link PolicyEnforcement.bestEffort}); or `undefined` when it does not enforce it, reported as
 * `{ notEnforced: NOT_ENFORCED_BY_RULE }`. A value not enforced without `bestEffort` fails the run
 * (`policy_violation`); `OneShotCliDriver` refuses it before launch.
 */
export type EnforcementRule = (
  field: string,
  value: string,
) =>
  | { readonly mechanisms: readonly EnforcementMechanism[]; readonly detail: string }
  | { readonly notEnforced: string; readonly bestEffort?: boolean }
  | undefined;

/**
 * The `enforcement` report of a run: one entry per explicitly requested field of `policy`
 * (`sandbox`, `webSearch`, `browser`, each approval kind other than `inherit`), in that order,
 * as `rule` explains it (`undefined`: not enforced, {@link NOT_ENFORCED_BY_RULE}). The
 * active-execution budget is the SDK's and is never listed here.
 */
export function reportEnforcement(policy: RunPolicy | undefined, rule: EnforcementRule): PolicyEnforcement[] {
  if (!policy) return [];
  const fields: [string, string | undefined][] = [
    ["sandbox", policy.sandbox],
    ["webSearch", policy.webSearch],
    ["browser", policy.browser],
    ["approvals.permission", policy.approvals?.permission],
    ["approvals.plan_review", policy.approvals?.plan_review],
    ["approvals.question", policy.approvals?.question],
    ["approvals.elicitation", policy.approvals?.elicitation],
  ];
  const out: PolicyEnforcement[] = [];
  for (const [field, value] of fields) {
    if (value === undefined || value === "inherit") continue;
    const how = rule(field, value) ?? { notEnforced: NOT_ENFORCED_BY_RULE };
    out.push(
      "notEnforced" in how
        ? { field, value, enforced: false, mechanisms: [], detail: how.notEnforced, ...(how.bestEffort ? { bestEffort: true } : {}) }
        : { field, value, enforced: true, mechanisms: [...how.mechanisms], detail: how.detail },
    );
  }
  return out;
}
