import { describe, expect, it } from "vitest";
import { Agent, InvalidOptionError } from "adaptor";
import type { FleetEvent, RunHandle } from "@adaptor/fleet";
import { fakeCodex, fakeCodexSteps, fakeRun } from "./support/fake-codex.js";
import { onFakeCliFleet } from "./support/fake-cli-host.js";
import { freshSchema } from "./support/pg.js";

/** The sequences `events(options)` yields until it ends (a safety net of 20 s rejects a reader that never ends). */
async function sequences(handle: RunHandle, after: number): Promise<number[]> {
  const out: number[] = [];
  for await (const e of handle.events({ after, signal: AbortSignal.timeout(20_000) })) out.push(e.sequence);
  return out;
}

onFakeCliFleet("fleet events after", ({ host: fleetOf }) => {
  describe("fleet events after", () => {
    it("a settled run's events({ after }) at or past its verdict's sequence ends at once with nothing", async () => {
      const schema = freshSchema("after");
      const front = await fleetOf(schema);
      const back = await fleetOf(schema);
      await back.worker(new Agent(fakeCodex("done")));
      const handle = await front.submit("hello");
      await handle.result();
      const all: FleetEvent[] = [];
      for await (const e of handle.events()) all.push(e);
      const last = all.at(-1)!;
      expect(last.event.type).toBe("verdict");
      expect(await sequences(handle, last.sequence - 1)).toEqual([last.sequence]);
      expect(await sequences(handle, last.sequence)).toEqual([]);
      expect(await sequences(handle, last.sequence + 1)).toEqual([]);
      expect(await sequences(front.handle(handle.id), 999)).toEqual([]);
    });

    it("a reader past the last sequence of a running run ends when the run settles", async () => {
      const schema = freshSchema("after");
      const front = await fleetOf(schema);
      const back = await fleetOf(schema);
      await back.worker(new Agent(fakeCodex("unused")));
      const handle = await front.submit("slow", { runOptions: fakeRun(fakeCodexSteps("done", { sleepMs: 1500 })) });
      const reading = sequences(handle, 999);
      await handle.result();
      expect(await reading).toEqual([]);
    });

    it("an after that is not an integer >= 0 (null included: it is not read as 0) is an InvalidOptionError, not a database error", async () => {
      const front = await fleetOf(freshSchema("after"));
      const handle = await front.submit("never served");
      for (const after of [1.5, -1, Number.NaN, "3" as unknown as number, null as unknown as number]) {
        const error = await sequences(handle, after).catch((e: unknown) => e);
        expect(error, String(after)).toBeInstanceOf(InvalidOptionError);
        expect((error as InvalidOptionError).field).toBe("after");
      }
    });
  });
});
