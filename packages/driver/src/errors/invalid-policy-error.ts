import { AdaptorError } from "@adaptor/errors";
import { closestOption } from "@adaptor/errors/internal";
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

  /**
   * @param allowed - the field's domain, when known: the message then names the closest value (a
   *   likely typo, e.g. `"readonly"` → `"read_only"`) and lists them all.
   */
  constructor(driver: string, field: string, value: string, allowed?: readonly string[]) {
    const suggestion = allowed === undefined ? undefined : closestOption(value.replaceAll("-", "_"), allowed);
    const hint =
      allowed === undefined
        ? ""
        : `; ${suggestion !== undefined ? `did you mean ${JSON.stringify(suggestion)}? ` : ""}expected one of ${allowed.map((v) => JSON.stringify(v)).join(", ")}`;
    super(`${driver}: invalid policy ${field}=${JSON.stringify(value)}${hint}`);
    this.driver = driver;
    this.field = field;
    this.value = value;
  }
}
