import { HumanDecisionModeUnsupportedError, InvalidPolicyError, PolicyCapabilityUnsupportedError } from "../errors/index.js";
import type { DriverDescriptor } from "../spi/descriptor.js";
import { APPROVAL_KINDS, APPROVAL_MODES_BY_KIND, approvalModes } from "./approval-modes.js";
import type { RunPolicy } from "../spi/policy.js";

const SANDBOX: readonly string[] = ["read_only", "workspace_write", "unrestricted"];
const ALLOW_DENY: readonly string[] = ["allow", "deny"];

/**
 * A driver's own guard (conformance clause 1.3): refuses a policy value outside its domain
 * (`InvalidPolicyError`), a valid sandbox / web search / browser value the descriptor lacks
 * (`PolicyCapabilityUnsupportedError`), then an approval mode it lacks
 * (`HumanDecisionModeUnsupportedError`) — the contract's order. `inherit` and unset values are
 * never capability requests. The SDK runs the same check before launch; drivers called directly
 * through the SPI run it themselves.
 */
export function assertPolicySupported(descriptor: DriverDescriptor, policy: RunPolicy | undefined): void {
  if (!policy) return;
  const driver = descriptor.type;
  const caps = descriptor.capabilities;
  const dimensions = [
    ["sandbox", policy.sandbox, SANDBOX, caps.policy.sandbox],
    ["webSearch", policy.webSearch, ALLOW_DENY, caps.policy.webSearch],
    ["browser", policy.browser, ALLOW_DENY, caps.policy.browser],
  ] as const;
  for (const [field, value, domain] of dimensions) {
    if (value !== undefined && !domain.includes(value)) throw new InvalidPolicyError(driver, field, String(value), domain);
  }
  for (const kind of APPROVAL_KINDS) {
    const mode = policy.approvals?.[kind];
    if (mode !== undefined && !APPROVAL_MODES_BY_KIND[kind].includes(mode))
      throw new InvalidPolicyError(driver, `approvals.${kind}`, String(mode), APPROVAL_MODES_BY_KIND[kind]);
  }
  for (const [field, value, , supported] of dimensions) {
    if (value !== undefined && !(supported as readonly string[]).includes(value)) {
      throw new PolicyCapabilityUnsupportedError(driver, field, value);
    }
  }
  // The SDK owns the active-execution budget and never passes it down; a driver called directly
  // through the SPI refuses it unless it enforces one itself.
  if (policy.activeExecutionTimeoutMs !== undefined && !caps.policy.activeExecutionTimeout) {
    throw new PolicyCapabilityUnsupportedError(driver, "activeExecutionTimeoutMs", String(policy.activeExecutionTimeoutMs));
  }
  for (const kind of APPROVAL_KINDS) {
    const mode = policy.approvals?.[kind];
    if (mode !== undefined && mode !== "inherit" && !approvalModes(caps, kind).includes(mode)) {
      throw new HumanDecisionModeUnsupportedError(driver, kind, mode, caps.approvalRefusalReason);
    }
  }
}
