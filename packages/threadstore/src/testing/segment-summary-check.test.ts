import { describe, expect, it } from "vitest";
import { MemoryThreadStore } from "../memory/memory-thread-store.js";
import { checkSegmentSummary } from "./segment-summary-check.js";
import { hostileSegmentStore, type SegmentDamage } from "./hostile-segment-store.js";

describe("the kit's segment summary case", () => {
  it("passes for the memory store, and is skipped (false) for a store without summary", async () => {
    expect(await checkSegmentSummary(new MemoryThreadStore())).toBe(true);
    const without = hostileSegmentStore(new MemoryThreadStore(), { damage: "drop", summary: false });
    expect(await checkSegmentSummary(without)).toBe(false);
  });

  for (const damage of ["drop", "truncate", "swap"] as const satisfies readonly SegmentDamage[]) {
    it(`fails a store that keeps reporting the full count and length but did ${damage} a stored segment`, async () => {
      const hostile = hostileSegmentStore(new MemoryThreadStore(), { damage });
      await expect(checkSegmentSummary(hostile)).rejects.toThrow(/summary after write 1 \(append of 1\)/);
    });
  }

  it("the hostile wrapper's read still reports what an honest store holds, while its segments are damaged", async () => {
    const inner = new MemoryThreadStore();
    const hostile = hostileSegmentStore(inner, { damage: "drop" });
    const record = { id: "r", key: "k", status: "active" as const, driverType: "d", identity: "i", fingerprint: "f", codec: "c" };
    const draft = { ...record, checkpoint: { resumeId: "s" }, createdAt: new Date(0), updatedAt: new Date(0) };
    const write = (mode: "append" | "replace", texts: string[]) => ({
      mode,
      segments: texts.map((t) => new TextEncoder().encode(t)),
      manifest: {},
      limitBytes: 100,
    });
    await hostile.finalize({ leases: [], record: draft, sessionState: write("replace", ["aa", "bbb"]) });
    await hostile.finalize({ leases: [], record: draft, sessionState: write("append", ["c"]) });
    expect(await hostile.sessionState!.read("r")).toMatchObject({ segments: 3, bytes: 6 });
    expect((await hostile.sessionState!.segments("r")).map((s) => new TextDecoder().decode(s))).toEqual(["bbb", "c"]);
    expect(await hostile.sessionState!.summary!("r")).toMatchObject({ segments: 2, bytes: 4 });
  });
});
