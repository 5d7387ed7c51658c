import { AdaptorError } from "@adaptor/errors";
import { ErrPolicyCapabilityUnsupported } from "./sentinels.js";

/** A valid policy value the driver cannot enforce; matches {@link ErrPolicyCapabilityUnsupported}. */
export class PolicyCapabilityUnsupportedError extends AdaptorError {
  static override readonly brand: symbol = Symbol.for("adaptor.error.PolicyCapabilityUnsupportedError");
  static override readonly sentinel = ErrPolicyCapabilityUnsupported;
  readonly driver: string;
  /** `"sandbox"`, `"webSearch"`, `"browser"`, `"activeExecutionTimeoutMs"`. */
  readonly dimension: string;
  readonly value: string;

  constructor(driver: string, dimension: string, value: string) {
    super(`${driver}: policy ${dimension}=${JSON.stringify(value)} is not supported`);
    this.driver = driver;
    this.dimension = dimension;
    this.value = value;
  }
}
