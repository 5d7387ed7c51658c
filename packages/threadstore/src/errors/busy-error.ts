import { AdaptorError } from "@adaptor/errors";
import { ErrBusy } from "./sentinels.js";

/** Another owner holds a live lease on `target`; matches {@link ErrBusy}. */
export class BusyError extends AdaptorError {
  static override readonly brand: symbol = Symbol.for("adaptor.error.BusyError");
  static override readonly sentinel = ErrBusy;
  /** The lease target (a thread key or record id). */
  readonly target: string;

  constructor(target: string) {
    super(`lease busy: ${target}`);
    this.target = target;
  }
}
