import { describe, expect, it } from "vitest";
import { InvalidOptionError, findError } from "@adaptor/errors";
import { MemoryThreadStore, type Lease } from "@adaptor/threadstore";
import { Agent, ErrThreadLeaseLost, isError } from "../src/index.js";
import { scriptedDriver } from "./scripted-driver.js";
import { faultyStore, freeForAnotherHost, healthyDriver, seeded, verdict } from "./support/faulty-store.js";

// A custom store that answers a malformed value: the Agent's thread APIs and a turn's lease
// renewal refuse it with an InvalidOptionError naming the method and the field, rather than
// crashing on it later or using it; a lease grant answered malformed does not leave the key busy.

const summary = (page: unknown): Record<string, unknown> => ({ ...(page as { threads: object[] }).threads[0] });

describe("a malformed answer of a thread API's store call is an InvalidOptionError naming the method and the field", () => {
  it.each([
    ["not an object", () => "page", ""],
    ["threads not an array", () => ({ threads: {} }), "threads"],
    ["an entry without a key", (page: unknown) => ({ threads: [{ ...summary(page), key: undefined }] }), "threads[0].key"],
    ["an entry of a key outside the prefix", (page: unknown) => ({ threads: [{ ...summary(page), key: "zz" }] }), "threads[0].key"],
    ["an invalid updatedAt", (page: unknown) => ({ threads: [{ ...summary(page), updatedAt: new Date(NaN) }] }), "threads[0].updatedAt"],
    ["a NaN revision", (page: unknown) => ({ threads: [{ ...summary(page), revision: NaN }] }), "threads[0].revision"],
    ["a fractional revision", (page: unknown) => ({ threads: [{ ...summary(page), revision: 1.5 }] }), "threads[0].revision"],
    ["a negative revision", (page: unknown) => ({ threads: [{ ...summary(page), revision: -3 }] }), "threads[0].revision"],
    [
      "a revision 0 (a record's first write is revision 1)",
      (page: unknown) => ({ threads: [{ ...summary(page), revision: 0 }] }),
      "threads[0].revision",
    ],
    ["an empty recordId", (page: unknown) => ({ threads: [{ ...summary(page), recordId: "" }] }), "threads[0].recordId"],
    [
      "an entry whose key breaks the key rules (NUL)",
      (page: unknown) => ({ threads: [{ ...summary(page), key: "k\0x" }] }),
      "threads[0].key",
    ],
    // eslint-disable-next-line no-sparse-arrays -- a hole in the array is the malformed answer
    ["a hole in threads", (page: unknown) => ({ threads: [summary(page), , summary(page)] }), "threads[1]"],
    ["a negative count", (page: unknown) => ({ threads: [{ ...summary(page), archivedRecords: -1 }] }), "threads[0].archivedRecords"],
    ["a numeric nextCursor", (page: unknown) => ({ ...(page as object), nextCursor: 7 }), "nextCursor"],
  ] as const)("listThreads answering %s", async (_name, answer, field) => {
    const store = faultyStore(await seeded(), "listThreads", answer);
    const err = await verdict(new Agent(healthyDriver(), { threadStore: store, owner: "h" }).listThreads({ prefix: "k" }));
    expect(err).toBeInstanceOf(InvalidOptionError);
    expect(err).toMatchObject({ subject: "thread store listThreads() answer", field });
  });

  it("listThreads: a well-formed page is answered as the store gave it", async () => {
    const store = faultyStore(await seeded(), "listThreads", (page) => page);
    const page = await new Agent(healthyDriver(), { threadStore: store, owner: "h" }).listThreads({ prefix: "k" });
    expect(page.threads.map((thread) => thread.key)).toEqual(["k"]);
  });

  it.each([
    ["undefined", (): undefined => undefined, ""],
    ["a NaN records count", () => ({ records: NaN, approvals: 0 }), "records"],
    ["no approvals count", () => ({ records: 1 }), "approvals"],
  ] as const)("deleteThread answering %s (the store answered: the thread is gone all the same)", async (_name, answer, field) => {
    const inner = await seeded();
    const err = await verdict(
      new Agent(healthyDriver(), { threadStore: faultyStore(inner, "deleteThread", answer), owner: "h" }).deleteThread("k"),
    );
    expect(err).toBeInstanceOf(InvalidOptionError);
    expect(err).toMatchObject({ subject: "thread store deleteThread() answer", field });
    expect(await inner.resolve({ key: "k" })).toBeUndefined();
  });

  const approval = {
    id: "a1",
    key: "k",
    kind: "permission",
    title: "Write: notes.md",
    status: "pending",
    createdAt: new Date(),
    onDeadline: "deny",
    turn: {},
  };
  it.each([
    ["an object", () => ({ approvals: [] }), ""],
    ["an entry of another key", () => [approval, { ...approval, id: "a2", key: "other" }], "[1].key"],
    ["an entry without an id", () => [{ ...approval, id: undefined }], "[0].id"],
    ["an unknown status", () => [{ ...approval, status: "waiting" }], "[0].status"],
    ["a closed approval", () => [{ ...approval, status: "closed" }], "[0].status"],
    ["an invalid deadline", () => [{ ...approval, deadline: "tomorrow" }], "[0].deadline"],
    ["an answered approval without decision", () => [{ ...approval, status: "answered", resolvedAt: new Date() }], "[0].decision"],
    ["an expired approval without decision", () => [{ ...approval, status: "expired", resolvedAt: new Date() }], "[0].decision"],
    [
      "a decision of an unknown outcome",
      () => [{ ...approval, status: "answered", decision: { outcome: "maybe" }, resolvedAt: new Date() }],
      "[0].decision.outcome",
    ],
    [
      "a deny decision without reason",
      () => [{ ...approval, status: "answered", decision: { outcome: "deny" }, resolvedAt: new Date() }],
      "[0].decision.reason",
    ],
    [
      "an answer decision without choice",
      () => [{ ...approval, status: "answered", decision: { outcome: "answer", choice: 3 }, resolvedAt: new Date() }],
      "[0].decision.choice",
    ],
    [
      "an invalid resolvedAt",
      () => [{ ...approval, status: "answered", decision: { outcome: "approve" }, resolvedAt: "x" }],
      "[0].resolvedAt",
    ],
    ["choices not an array", () => [{ ...approval, choices: "x" }], "[0].choices"],
    ["a choice without label", () => [{ ...approval, choices: [{ key: "a" }] }], "[0].choices[0].label"],
    // eslint-disable-next-line no-sparse-arrays -- a hole in the array is the malformed answer
    ["a hole in the list", () => [approval, , approval], "[1]"],
  ] as const)("thread.pendingApprovals: listPendingApprovals answering %s", async (_name, answer, field) => {
    const store = faultyStore(await seeded(), "listPendingApprovals", answer);
    const err = await verdict(new Agent(healthyDriver(), { threadStore: store, owner: "h" }).thread("k").pendingApprovals());
    expect(err).toBeInstanceOf(InvalidOptionError);
    expect(err).toMatchObject({ subject: "thread store listPendingApprovals() answer", field });
  });

  it("thread.pendingApprovals: well-formed approvals are answered as the store gave them", async () => {
    const answered = {
      ...approval,
      id: "a2",
      status: "answered",
      decision: { outcome: "answer", choice: "a" },
      resolvedAt: new Date(),
      choices: [
        { key: "a", label: "A", description: "the first" },
        { key: "b", label: "B" },
      ],
    };
    const expired = { ...approval, id: "a3", status: "expired", decision: { outcome: "deny", reason: "late" }, resolvedAt: new Date() };
    const store = faultyStore(await seeded(), "listPendingApprovals", () => [approval, answered, expired]);
    expect(await new Agent(healthyDriver(), { threadStore: store, owner: "h" }).thread("k").pendingApprovals()).toEqual([
      approval,
      answered,
      expired,
    ]);
  });
});

