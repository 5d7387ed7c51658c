import {
  APPROVAL_KINDS,
  APPROVAL_MODES_BY_KIND,
  approvalModes,
  HumanDecisionModeUnsupportedError,
  InvalidPolicyError,
  PolicyCapabilityUnsupportedError,
  type ApprovalKind,
  type ApprovalMode,
  type RunPolicy,
} from "@adaptor/driver";
import { MAX_TIMER_MS } from "@adaptor/errors";
import type { Preparation } from "./preparation.js";
import type { Policy } from "../policy/policy.js";
import { policyRulesError } from "../approval/policy-rules.js";

const SANDBOX = ["read_only", "workspace_write", "unrestricted"];
const ALLOW_DENY = ["allow", "deny"];
const FALLBACKS = ["abort", "continue", "retry"];
const POLICY_FIELDS = ["sandbox", "webSearch", "browser", "activeExecutionTimeoutMs", "approvals"];
const APPROVAL_FIELDS = [...APPROVAL_KINDS, "timeoutMs", "onTimeout", "onReject", "maxRetries", "rules"];

/**
 * Preparation step: validates `options.policy` in the contract's order — domain
 * (`InvalidPolicyError`), then capabilities (`PolicyCapabilityUnsupportedError`), then approval
 * modes (`HumanDecisionModeUnsupportedError`) — and hands the driver only explicit values.
 */
export function checkPolicy(prep: Preparation): void {
  const policy = prep.options.policy;
  if (policy === undefined) return;
  const driver = prep.driver.descriptor.type;
  checkPolicyDomain(driver, policy);
  const caps = prep.driver.descriptor.capabilities;
  const approvals = policy.approvals ?? {};

  const unsupported = (dimension: string, value: string | undefined, supported: readonly string[]): void => {
    if (value !== undefined && !supported.includes(value)) throw new PolicyCapabilityUnsupportedError(driver, dimension, value);
  };
  unsupported("sandbox", policy.sandbox, caps.policy.sandbox);
  unsupported("webSearch", policy.webSearch, caps.policy.webSearch);
  unsupported("browser", policy.browser, caps.policy.browser);

  for (const kind of APPROVAL_KINDS) {
    const mode = approvals[kind];
    // inherit is never a capability request.
    if (mode !== undefined && mode !== "inherit" && !approvalModes(caps, kind).includes(mode)) {
      throw new HumanDecisionModeUnsupportedError(driver, kind, mode, caps.approvalRefusalReason);
    }
  }
  prep.request = { ...prep.request, policy: toRunPolicy(policy) };
}

/** What the driver enforces; the active-execution budget stays with the SDK, which owns it. */
function toRunPolicy(policy: Policy): RunPolicy {
  const approvals: { -readonly [K in ApprovalKind]?: ApprovalMode } = {};
  for (const kind of APPROVAL_KINDS) if (policy.approvals?.[kind]) approvals[kind] = policy.approvals[kind];
  return {
    ...(policy.sandbox ? { sandbox: policy.sandbox } : {}),
    ...(policy.webSearch ? { webSearch: policy.webSearch } : {}),
    ...(policy.browser ? { browser: policy.browser } : {}),
    ...(Object.keys(approvals).length ? { approvals } : {}),
  };
}

/**
 * Checks a policy's shape and values, whatever the driver: an object of known fields, each value
 * in its domain (`approvals.rules`: each a valid rule that can match, no allow under `read_only`, no
 * rule its `permission` auto mode decides against first). Capabilities and approval modes depend on the driver and are checked by
 * {@link checkPolicy}.
 * @param driver - the driver type named by the error.
 * @throws InvalidPolicyError naming the field: an unknown field, a value out of its domain.
 */
export function checkPolicyDomain(driver: string, policy: unknown): asserts policy is Policy {
  if (typeof policy !== "object" || policy === null || Array.isArray(policy)) {
    throw new InvalidPolicyError(driver, "policy", policy === null ? "null" : String(policy));
  }
  // A misspelt field must not silently fall back to the CLI's defaults.
  const p = policy as Policy;
  for (const field of Object.keys(p))
    if (!POLICY_FIELDS.includes(field)) throw new InvalidPolicyError(driver, field, "unknown field", POLICY_FIELDS);
  if (p.approvals !== undefined && (typeof p.approvals !== "object" || p.approvals === null)) {
    throw new InvalidPolicyError(driver, "approvals", String(p.approvals));
  }
  for (const field of Object.keys(p.approvals ?? {})) {
    if (!APPROVAL_FIELDS.includes(field)) throw new InvalidPolicyError(driver, `approvals.${field}`, "unknown field", APPROVAL_FIELDS);
  }
  const invalid = (field: string, value: unknown, domain?: readonly string[]): never => {
    throw new InvalidPolicyError(driver, field, String(value), domain);
  };
  const oneOf = (field: string, value: unknown, domain: readonly string[]): void => {
    if (value !== undefined && (typeof value !== "string" || !domain.includes(value))) invalid(field, value, domain);
  };
  oneOf("sandbox", p.sandbox, SANDBOX);
  oneOf("webSearch", p.webSearch, ALLOW_DENY);
  oneOf("browser", p.browser, ALLOW_DENY);
  const budget = p.activeExecutionTimeoutMs;
  if (budget !== undefined && !(typeof budget === "number" && budget >= 0 && budget <= MAX_TIMER_MS)) {
    invalid("activeExecutionTimeoutMs", budget);
  }
  const approvals = p.approvals ?? {};
  for (const kind of APPROVAL_KINDS) oneOf(`approvals.${kind}`, approvals[kind], APPROVAL_MODES_BY_KIND[kind]);
  oneOf("approvals.onTimeout", approvals.onTimeout, FALLBACKS);
  oneOf("approvals.onReject", approvals.onReject, FALLBACKS);
  // Negative or Infinity: no deadline. A finite deadline longer than a Node timer can wait is refused.
  const deadline = approvals.timeoutMs;
  if (
    deadline !== undefined &&
    !(typeof deadline === "number" && !Number.isNaN(deadline) && !(Number.isFinite(deadline) && deadline > MAX_TIMER_MS))
  ) {
    invalid("approvals.timeoutMs", deadline);
  }
  const retries = approvals.maxRetries;
  if (retries !== undefined && !(Number.isInteger(retries) && retries >= 0)) invalid("approvals.maxRetries", retries);
  if (approvals.rules !== undefined) {
    const fault = policyRulesError(approvals.rules, p.sandbox === "read_only", approvals.permission);
    if (fault) {
      const error = new InvalidPolicyError(
        driver,
        fault.field,
        typeof fault.value === "string" ? fault.value : String(JSON.stringify(fault.value)),
      );
      error.message = `${driver}: invalid policy ${fault.field}: ${fault.reason}`;
      throw error;
    }
  }
}
