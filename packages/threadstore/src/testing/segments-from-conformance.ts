import { describe, expect, it } from "vitest";
import type { SessionStateWrite } from "../session-state/session-state.js";
import type { MakeConformanceStore } from "./conformance.js";
import { FaultPlan } from "./fault-plan.js";
import { record } from "./sample-record.js";

const LIMIT = 1_000_000;

function segment(text: string): Uint8Array {
  return new TextEncoder().encode(text);
}

function write(mode: SessionStateWrite["mode"], texts: string[]): SessionStateWrite {
  return { mode, segments: texts.map(segment), manifest: { texts }, limitBytes: LIMIT };
}

const decode = (segments: Uint8Array[]): string[] => segments.map((s) => new TextDecoder().decode(s));

/**
 * Registers the tests of the optional `SessionStateStore.segmentsFrom` as a vitest `describe` block
 * named `ThreadStore conformance: <name> / session segments from an index`: after appends and a
 * replace, `segmentsFrom(id, i)` is `segments(id)` without its first `i`, for every `i` (past the
 * end: `[]`); a bad index is a RangeError. Each test is skipped for a store without
 * `sessionState.segmentsFrom`. `describeThreadStoreConformance` does not call it: call it beside it.
 */
export function describeSegmentsFromConformance(name: string, makeStore: MakeConformanceStore): void {
  describe(`ThreadStore conformance: ${name} / session segments from an index`, () => {
    it("segmentsFrom(id, i) is segments(id) without its first i, after appends and after a replace", async (ctx) => {
      const h = await makeStore({ faults: new FaultPlan(), broken: false });
      try {
        const state = h.store.sessionState;
        if (!state?.segmentsFrom) return ctx.skip();
        const draft = record("segments-from");
        const commit = async (w: SessionStateWrite): Promise<void> => {
          const lease = await h.store.acquireLease(draft.key, "kit", 60_000);
          await h.store.finalize({
            leases: [lease],
            record: { ...draft, updatedAt: new Date(draft.updatedAt.getTime() + 1) },
            sessionState: w,
          });
          await h.store.releaseLease(lease);
        };
        expect(await state.segmentsFrom(draft.id, 0)).toEqual([]);
        const check = async (expected: string[]): Promise<void> => {
          expect(decode(await state.segments(draft.id))).toEqual(expected);
          for (let i = 0; i <= expected.length + 1; i++) expect(decode(await state.segmentsFrom!(draft.id, i))).toEqual(expected.slice(i));
        };
        await commit(write("replace", ["a0", "a1"]));
        await commit(write("append", ["a2"]));
        await commit(write("append", []));
        await commit(write("append", ["a3", "a4"]));
        await check(["a0", "a1", "a2", "a3", "a4"]);
        await commit(write("replace", ["b0"]));
        await commit(write("append", ["b1", "b2"]));
        await check(["b0", "b1", "b2"]);
        for (const bad of [-1, 1.5, Number.NaN]) await expect(state.segmentsFrom(draft.id, bad)).rejects.toThrow(RangeError);
      } finally {
        await h.store.close();
        await h.cleanup?.();
      }
    });
  });
}
