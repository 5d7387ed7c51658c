import { afterEach, describe, expect, it } from "vitest";
import { mkdir, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { InvalidOptionError } from "@adaptor/errors";
import type { Driver } from "@adaptor/driver";
import { MemoryThreadStore, type ThreadStore } from "@adaptor/threadstore";
import { Agent, ErrThreadLeaseLost, isError } from "../src/index.js";
import { scriptedDriver } from "./scripted-driver.js";
import { faultyStore, hang, healthyDriver, seeded, verdict } from "./support/faulty-store.js";

// The Agent's thread APIs that take a signal end on it while a custom store call never answers
// (a stuck database connection), and a lease renewal that never answers does not pile up calls:
// it counts as lost when the lease expires.

/** A store whose `method` aborts `controller` with `reason` when called, then never answers. */
function abortingOn(inner: MemoryThreadStore, method: string, controller: AbortController, reason: Error): ThreadStore {
  return faultyStore(inner, method, () => {
    controller.abort(reason);
    return hang();
  });
}

describe("an Agent thread API whose store call never answers ends on the caller's signal", () => {
  it.each([
    ["listThreads", "listThreads", (agent: Agent, signal: AbortSignal) => agent.listThreads({}, signal)],
    ["deleteThread (its resolve)", "resolve", (agent: Agent, signal: AbortSignal) => agent.deleteThread("k", signal)],
    ["deleteThread (its deleteThread)", "deleteThread", (agent: Agent, signal: AbortSignal) => agent.deleteThread("k", signal)],
    ["thread.delete", "deleteThread", (agent: Agent, signal: AbortSignal) => agent.thread("k").delete(signal)],
    ["thread.checkpoint", "resolve", (agent: Agent, signal: AbortSignal) => agent.thread("k").checkpoint(signal)],
    ["thread.pendingApprovals", "listPendingApprovals", (agent: Agent, signal: AbortSignal) => agent.thread("k").pendingApprovals(signal)],
  ] as const)("%s: rejects with the abort reason", async (_name, method, call) => {
    const inner = await seeded();
    const controller = new AbortController();
    const reason = new Error("caller gave up");
    const agent = new Agent(healthyDriver(), { threadStore: abortingOn(inner, method, controller, reason), owner: "h" });
    expect(await verdict(call(agent, controller.signal))).toBe(reason);
  });

  it("thread.checkpoint: a record of another key is InvalidOptionError naming resolve() and key", async () => {
    const inner = await seeded();
    const store = faultyStore(inner, "resolve", (record) => ({ ...(record as object), key: "other" }));
    const err = await verdict(new Agent(healthyDriver(), { threadStore: store, owner: "h" }).thread("k").checkpoint());
    expect(err).toBeInstanceOf(InvalidOptionError);
    expect(err).toMatchObject({ subject: "thread store resolve() answer", field: "key" });
  });

  it("deleteThread: a resolve answering a string is InvalidOptionError naming resolve(), and nothing is deleted", async () => {
    const inner = await seeded();
    const store = faultyStore(inner, "resolve", () => "record");
    const err = await verdict(new Agent(healthyDriver(), { threadStore: store, owner: "h" }).deleteThread("k"));
    expect(err).toMatchObject({ subject: "thread store resolve() answer", field: "" });
    expect(await inner.resolve({ key: "k" })).toBeDefined();
  });

  describe("thread.rewind", () => {
    let root: string | undefined;
    afterEach(async () => {
      if (root) await rm(root, { recursive: true, force: true });
      root = undefined;
    });

    /** An Agent whose driver can resume from an earlier checkpoint, with file checkpoints in a fresh workspace. */
    async function rewindingAgent(store: ThreadStore): Promise<Agent> {
      root = await mkdtemp(path.join(tmpdir(), "adaptor-store-hang-"));
      const cwd = path.join(root, "work");
      await mkdir(cwd);
      const driver = healthyDriver();
      const { capabilities } = driver.descriptor;
      const descriptor: Driver["descriptor"] = {
        ...driver.descriptor,
        capabilities: { ...capabilities, sessions: { ...capabilities.sessions, fromCheckpoint: true } },
      };
      return new Agent(Object.assign(driver, { descriptor }), {
        threadStore: store,
        owner: "h",
        cwd,
        checkpointFiles: { dir: path.join(root, "checkpoints") },
      });
    }

    it("acquireLease hangs: rejects with the abort reason; the lease granted late is given back", async () => {
      const inner = await seeded();
      const controller = new AbortController();
      const reason = new Error("caller gave up");
      let grant: (() => void) | undefined;
      const store = faultyStore(inner, "acquireLease", (lease) => {
        controller.abort(reason);
        return new Promise((resolve) => (grant = () => resolve(lease)));
      });
      const agent = await rewindingAgent(store);
      const runId = "0190a8f0-0000-7000-8000-000000000001";
      expect(await verdict(agent.thread("k").rewind(runId, { signal: controller.signal }))).toBe(reason);
      grant!();
      await expect
        .poll(async () => {
          try {
            await inner.releaseLease(await inner.acquireLease("k", "other-host", 1000));
            return true;
          } catch {
            return false;
          }
        })
        .toBe(true);
    });
  });
});

describe("a lease renewal that never answers", () => {
  it("is not called again while it hangs, and ends the run with ErrThreadLeaseLost once the lease expires", async () => {
    const inner = new MemoryThreadStore();
    const store = faultyStore(inner, "renewLease", hang);
    // The turn runs until its signal aborts: only the lease loss can end it.
    const driver = scriptedDriver(
      (_request, _sink, signal) =>
        new Promise((_resolve, reject) => signal.addEventListener("abort", () => reject(signal.reason as Error), { once: true })),
    );
    const agent = new Agent(driver, { threadStore: store, owner: "h", leaseTtlMs: 900 });
    const err = await verdict(agent.thread("k").run("x"));
    expect(isError(err, ErrThreadLeaseLost)).toBe(true);
    expect(store.calls).toBe(1);
  });
});
