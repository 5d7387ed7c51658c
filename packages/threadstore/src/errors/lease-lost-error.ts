import { AdaptorError, type AdaptorErrorOptions } from "@adaptor/errors";
import { ErrLeaseLost } from "./sentinels.js";

/** The caller's lease on `target` is expired, taken over or unknown; matches {@link ErrLeaseLost}. */
export class LeaseLostError extends AdaptorError {
  static override readonly brand: symbol = Symbol.for("adaptor.error.LeaseLostError");
  static override readonly sentinel = ErrLeaseLost;
  /** The lease target, e.g. `"thread:<key>"`. */
  readonly target: string;

  /**
   * @param target The lease target.
   * @param options `cause`: why the store cannot vouch for the lease, when it is more than a stale
   * owner, token or expiry (e.g. the SQLite store's database file was replaced under it).
   */
  constructor(target: string, options: Pick<AdaptorErrorOptions, "cause"> = {}) {
    super(`lease lost: ${target}`, options);
    this.target = target;
  }
}
