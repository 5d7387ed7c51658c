import { AdaptorError } from "@adaptor/errors";
import { ErrBusy } from "./sentinels.js";

/** Who holds a live lease, as a store read it when it refused another owner. */
export interface LeaseHolder {
  /** The holder's owner id (e.g. another Agent's owner, or a process that crashed holding it). */
  readonly owner: string;
  /** When the holder's lease lapses unless renewed (the store's clock). */
  readonly expiresAt: Date;
}

/**
 * Another owner holds a live lease on `target`; matches {@link ErrBusy}. Names the holder and when
 * its lease lapses (a lease left by a crashed process is free from then on), in its fields and in
 * its message: `lease busy: <target> (held by <owner> until <ISO time>)`.
 */
export class BusyError extends AdaptorError {
  static override readonly brand: symbol = Symbol.for("adaptor.error.BusyError");
  static override readonly sentinel = ErrBusy;
  /** The lease target (a thread key or record id). */
  readonly target: string;
  /** The holder's owner id; `undefined` only when the store could not read the holder (it let go meanwhile). */
  readonly owner: string | undefined;
  /** When the holder's lease lapses unless renewed; `undefined` with `owner`. */
  readonly expiresAt: Date | undefined;

  /**
   * @param target - the lease target.
   * @param holder - the live lease's owner and expiry, as the store read them.
   */
  constructor(target: string, holder?: LeaseHolder) {
    super(`lease busy: ${target}${holder ? ` (held by ${JSON.stringify(holder.owner)} until ${isoOrRaw(holder.expiresAt)})` : ""}`);
    this.target = target;
    this.owner = holder?.owner;
    this.expiresAt = holder && new Date(holder.expiresAt.getTime());
  }
}

function isoOrRaw(at: Date): string {
  return Number.isNaN(at.getTime()) ? String(at) : at.toISOString();
}
