import { describe, expect, it } from "vitest";
import { DriverError, InvalidOptionError } from "@adaptor/errors";
import type { SessionFile, SessionLocation, SessionTransfer } from "@adaptor/driver";
import { MemoryThreadStore, type ThreadStore } from "@adaptor/threadstore";
import { Agent } from "../src/index.js";
import { scriptedDriver } from "./scripted-driver.js";
import { faultyStore, freeForAnotherHost, hang, healthyDriver, seeded } from "./support/faulty-store.js";

// A custom store whose call never answers (a stuck database connection) or answers a malformed
// value: the run still ends with its documented verdict, and the key's lease is given back.

async function runVerdict(store: ThreadStore, key: string, options: { timeoutMs?: number; signal?: AbortSignal }): Promise<unknown> {
  const agent = new Agent(healthyDriver(), { threadStore: store, owner: "h", leaseTtlMs: 60_000 });
  return agent
    .thread(key)
    .run("second", options)
    .then(
      () => "resolved",
      (error: unknown) => error,
    );
}

describe("a thread store call that never answers", () => {
  it("resolve hangs: timeoutMs rejects with DriverError TIMEOUT naming threadStore.resolve, and the lease is released", async () => {
    const inner = new MemoryThreadStore();
    const err = await runVerdict(faultyStore(inner, "resolve", hang), "k", { timeoutMs: 300 });
    expect(err).toBeInstanceOf(DriverError);
    expect(err).toMatchObject({ code: "TIMEOUT", op: "threadStore.resolve", device: "thread store" });
    expect(await freeForAnotherHost(inner, "k")).toBe(true);
  });

  it("resolve hangs: the run's signal aborting rejects with the abort reason, and the lease is released", async () => {
    const inner = new MemoryThreadStore();
    const controller = new AbortController();
    const reason = new Error("caller gave up");
    const store = faultyStore(inner, "resolve", () => {
      controller.abort(reason);
      return hang();
    });
    expect(await runVerdict(store, "k", { signal: controller.signal })).toBe(reason);
    expect(await freeForAnotherHost(inner, "k")).toBe(true);
  });

  it("acquireLease hangs: TIMEOUT naming threadStore.acquireLease; a lease granted late is given back", async () => {
    const inner = new MemoryThreadStore();
    let grant: (() => void) | undefined;
    const store = faultyStore(inner, "acquireLease", (lease) => new Promise((resolve) => (grant = () => resolve(lease))));
    const err = await runVerdict(store, "k", { timeoutMs: 300 });
    expect(err).toMatchObject({ code: "TIMEOUT", op: "threadStore.acquireLease" });
    grant!();
    await expect.poll(() => freeForAnotherHost(inner, "k")).toBe(true);
  });

  it("finalize hangs: TIMEOUT naming threadStore.finalize and saying the outcome is unknown", async () => {
    const inner = new MemoryThreadStore();
    const err = await runVerdict(faultyStore(inner, "finalize", hang), "k", { timeoutMs: 300 });
    expect(err).toMatchObject({ code: "TIMEOUT", op: "threadStore.finalize" });
    expect((err as Error).message).toContain("unknown");
    expect(await freeForAnotherHost(inner, "k")).toBe(true);
  });

  it("releaseLease hangs: the run still ends with its verdict once the lease time-to-live has passed, with a notice", async () => {
    const inner = new MemoryThreadStore();
    const driver = scriptedDriver(async () => {
      throw new Error("driver exploded");
    });
    const agent = new Agent(driver, { threadStore: faultyStore(inner, "releaseLease", hang), owner: "h", leaseTtlMs: 500 });
    const stream = agent.thread("k").stream("x");
    const notices: string[] = [];
    for await (const event of stream) if (event.type === "notice") notices.push(event.message ?? "");
    const err = await stream.result().catch((error: unknown) => error);
    expect((err as Error).message).toBe("driver exploded");
    expect(notices.some((message) => message.startsWith("lease release failed"))).toBe(true);
  });

  it("a session state read hangs: TIMEOUT naming threadStore.sessionState.read", async () => {
    /** A CLI home holding one session file per id. */
    class Home implements SessionTransfer {
      readonly format = "lines/v1";
      readonly files = new Map<string, Buffer>();
      async exportSession(location: SessionLocation): Promise<readonly SessionFile[] | undefined> {
        const content = this.files.get(location.resumeId);
        return content ? [{ name: "session.log", content }] : undefined;
      }
      async importSession(location: SessionLocation, files: readonly SessionFile[]): Promise<void> {
        this.files.set(location.resumeId, Buffer.from(files[0]!.content));
      }
    }
    const hostDriver = (home: Home) =>
      scriptedDriver(
        async (request) => {
          const id = request.session?.resumeId ?? "00000000-0000-4000-8000-000000000001";
          home.files.set(id, Buffer.concat([home.files.get(id) ?? Buffer.alloc(0), Buffer.from(`user: ${request.prompt}\n`)]));
          return { text: "ok", checkpoint: { resumeId: id } };
        },
        { sessions: home },
      );
    const inner = new MemoryThreadStore();
    await new Agent(hostDriver(new Home()), { threadStore: inner, owner: "a" }).thread("k").run("first");
    const state = inner.sessionState!;
    const hungRead = new Proxy(state, {
      get: (target, prop) => (prop === "read" ? hang : (Reflect.get(target, prop, target) as unknown)),
    });
    const store = new Proxy(inner, {
      get: (target, prop) => {
        if (prop === "sessionState") return hungRead;
        const value: unknown = Reflect.get(target, prop, target);
        return typeof value === "function" ? (value as (...a: unknown[]) => unknown).bind(target) : value;
      },
    }) as ThreadStore;
    const err = await new Agent(hostDriver(new Home()), { threadStore: store, owner: "b", leaseTtlMs: 60_000 })
      .thread("k")
      .run("second", { timeoutMs: 300 })
      .catch((error: unknown) => error);
    expect(err).toMatchObject({ code: "TIMEOUT", op: "threadStore.sessionState.read" });
    expect(await freeForAnotherHost(inner, "k")).toBe(true);
  });
});

