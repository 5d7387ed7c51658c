// A thread key whose lease another holder keeps (a live turn elsewhere, or a process that crashed
// holding it) is refused with ErrThreadBusy naming that holder and when its lease lapses.
import { describe, expect, it } from "vitest";
import { BusyError, MemoryThreadStore } from "@adaptor/threadstore";
import { Agent, ErrThreadBusy, findError, isError } from "../src/index.js";
import { scriptedDriver } from "./scripted-driver.js";

describe("a busy thread key", () => {
  it("left held by a crashed process: thread.run and deleteThread fail with ErrThreadBusy naming the holder and its expiry, the store's BusyError as cause", async () => {
    const store = new MemoryThreadStore();
    // The crashed process took the lease and never released it.
    const left = await store.acquireLease("k", "host-7/crashed-run", 60_000);
    const driver = scriptedDriver(async () => ({ text: "never" }));
    await using agent = new Agent(driver, { threadStore: store, owner: "host-8" });
    const until = left.expiresAt.toISOString();
    for (const attempt of [agent.thread("k").run("go"), agent.deleteThread("k")]) {
      const error = await attempt.catch((e: unknown) => e);
      expect(isError(error, ErrThreadBusy)).toBe(true);
      expect((error as Error).message).toBe(`thread k: busy (held by "host-7/crashed-run" until ${until})`);
      const busy = findError(error, BusyError);
      expect(busy?.owner).toBe("host-7/crashed-run");
      expect(busy?.expiresAt?.toISOString()).toBe(until);
    }
    expect(driver.requests).toHaveLength(0);
  });
});
