import type { Lease } from "../contract/lease.js";

/** How many released leases {@link ReleasedLeases} keeps by default. */
const DEFAULT_CAPACITY = 1_024;

/**
 * For store authors: remembers the leases a `finalize` with `releaseLeases` released, so the
 * holder's following `releaseLease` of the same lease (owner and token) is answered without a
 * backend call. That answer is exact: a released lease's token is stale forever (tokens only grow),
 * so releasing it again is the no-op the contract asks for. A lease of the same target with another
 * owner or token is not matched and goes to the backend as usual.
 *
 * Holds at most `capacity` leases (default 1024), one per target: the oldest is dropped first,
 * which only costs that lease's `releaseLease` a backend call.
 *
 * @example
 * ```ts
 * const released = new ReleasedLeases();
 * // in finalize, after the transaction that released request.leases committed:
 * released.add(request.leases);
 * // in releaseLease:
 * if (released.take(lease)) return;
 * ```
 */
export class ReleasedLeases {
  readonly #capacity: number;
  /** By target: the owner and token of its released lease. */
  readonly #byTarget = new Map<string, { owner: string; token: number }>();

  /** @throws RangeError unless `capacity` is a positive safe integer. */
  constructor(capacity = DEFAULT_CAPACITY) {
    if (!Number.isSafeInteger(capacity) || capacity <= 0)
      throw new RangeError(`ReleasedLeases: capacity must be a positive safe integer, got ${String(capacity)}`);
    this.#capacity = capacity;
  }

  /** Remembers `leases` as released (committed by the backend). */
  add(leases: readonly Lease[]): void {
    for (const { target, owner, token } of leases) {
      this.#byTarget.delete(target); // re-inserted last: the newest is dropped last
      this.#byTarget.set(target, { owner, token });
      if (this.#byTarget.size > this.#capacity) this.#byTarget.delete(this.#byTarget.keys().next().value as string);
    }
  }

  /** True when `lease` (target, owner and token) was remembered as released; it is forgotten then. */
  take(lease: Lease): boolean {
    const found = this.#byTarget.get(lease.target);
    if (!found || found.owner !== lease.owner || found.token !== lease.token) return false;
    this.#byTarget.delete(lease.target);
    return true;
  }

  /** How many released leases are remembered. */
  get size(): number {
    return this.#byTarget.size;
  }
}