describe("a lease renewal answering a malformed lease", () => {
  it.each([
    ["a NaN expiry", (lease: Lease) => ({ ...lease, expiresAt: new Date(NaN) }), "expiresAt"],
    ["a lease of another key", (lease: Lease) => ({ ...lease, target: "other" }), "target"],
    ["another token", (lease: Lease) => ({ ...lease, token: lease.token + 1 }), "token"],
    ["undefined", () => undefined, ""],
  ] as const)(
    "%s: ends the run at once with ErrThreadLeaseLost caused by an InvalidOptionError naming renewLease",
    async (_name, answer, field) => {
      const store = faultyStore(new MemoryThreadStore(), "renewLease", (lease) => answer(lease as Lease));
      // The turn runs until its signal aborts: only the lease loss can end it.
      const driver = scriptedDriver(
        (_request, _sink, signal) =>
          new Promise((_resolve, reject) => signal.addEventListener("abort", () => reject(signal.reason as Error), { once: true })),
      );
      const err = await verdict(new Agent(driver, { threadStore: store, owner: "h", leaseTtlMs: 900 }).thread("k").run("x"));
      expect(isError(err, ErrThreadLeaseLost)).toBe(true);
      expect(findError(err, InvalidOptionError)).toMatchObject({ subject: "thread store renewLease() answer", field });
      // Not renewed again with what it answered.
      expect(store.calls).toBe(1);
    },
  );
});

