import { AdaptorError } from "@adaptor/errors";
import { ErrInvalidPolicy } from "./sentinels.js";

/** A policy field holds a value outside its domain; matches {@link ErrInvalidPolicy} (never `ErrPolicyViolation`). */
export class InvalidPolicyError extends AdaptorError {
  static override readonly brand: symbol = Symbol.for("adaptor.error.InvalidPolicyError");
  static override readonly sentinel = ErrInvalidPolicy;
  /** Driver type, e.g. `"claude"`. */
  readonly driver: string;
  /** Dotted policy path, e.g. `"sandbox"` or `"approvals.permission"`. */
  readonly field: string;
  /** The rejected value, as text. */
  readonly value: string;

  constructor(driver: string, field: string, value: string) {
    super(`${driver}: invalid policy ${field}=${JSON.stringify(value)}`);
    this.driver = driver;
    this.field = field;
    this.value = value;
  }
}
