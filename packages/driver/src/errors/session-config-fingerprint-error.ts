import { AdaptorError } from "@adaptor/errors";

/**
 * A configuration shape that cannot be canonicalised into a session fingerprint. Has no sentinel
 * (docs/errors.md "Driver extension errors"); match with `findError`. Fields describe the shape only and
 * never expose configuration values or map keys.
 */
export class SessionConfigFingerprintError extends AdaptorError {
  static override readonly brand: symbol = Symbol.for("adaptor.error.SessionConfigFingerprintError");
  /** Path to the offending field, with keys elided, e.g. `"config.env[*]"`. */
  readonly path: string;
  /** The JavaScript type found, e.g. `"function"`. */
  readonly type: string;
  /** The shape kind, e.g. `"function"`, `"symbol"`, `"cycle"`. */
  readonly kind: string;
  /** Why it cannot be fingerprinted. */
  readonly why: string;

  constructor(init: { path: string; type: string; kind: string; why: string }) {
    super(`session config fingerprint: ${init.path} (${init.kind}): ${init.why}`);
    this.path = init.path;
    this.type = init.type;
    this.kind = init.kind;
    this.why = init.why;
  }
}