describe("a lease grant answered malformed although the store granted it", () => {
  it.each([
    ["an invalid expiresAt", (lease: unknown) => ({ ...(lease as Lease), expiresAt: new Date(NaN) })],
    ["a string expiresAt", (lease: unknown) => ({ ...(lease as Lease), expiresAt: "soon" })],
  ] as const)("%s, naming this owner and a token: the run fails and that lease is released at once", async (_name, answer) => {
    const inner = new MemoryThreadStore();
    const store = faultyStore(inner, "acquireLease", answer);
    const agent = new Agent(healthyDriver(), { threadStore: store, owner: "h", leaseTtlMs: 60_000 });
    const err = await verdict(agent.thread("k").run("x"));
    expect(err).toMatchObject({ subject: "thread store acquireLease() answer", field: "expiresAt" });
    // Released with the token it answered, not taken again: free long before the 60 s.
    expect(store.calls).toBe(1);
    expect(await freeForAnotherHost(inner, "k")).toBe(true);
  });

  it.each([
    ["null", () => null, ""],
    ["a NaN token", (lease: unknown) => ({ ...(lease as Lease), token: NaN }), "token"],
    ["another key", (lease: unknown) => ({ ...(lease as Lease), target: "other" }), "target"],
  ] as const)(
    "%s: nothing proves whose lease it is, so it is not taken again and lapses at its time-to-live",
    async (_name, answer, field) => {
      const inner = new MemoryThreadStore();
      const store = faultyStore(inner, "acquireLease", answer);
      const agent = new Agent(healthyDriver(), { threadStore: store, owner: "h", leaseTtlMs: 60_000 });
      const err = await verdict(agent.thread("k").run("x"));
      expect(err).toMatchObject({ subject: "thread store acquireLease() answer", field });
      expect(store.calls).toBe(1);
      expect(await freeForAnotherHost(inner, "k")).toBe(false);
    },
  );

  it("a lease another owner holds is left alone", async () => {
    const inner = new MemoryThreadStore();
    const held = await inner.acquireLease("k", "other-owner", 60_000);
    // Answers null at first without asking (as a store would that turned a BusyError into null).
    let asked = 0;
    const store = new Proxy(inner, {
      get(target, prop) {
        const value: unknown = Reflect.get(target, prop, target);
        if (typeof value !== "function") return value;
        return (...args: unknown[]) =>
          prop === "acquireLease" && asked++ === 0 ? Promise.resolve(null) : (value as (...a: unknown[]) => unknown).apply(target, args);
      },
    });
    const err = await verdict(new Agent(healthyDriver(), { threadStore: store, owner: "h" }).thread("k").run("x"));
    expect(err).toMatchObject({ subject: "thread store acquireLease() answer" });
    expect(await inner.renewLease(held, 60_000)).toMatchObject({ owner: "other-owner", token: held.token });
  });

  /**
   * A store taking every lease under one owner of its own, as a fleet's workers share one; its
   * `acquireLease` answers `answer()` instead of asking `inner`.
   */
  function sharedOwnerStore(inner: MemoryThreadStore, answer: () => Promise<unknown>): MemoryThreadStore {
    return new Proxy(inner, {
      get(target, prop) {
        if (prop === "acquireLease") return () => answer();
        const value: unknown = Reflect.get(target, prop, target);
        return typeof value === "function" ? (value as (...a: unknown[]) => unknown).bind(target) : value;
      },
    });
  }

  it("a co-worker sharing the store's owner keeps its lease when a grant answered null hides that it holds the key", async () => {
    const inner = new MemoryThreadStore();
    const coWorker = await inner.acquireLease("k", "the-fleet", 60_000);
    // Answers null instead of the co-worker's busy lease; taken again, it would grant under the shared owner.
    let asked = 0;
    const store = sharedOwnerStore(inner, () => (asked++ === 0 ? Promise.resolve(null) : inner.acquireLease("k", "the-fleet", 1)));
    const err = await verdict(new Agent(healthyDriver(), { threadStore: store, owner: "h" }).thread("k").run("x"));
    expect(err).toMatchObject({ subject: "thread store acquireLease() answer", field: "" });
    expect(asked).toBe(1);
    expect(await inner.renewLease(coWorker, 60_000)).toMatchObject({ owner: "the-fleet", token: coWorker.token });
  });

  it("a co-worker that took the key after the run ended keeps its lease when the abandoned grant answers malformed late", async () => {
    const inner = new MemoryThreadStore();
    let answerLate: ((value: unknown) => void) | undefined;
    let asked = 0;
    const store = sharedOwnerStore(inner, () => {
      asked += 1;
      return asked === 1 ? new Promise((resolve) => (answerLate = resolve)) : inner.acquireLease("k", "the-fleet", 1);
    });
    const err = await verdict(new Agent(healthyDriver(), { threadStore: store, owner: "h" }).thread("k").run("x", { timeoutMs: 300 }));
    expect(err).toMatchObject({ code: "TIMEOUT", op: "threadStore.acquireLease" });
    const coWorker = await inner.acquireLease("k", "the-fleet", 60_000);
    answerLate!({ target: "k", owner: "the-fleet", token: Number.NaN, expiresAt: new Date() });
    // The late answer is handled within a few turns of the event loop (the store answers at once).
    for (let turn = 0; turn < 5; turn++) await new Promise((resolve) => setImmediate(resolve));
    expect(asked).toBe(1);
    expect(await inner.renewLease(coWorker, 60_000)).toMatchObject({ owner: "the-fleet", token: coWorker.token });
  });
});
