/**
 * A clock that moves only when told: pass `clock.now` to a store's `now` option and return the
 * clock from a conformance-kit factory, so lease expiry is tested without sleeping.
 *
 * @example
 * ```ts
 * const clock = new ManualClock();
 * const store = new MemoryThreadStore({ now: clock.now });
 * clock.advance(30_000); // every lease with a TTL of 30 s or less has now lapsed
 * ```
 */
export class ManualClock {
  #ms: number;

  /** @param start - the initial time; default 2026-01-01T00:00:00.000Z. */
  constructor(start: Date = new Date("2026-01-01T00:00:00.000Z")) {
    this.#ms = start.getTime();
  }

  /** The current time, as a fresh `Date`. Bound, so it can be passed around as a function. */
  readonly now = (): Date => new Date(this.#ms);

  /** Moves the clock forward by `ms` milliseconds (must be ≥ 0). */
  advance(ms: number): void {
    if (!(ms >= 0)) throw new RangeError(`ManualClock.advance: ms must be >= 0, got ${ms}`);
    this.#ms += ms;
  }
}
