import { AdaptorError } from "@adaptor/errors";
import { ErrPolicyCapabilityUnsupported } from "./sentinels.js";

/** A valid policy value the driver cannot enforce; matches {@link ErrPolicyCapabilityUnsupported}. */
export class PolicyCapabilityUnsupportedError extends AdaptorError {
  static override readonly brand: symbol = Symbol.for("adaptor.error.PolicyCapabilityUnsupportedError");
  static override readonly sentinel = ErrPolicyCapabilityUnsupported;
  /** Driver type, e.g. `"claude"`. */
  readonly driver: string;
  /** `"sandbox"`, `"webSearch"`, `"browser"`, `"activeExecutionTimeoutMs"`. */
  readonly dimension: string;
  /** The value the driver cannot enforce. */
  readonly value: string;

  /** Why the driver cannot enforce it, when it says (e.g. its enforcement rule's reason). */
  readonly reason: string | undefined;

  constructor(driver: string, dimension: string, value: string, reason?: string) {
    super(`${driver}: policy ${dimension}=${JSON.stringify(value)} is not supported${reason ? ` (${reason})` : ""}`);
    this.reason = reason;
    this.driver = driver;
    this.dimension = dimension;
    this.value = value;
  }
}
