import { AdaptorError } from "@adaptor/errors";
import { ErrLeaseLost } from "./sentinels.js";

/** The caller's lease on `target` is expired, taken over or unknown; matches {@link ErrLeaseLost}. */
export class LeaseLostError extends AdaptorError {
  static override readonly brand: symbol = Symbol.for("adaptor.error.LeaseLostError");
  static override readonly sentinel = ErrLeaseLost;
  /** The lease target, e.g. `"thread:<key>"`. */
  readonly target: string;

  constructor(target: string) {
    super(`lease lost: ${target}`);
    this.target = target;
  }
}