describe("a thread store answering a malformed value", () => {
  it("resolve: a record without checkpoint is InvalidOptionError naming resolve() and checkpoint", async () => {
    const inner = await seeded();
    const store = faultyStore(inner, "resolve", (record) => ({ ...(record as object), checkpoint: undefined }));
    const err = await runVerdict(store, "k", {});
    expect(err).toBeInstanceOf(InvalidOptionError);
    expect(err).toMatchObject({ subject: "thread store resolve() answer", field: "checkpoint" });
    expect(await freeForAnotherHost(inner, "k")).toBe(true);
  });

  it("resolve: a string is InvalidOptionError naming resolve()", async () => {
    const inner = await seeded();
    const err = await runVerdict(
      faultyStore(inner, "resolve", () => "record"),
      "k",
      {},
    );
    expect(err).toMatchObject({ subject: "thread store resolve() answer", field: "" });
    expect(err).toBeInstanceOf(InvalidOptionError);
  });

  it("resolve: another key's record is InvalidOptionError naming key", async () => {
    const inner = await seeded();
    const err = await runVerdict(
      faultyStore(inner, "resolve", (record) => ({ ...(record as object), key: "other" })),
      "k",
      {},
    );
    expect(err).toMatchObject({ subject: "thread store resolve() answer", field: "key" });
  });

  it("finalize: undefined after committing is InvalidOptionError naming finalize()", async () => {
    const inner = new MemoryThreadStore();
    const err = await runVerdict(
      faultyStore(inner, "finalize", () => undefined),
      "k",
      {},
    );
    expect(err).toBeInstanceOf(InvalidOptionError);
    expect(err).toMatchObject({ subject: "thread store finalize() answer", field: "" });
  });

  it("acquireLease: null is InvalidOptionError naming acquireLease()", async () => {
    const inner = new MemoryThreadStore();
    const err = await runVerdict(
      faultyStore(inner, "acquireLease", () => null),
      "k",
      {},
    );
    expect(err).toBeInstanceOf(InvalidOptionError);
    expect(err).toMatchObject({ subject: "thread store acquireLease() answer", field: "" });
  });

  it("acquireLease: a non-finite token is InvalidOptionError naming token", async () => {
    const inner = new MemoryThreadStore();
    const err = await runVerdict(
      faultyStore(inner, "acquireLease", (lease) => ({ ...(lease as object), token: Number.NaN })),
      "k",
      {},
    );
    expect(err).toMatchObject({ subject: "thread store acquireLease() answer", field: "token" });
  });

  it("acquireLease: a lease under the store's own owner (as a fleet's workers share one) is taken as it is", async () => {
    const inner = new MemoryThreadStore();
    const ownOwner: ThreadStore = new Proxy(inner, {
      get(target, prop) {
        if (prop !== "acquireLease") {
          const value: unknown = Reflect.get(target, prop, target);
          return typeof value === "function" ? (value as (...a: unknown[]) => unknown).bind(target) : value;
        }
        return (key: string, _owner: string, ttlMs: number, signal?: AbortSignal) =>
          target.acquireLease(key, "the-store's-own", ttlMs, signal);
      },
    }) as ThreadStore;
    expect(await runVerdict(ownOwner, "k", {})).toBe("resolved");
    expect((await inner.resolve({ key: "k" }))?.revision).toBe(1);
  });
});
