import { afterEach, describe, expect, it } from "vitest";
import { MemoryThreadStore, type ThreadStore } from "@adaptor/threadstore";
import { Agent, ErrThreadLeaseLost, isError } from "../src/index.js";
import { scriptedDriver, untilAborted } from "./scripted-driver.js";

// The store judges a lease's expiry by its own clock (a database server's); this host's wall clock
// may be a minute away from it. The run's renewal must count the lease's time from the local
// monotonic clock, never by comparing the store's `expiresAt` with `Date.now()`.

const RealDate = Date;

/** Shifts this process's wall clock (`Date.now()`, `new Date()`) by `skewMs`; timers and `performance.now()` are untouched. */
function skewWallClock(skewMs: number): void {
  class SkewDate extends RealDate {
    constructor(...args: unknown[]) {
      if (args.length === 0) super(RealDate.now() + skewMs);
      else super(...(args as [string | number | Date]));
    }
    static override now(): number {
      return RealDate.now() + skewMs;
    }
    // A date made elsewhere (a structured clone, another realm's copy) is still a Date.
    static override [Symbol.hasInstance](value: unknown): boolean {
      return value instanceof RealDate;
    }
  }
  globalThis.Date = SkewDate as DateConstructor;
}

afterEach(() => {
  globalThis.Date = RealDate;
});

/** A store whose clock is the true one, whatever this process's `Date` says (a database server). */
function serverClockStore(): MemoryThreadStore {
  return new MemoryThreadStore({ now: () => new Date(RealDate.now()) });
}

/**
 * `inner`, counting its lease renewals, each answered after a 100 ms round trip (a database's);
 * `renewLease` answers `renew()` instead when given.
 */
function countingStore(inner: MemoryThreadStore, renew?: () => Promise<never>): ThreadStore & { renewals: number } {
  const store = {
    renewals: 0,
    resolve: (q, s) => inner.resolve(q, s),
    acquireLease: (t, o, ttl, s) => inner.acquireLease(t, o, ttl, s),
    renewLease: (l, ttl, s) => {
      store.renewals += 1;
      if (renew) return renew();
      return new Promise<void>((resolve) => setTimeout(resolve, 100)).then(() => inner.renewLease(l, ttl, s));
    },
    releaseLease: (l, s) => inner.releaseLease(l, s),
    finalize: (r, s) => inner.finalize(r, s),
    close: () => inner.close(),
  } satisfies ThreadStore & { renewals: number };
  return store;
}

/** Resolves once `condition()` holds (polled every 50 ms) or `signal` aborts. */
async function until(condition: () => boolean, signal: AbortSignal): Promise<void> {
  while (!condition() && !signal.aborted) await new Promise((resolve) => setTimeout(resolve, 50));
}

describe("a thread lease under clock skew between the host and the store", () => {
  it("host clock 60 s ahead of the store: the turn outlives several renewals (over one time-to-live) and commits", async () => {
    skewWallClock(60_000);
    const inner = serverClockStore();
    const store = countingStore(inner);
    // Renewed every 2 s (a third of the 6 s time-to-live, so a stall of a few seconds on a busy
    // machine loses nothing); the turn lasts until the fourth renewal, past the first grant's expiry.
    const driver = scriptedDriver(async (_request, _sink, signal) => {
      await until(() => store.renewals >= 4, signal);
      signal.throwIfAborted();
      return { text: "done", checkpoint: { resumeId: "s1" } };
    });
    const result = await new Agent(driver, { threadStore: store, owner: "h", leaseTtlMs: 6_000 }).thread("k").run("long turn");
    expect(result.text).toBe("done");
    expect(store.renewals).toBeGreaterThanOrEqual(4);
    expect((await inner.resolve({ key: "k" }))?.checkpoint.resumeId).toBe("s1");
  });

  it("host clock 60 s behind the store, renewal never answers: the run ends lease-lost once the time-to-live has passed, not a minute later", async () => {
    skewWallClock(-60_000);
    const inner = serverClockStore();
    const store = countingStore(inner, () => new Promise<never>(() => undefined));
    const driver = scriptedDriver(async (_request, _sink, signal) => {
      await untilAborted(signal).catch(() => undefined);
      return { text: "finished", checkpoint: { resumeId: "s1" } };
    });
    const run = new Agent(driver, { threadStore: store, owner: "h", leaseTtlMs: 1500 })
      .thread("k")
      .run("long turn")
      .catch((error: unknown) => error);
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<string>((resolve) => (timer = setTimeout(() => resolve("still running after 15 s"), 15_000)));
    const verdict = await Promise.race([run, late]);
    clearTimeout(timer);
    expect(isError(verdict, ErrThreadLeaseLost)).toBe(true);
    expect(store.renewals).toBe(1);
    expect(await inner.resolve({ key: "k" })).toBeUndefined();
  }, 20_000);
});
