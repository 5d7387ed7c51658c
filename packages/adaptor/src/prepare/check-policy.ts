import {
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

const SANDBOX = ["read_only", "workspace_write", "unrestricted"];
const ALLOW_DENY = ["allow", "deny"];
const MODES: Readonly<Record<ApprovalKind, readonly string[]>> = {
  permission: ["inherit", "ask", "auto_approve", "auto_deny"],
  plan_review: ["inherit", "ask", "auto_approve", "auto_deny"],
  question: ["inherit", "ask", "auto_deny"],
};
const FALLBACKS = ["abort", "continue", "retry"];
const KINDS: readonly ApprovalKind[] = ["permission", "plan_review", "question"];
const POLICY_FIELDS = ["sandbox", "webSearch", "browser", "activeExecutionTimeoutMs", "approvals"];
const APPROVAL_FIELDS = [...KINDS, "timeoutMs", "onTimeout", "onReject", "maxRetries"];

/**
 * Preparation step: validates `options.policy` in the contract's order — domain
 * (`InvalidPolicyError`), then capabilities (`PolicyCapabilityUnsupportedError`), then approval
 * modes (`HumanDecisionModeUnsupportedError`) — and hands the driver only explicit values.
 */
export function checkPolicy(prep: Preparation): void {
  const policy = prep.options.policy;
  if (policy === undefined) return;
  const driver = prep.driver.descriptor.type;
  if (typeof policy !== "object" || policy === null || Array.isArray(policy)) {
    throw new InvalidPolicyError(driver, "policy", policy === null ? "null" : String(policy));
  }
  // A misspelt field must not silently fall back to the CLI's defaults.
  for (const field of Object.keys(policy)) if (!POLICY_FIELDS.includes(field)) throw new InvalidPolicyError(driver, field, "unknown field");
  if (policy.approvals !== undefined && (typeof policy.approvals !== "object" || policy.approvals === null)) {
    throw new InvalidPolicyError(driver, "approvals", String(policy.approvals));
  }
  for (const field of Object.keys(policy.approvals ?? {})) {
    if (!APPROVAL_FIELDS.includes(field)) throw new InvalidPolicyError(driver, `approvals.${field}`, "unknown field");
  }
  const caps = prep.driver.descriptor.capabilities;
  const invalid = (field: string, value: unknown): never => {
    throw new InvalidPolicyError(driver, field, String(value));
  };
  const oneOf = (field: string, value: unknown, domain: readonly string[]): void => {
    if (value !== undefined && (typeof value !== "string" || !domain.includes(value))) invalid(field, value);
  };
  oneOf("sandbox", policy.sandbox, SANDBOX);
  oneOf("webSearch", policy.webSearch, ALLOW_DENY);
  oneOf("browser", policy.browser, ALLOW_DENY);
  const budget = policy.activeExecutionTimeoutMs;
  if (budget !== undefined && !(typeof budget === "number" && budget >= 0 && budget <= MAX_TIMER_MS)) {
    invalid("activeExecutionTimeoutMs", budget);
  }
  const approvals = policy.approvals ?? {};
  for (const kind of KINDS) oneOf(`approvals.${kind}`, approvals[kind], MODES[kind]);
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

  const unsupported = (dimension: string, value: string | undefined, supported: readonly string[]): void => {
    if (value !== undefined && !supported.includes(value)) throw new PolicyCapabilityUnsupportedError(driver, dimension, value);
  };
  unsupported("sandbox", policy.sandbox, caps.policy.sandbox);
  unsupported("webSearch", policy.webSearch, caps.policy.webSearch);
  unsupported("browser", policy.browser, caps.policy.browser);

  for (const kind of KINDS) {
    const mode = approvals[kind];
    // inherit is never a capability request.
    if (mode !== undefined && mode !== "inherit" && !caps.approvals[kind].includes(mode)) {
      throw new HumanDecisionModeUnsupportedError(driver, kind, mode);
    }
  }
  prep.request = { ...prep.request, policy: toRunPolicy(policy) };
}

/** What the driver enforces; the active-execution budget stays with the SDK, which owns it. */
function toRunPolicy(policy: Policy): RunPolicy {
  const approvals: { -readonly [K in ApprovalKind]?: ApprovalMode } = {};
  for (const kind of KINDS) if (policy.approvals?.[kind]) approvals[kind] = policy.approvals[kind];
  return {
    ...(policy.sandbox ? { sandbox: policy.sandbox } : {}),
    ...(policy.webSearch ? { webSearch: policy.webSearch } : {}),
    ...(policy.browser ? { browser: policy.browser } : {}),
    ...(Object.keys(approvals).length ? { approvals } : {}),
  };
}
