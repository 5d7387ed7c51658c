import { describe, expect, it } from "vitest";
import { MemoryThreadStore } from "../memory/memory-thread-store.js";
import { checkHammerReports, leaseHammer, type HammerReport } from "./lease-hammer.js";

describe("leaseHammer and checkHammerReports", () => {
  it("three concurrent hammers on a sound store: every finalize counted, no violation", async () => {
    const store = new MemoryThreadStore();
    const reports = await Promise.all(["a", "b", "c"].map((owner) => leaseHammer(store, { owner, cycles: 10, key: "k" })));
    expect(reports.map((r) => r.finalized)).toEqual([10, 10, 10]);
    expect(checkHammerReports(reports, await store.resolve({ key: "k" }))).toEqual([]);
  });

  it("reports a duplicated token, overlapping holds, a lost update and a lost revision", () => {
    const a: HammerReport = {
      owner: "a",
      tokens: [1, 2],
      holds: [
        [0, 10],
        [20, 30],
      ],
      busy: 0,
      lost: 0,
      finalized: 2,
    };
    const b: HammerReport = { owner: "b", tokens: [2], holds: [[5, 8]], busy: 0, lost: 0, finalized: 1 };
    const record = {
      id: "r",
      key: "k",
      status: "active" as const,
      driverType: "t",
      identity: "",
      fingerprint: "",
      codec: "json/v1",
      checkpoint: { resumeId: "x", data: { count: 2, tokens: [1, 2] } },
      createdAt: new Date(),
      updatedAt: new Date(),
      revision: 2,
    };
    expect(checkHammerReports([a, b], record)).toEqual([
      "a fencing token was granted twice",
      "holds overlap at 1",
      "final count 2 != 3 finalizes (lost update)",
      "final revision 2 != 3 finalizes",
    ]);
  });
});
