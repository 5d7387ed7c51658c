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

  constructor(driver: string, dimension: string, value: string) {
    super(`${driver}: policy ${dimension}=${JSON.stringify(value)} is not supported`);
    this.driver = driver;
    this.dimension = dimension;
    this.value = value;
  }
}
