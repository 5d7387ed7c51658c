import { describe, expect, it } from "vitest";
import { DriverError, ErrCode, findError } from "@adaptor/errors";
import { LeaseLostError, MemoryThreadStore, type Lease, type ThreadStore } from "@adaptor/threadstore";
import { Agent, ErrThreadLeaseLost, ThreadCommitError, isError, type Result } from "../src/index.js";
import { scriptedDriver } from "./scripted-driver.js";

// A thread turn whose finalize does not end in a clean success: the host is told whether the turn
// was committed (a lost reply after the write resolves the run), not committed (the error carries
// the turn's result), or unknown; a store whose resolve lags behind cannot silently cut history;
// and a finalize slower than the lease TTL still finds its lease held.

type Overrides = { [M in keyof ThreadStore]?: (inner: MemoryThreadStore, ...args: never[]) => unknown };

/** `inner` with some methods replaced by `overrides` (each given `inner` first). */
function wrapped(inner: MemoryThreadStore, overrides: Overrides): ThreadStore {
  return new Proxy(inner, {
    get(target, prop) {
      const override = (overrides as Record<string | symbol, ((...args: unknown[]) => unknown) | undefined>)[prop];
      if (override) return (...args: unknown[]) => override(target, ...args);
      const value: unknown = Reflect.get(target, prop, target);
      return typeof value === "function" ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  }) as ThreadStore;
}

const disconnected = (): DriverError =>
  new DriverError({ op: "finalize", device: "custom-store", code: ErrCode.DeviceDisconnected, cause: "reply lost" });

function healthyDriver() {
  return scriptedDriver(async (request) => ({ text: `ok:${request.prompt}`, checkpoint: { resumeId: request.session?.resumeId ?? "s1" } }));
}

/** Runs one turn on `store`, collecting its notices; answers the result or the rejection. */
async function turn(store: ThreadStore, prompt: string, leaseTtlMs = 60_000): Promise<{ outcome: Result | unknown; notices: string[] }> {
  const stream = new Agent(healthyDriver(), { threadStore: store, owner: "h", leaseTtlMs }).thread("k").stream(prompt);
  const notices: string[] = [];
  for await (const event of stream) if (event.type === "notice") notices.push(event.message ?? "");
  const outcome = await stream.result().catch((error: unknown) => error);
  return { outcome, notices };
}

describe("a finalize that fails: the record is read back and the host told whether the turn was committed", () => {
  it("committed, then the reply was lost (DEVICE_DISCONNECTED): the run resolves its Result, with a notice", async () => {
    const inner = new MemoryThreadStore();
    const store = wrapped(inner, {
      finalize: async (real, request: never, signal: never) => {
        await real.finalize(request, signal);
        throw disconnected();
      },
    });
    const { outcome, notices } = await turn(store, "x");
    expect(outcome).not.toBeInstanceOf(Error);
    expect((outcome as Result).text).toBe("ok:x");
    expect(notices).toContain("thread store reply lost; the turn is committed");
    expect(await inner.resolve({ key: "k" })).toMatchObject({ checkpoint: { resumeId: "s1" }, revision: 1 });
  });

  it("committed on a continued thread (the revision after the one it resumed from): resolves, not a second run", async () => {
    const inner = new MemoryThreadStore();
    await turn(inner, "first");
    const store = wrapped(inner, {
      finalize: async (real, request: never, signal: never) => {
        await real.finalize(request, signal);
        throw disconnected();
      },
    });
    const { outcome } = await turn(store, "second");
    expect((outcome as Result).text).toBe("ok:second");
    expect((await inner.resolve({ key: "k" }))?.revision).toBe(2);
  });

  it("nothing committed (the same DEVICE_DISCONNECTED): ThreadCommitError not_committed carrying the turn's result", async () => {
    const inner = new MemoryThreadStore();
    await turn(inner, "first");
    const store = wrapped(inner, {
      finalize: async () => {
        throw disconnected();
      },
    });
    const { outcome } = await turn(store, "second");
    expect(outcome).toBeInstanceOf(ThreadCommitError);
    const err = outcome as ThreadCommitError;
    expect(err.reason).toBe("not_committed");
    expect(err.message).toContain("nothing was committed");
    expect(err.result?.text).toBe("ok:second");
    expect(findError(err, DriverError)?.code).toBe("DEVICE_DISCONNECTED");
    expect(isError(err, ErrThreadLeaseLost)).toBe(false);
    expect((await inner.resolve({ key: "k" }))?.revision).toBe(1);
  });

  it("nothing committed on a new thread: not_committed, and the key still has no record", async () => {
    const inner = new MemoryThreadStore();
    const { outcome } = await turn(
      wrapped(inner, {
        finalize: async () => {
          throw disconnected();
        },
      }),
      "x",
    );
    expect(outcome).toMatchObject({ reason: "not_committed", result: { text: "ok:x" } });
    expect(await inner.resolve({ key: "k" })).toBeUndefined();
  });

  it("finalize fails and reading the record back fails too: unknown, saying the commit may or may not have landed", async () => {
    const inner = new MemoryThreadStore();
    let finalized = false;
    const store = wrapped(inner, {
      finalize: async () => {
        finalized = true;
        throw disconnected();
      },
      resolve: async (real, query: never, signal: never) => {
        if (finalized) throw new DriverError({ op: "resolve", device: "custom-store", code: ErrCode.DeviceDisconnected, cause: "down" });
        return real.resolve(query, signal);
      },
    });
    const { outcome } = await turn(store, "x");
    expect(outcome).toBeInstanceOf(ThreadCommitError);
    expect((outcome as ThreadCommitError).reason).toBe("unknown");
    expect((outcome as Error).message).toContain("may or may not have landed");
    expect((outcome as ThreadCommitError).result?.text).toBe("ok:x");
  });

  it("the store refused the write for a lost lease: ErrThreadLeaseLost, not_committed, naming the write and carrying the result", async () => {
    const inner = new MemoryThreadStore();
    const store = wrapped(inner, {
      finalize: async (_real, request: never) => {
        throw new LeaseLostError((request as { record: { key: string } }).record.key);
      },
    });
    const { outcome } = await turn(store, "x");
    expect(isError(outcome, ErrThreadLeaseLost)).toBe(true);
    expect(outcome).toMatchObject({ reason: "not_committed", result: { text: "ok:x" } });
    expect((outcome as Error).message).toContain("lease lost at finalize");
    expect((outcome as Error).message).not.toContain("before finalize");
  });
});

describe("a store whose resolve answers an older revision (a lagging replica)", () => {
  it("the write that cut the turn between from history fails the run: revision_moved, ErrThreadLeaseLost, naming the revisions", async () => {
    const inner = new MemoryThreadStore();
    await turn(inner, "first");
    const old = await inner.resolve({ key: "k" });
    await turn(inner, "second");
    const lagging = wrapped(inner, {
      resolve: async (real, query: never, signal: never) =>
        "key" in (query as object) ? structuredClone(old) : real.resolve(query, signal),
    });
    const { outcome } = await turn(lagging, "third");
    expect(outcome).toBeInstanceOf(ThreadCommitError);
    const err = outcome as ThreadCommitError;
    expect(err.reason).toBe("revision_moved");
    expect(isError(err, ErrThreadLeaseLost)).toBe(true);
    expect(err.message).toContain("resumed from revision 1");
    expect(err.message).toContain("wrote revision 3 (expected 2)");
    expect(err.result?.text).toBe("ok:third");
  });
});

describe("a finalize slower than the lease time-to-live", () => {
  it("the lease is renewed while finalize runs: the turn commits", async () => {
    const inner = new MemoryThreadStore();
    let renewals = 0;
    const store = wrapped(inner, {
      renewLease: async (real, lease: never, ttl: never, signal: never) => {
        renewals += 1;
        return real.renewLease(lease, ttl, signal);
      },
      finalize: async (real, request: never, signal: never) => {
        const [lease] = (request as { leases: Lease[] }).leases;
        const since = renewals;
        // Until the lease as granted has lapsed and two renewals came while finalize waited (or 5 s).
        const deadline = Date.now() + 5_000;
        while (Date.now() < deadline && (renewals < since + 2 || Date.now() <= lease!.expiresAt.getTime() + 100)) {
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
        return real.finalize(request, signal);
      },
    });
    const { outcome } = await turn(store, "x", 600);
    expect((outcome as Result).text).toBe("ok:x");
    expect(await inner.resolve({ key: "k" })).toMatchObject({ revision: 1 });
  });
});
