import { afterEach, describe, expect, it, vi } from "vitest";
import type { AgentEvent, EventPayload } from "./agent-event.js";
import { EventQueue } from "./event-queue.js";

async function drainAll(queue: EventQueue): Promise<AgentEvent[]> {
  const out: AgentEvent[] = [];
  for await (const event of queue.drain()) out.push(event);
  return out;
}

describe("EventQueue", () => {
  it("stamps run id, thread key, a strictly increasing sequence from 1 and a time on frozen copies", async () => {
    const queue = new EventQueue({ runId: "run-1", threadKey: "key-1" });
    const delta: EventPayload = { type: "text-delta", text: "a", messageId: "m1" };
    const before = Date.now();
    queue.push(delta);
    queue.push({ type: "thinking-delta", text: "b" });
    queue.push({ type: "notice", kind: "runtime", message: "n" });
    queue.close();
    const events = await drainAll(queue);
    expect(events).toEqual([
      { type: "text-delta", text: "a", messageId: "m1", meta: { runId: "run-1", threadKey: "key-1", sequence: 1, time: expect.any(Date) } },
      { type: "thinking-delta", text: "b", meta: { runId: "run-1", threadKey: "key-1", sequence: 2, time: expect.any(Date) } },
      { type: "notice", kind: "runtime", message: "n", meta: { runId: "run-1", threadKey: "key-1", sequence: 3, time: expect.any(Date) } },
    ]);
    for (const event of events) {
      expect(Object.isFrozen(event) && Object.isFrozen(event.meta)).toBe(true);
      expect(event.meta.time.getTime()).toBeGreaterThanOrEqual(before);
    }
    expect(events[0]).not.toBe(delta);
    expect(delta).toEqual({ type: "text-delta", text: "a", messageId: "m1" }); // the driver's payload is untouched
    const plain = new EventQueue({ runId: "r" });
    plain.push({ type: "text-delta", text: "x" });
    expect(Object.keys(plain.take()?.meta ?? {})).toEqual(["runId", "sequence", "time"]);
  });

  it("drops only deltas over capacity, reports the gap once with its sequence range, never drops tool results or run-finished", async () => {
    const queue = new EventQueue({ runId: "r" }, 3);
    for (let i = 0; i < 5; i++) queue.push({ type: "text-delta", text: String(i) }); // sequences 1..5: 4 and 5 dropped
    queue.push({ type: "tool-call", phase: "args", id: "t", name: "x", argsDelta: "{" }); // 6: dropped
    queue.push({ type: "tool-result", id: "t", output: "kept", isError: false }); // gap report 7, then 8
    queue.push({ type: "run-finished", ok: true }); // 9
    queue.close();
    const events = await drainAll(queue);
    expect(events.map((e) => [e.type, e.meta.sequence])).toEqual([
      ["text-delta", 1],
      ["text-delta", 2],
      ["text-delta", 3],
      ["dropped", 7],
      ["tool-result", 8],
      ["run-finished", 9],
    ]);
    expect(events[3]).toMatchObject({ count: 3, byType: { "text-delta": 2, "tool-call": 1 }, firstSequence: 4, lastSequence: 6 });
  });

  it("reports a gap still open at close before iteration ends", async () => {
    const queue = new EventQueue({ runId: "r" }, 1);
    queue.push({ type: "text-delta", text: "a" });
    queue.push({ type: "text-delta", text: "b" });
    queue.close();
    expect((await drainAll(queue)).map((e) => e.type)).toEqual(["text-delta", "dropped"]);
  });

  it("next() waits for a later push and ends after close once drained; pushes after close are ignored", async () => {
    const queue = new EventQueue({ runId: "r" });
    const first = queue.next();
    const second = queue.next();
    queue.push({ type: "text-delta", text: "a" });
    queue.push({ type: "text-delta", text: "b" });
    expect((await first).value).toMatchObject({ text: "a" });
    expect((await second).value).toMatchObject({ text: "b" });
    const third = queue.next();
    queue.close();
    queue.push({ type: "text-delta", text: "late" });
    expect(await third).toEqual({ done: true, value: undefined });
    expect(queue.size).toBe(0);
  });

  it("keeps order across buffer compaction over many events taken one by one", async () => {
    const queue = new EventQueue({ runId: "r" }, 10_000);
    const taken: number[] = [];
    for (let i = 0; i < 5_000; i++) {
      queue.push({ type: "text-delta", text: String(i) });
      queue.push({ type: "text-delta", text: String(i) });
      const event = queue.take();
      if (event?.type === "text-delta") taken.push(Number(event.text));
    }
    while (queue.size > 0) {
      const event = queue.take();
      if (event?.type === "text-delta") taken.push(Number(event.text));
    }
    expect(taken).toEqual(Array.from({ length: 5_000 }, (_, i) => [i, i]).flat());
  });

  it("keeps order, sequence and size when it is drained and filled again, after backlogs shorter and longer than what a drained buffer keeps", () => {
    const queue = new EventQueue({ runId: "r" }, 10_000);
    const pushed: number[] = [];
    const taken: { text: number; sequence: number }[] = [];
    let n = 0;
    for (const burst of [1, 3, 1, 200, 1, 1, 64, 65, 2, 1]) {
      for (let i = 0; i < burst; i++) {
        queue.push({ type: "text-delta", text: String(n) });
        pushed.push(n++);
      }
      expect(queue.size).toBe(burst);
      for (let event = queue.take(); event !== undefined; event = queue.take())
        if (event.type === "text-delta") taken.push({ text: Number(event.text), sequence: event.meta.sequence });
      expect(queue.size).toBe(0);
    }
    expect(taken.map((t) => t.text)).toEqual(pushed);
    expect(taken.map((t) => t.sequence)).toEqual(pushed.map((i) => i + 1));
  });

  describe("ready(): when a driver handing over many lines at once waits for the host", () => {
    const turnOfTheLoop = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));
    const settled = (promise: Promise<void>): { done: boolean } => {
      const state = { done: false };
      void promise.then(() => (state.done = true));
      return state;
    };
    const microtasks = async (n: number): Promise<void> => {
      for (let i = 0; i < n; i++) await Promise.resolve();
    };

    it("goes on below half the buffer, then waits until the host took every waiting event", async () => {
      const queue = new EventQueue({ runId: "r" }, 8);
      for (let i = 0; i < 3; i++) queue.push({ type: "text-delta", text: String(i) });
      expect(queue.ready()).toBeUndefined();
      queue.push({ type: "text-delta", text: "3" });
      const wait = queue.ready()!;
      expect(wait).toBeInstanceOf(Promise);
      expect(queue.ready()).toBe(wait); // one wait at a time
      const state = settled(wait);
      for (let i = 0; i < 3; i++) queue.take();
      await microtasks(5);
      expect(state.done).toBe(false);
      queue.take();
      await microtasks(2);
      expect(state.done).toBe(true);
      expect(queue.ready()).toBeUndefined();
    });

    it("stops waiting when the loop turns with the host taking nothing, and waits again once the host took an event", async () => {
      const queue = new EventQueue({ runId: "r" }, 4);
      for (let i = 0; i < 3; i++) queue.push({ type: "text-delta", text: String(i) });
      const state = settled(queue.ready()!);
      await turnOfTheLoop();
      expect(state.done).toBe(true);
      queue.push({ type: "text-delta", text: "3" });
      expect(queue.ready()).toBeUndefined(); // the host is not reading: the driver is not held up
      queue.take();
      expect(queue.ready()).toBeInstanceOf(Promise);
      queue.close();
      await microtasks(2); // close() lets a waiting driver go on
      expect(queue.ready()).toBeUndefined();
    });

    it("a driver pacing itself with ready() loses nothing to a host that keeps up, even with a buffer of 4", async () => {
      const queue = new EventQueue({ runId: "r" }, 4);
      const driver = (async () => {
        try {
          for (let i = 0; i < 500; i++) {
            const wait = queue.ready();
            if (wait) await wait;
            queue.push({ type: "text-delta", text: String(i) });
          }
        } finally {
          queue.close();
        }
      })();
      const events = await drainAll(queue);
      await driver;
      expect(events.map((e) => (e.type === "text-delta" ? Number(e.text) : e.type))).toEqual(Array.from({ length: 500 }, (_, i) => i));
    });
  });

  describe("meta.time", () => {
    afterEach(() => vi.restoreAllMocks());

    it("events pushed back to back share a clock reading, at most 32 of them, each with a Date of its own; after a take the clock is read anew", () => {
      const queue = new EventQueue({ runId: "r" }, 1000);
      const now = vi.spyOn(Date, "now");
      let clock = 1_000;
      now.mockImplementation(() => ++clock);
      for (let i = 0; i < 70; i++) queue.push({ type: "text-delta", text: String(i) });
      expect(now).toHaveBeenCalledTimes(3);
      const first = queue.take()!;
      const times: Date[] = [first.meta.time];
      while (queue.size > 0) times.push(queue.take()!.meta.time);
      expect(times.map((t) => t.getTime())).toEqual([
        ...Array<number>(32).fill(1_001),
        ...Array<number>(32).fill(1_002),
        ...Array<number>(6).fill(1_003),
      ]);
      expect(new Set(times).size).toBe(70);
      queue.push({ type: "text-delta", text: "a" });
      queue.take();
      queue.push({ type: "text-delta", text: "b" });
      expect(queue.take()!.meta.time.getTime()).toBe(1_005);
      expect(now).toHaveBeenCalledTimes(5);
    });

    it("in step with a host that takes each event, every event reads the clock for itself; a second push before a take reads anew, then shares", () => {
      const queue = new EventQueue({ runId: "r" }, 1000);
      const now = vi.spyOn(Date, "now");
      let clock = 1_000;
      now.mockImplementation(() => ++clock);
      const times: number[] = [];
      for (let i = 0; i < 5; i++) {
        queue.push({ type: "text-delta", text: String(i) });
        times.push(queue.take()!.meta.time.getTime());
      }
      expect(times).toEqual([1_001, 1_002, 1_003, 1_004, 1_005]);
      // After a take: the first push's reading is its own, the next pushes share a new one.
      for (let i = 0; i < 4; i++) queue.push({ type: "text-delta", text: String(i) });
      expect([0, 1, 2, 3].map(() => queue.take()!.meta.time.getTime())).toEqual([1_006, 1_007, 1_007, 1_007]);
      expect(now).toHaveBeenCalledTimes(7);
    });

    it("events pushed in separate turns of the event loop, none taken, each read the clock: a slow CLI's events keep their own times", async () => {
      const queue = new EventQueue({ runId: "r" }, 1000);
      const now = vi.spyOn(Date, "now");
      let clock = 1_000;
      now.mockImplementation(() => (clock += 1_000));
      for (let i = 0; i < 3; i++) {
        queue.push({ type: "text-delta", text: String(i) });
        await new Promise((resolve) => setImmediate(resolve));
      }
      expect([0, 1, 2].map(() => queue.take()!.meta.time.getTime())).toEqual([2_000, 3_000, 4_000]);
    });

    it("a shared clock reading expires at the next microtask: an event pushed after one await, none taken, reads the clock anew", async () => {
      const queue = new EventQueue({ runId: "r" }, 1000);
      const now = vi.spyOn(Date, "now");
      let clock = 1_000;
      now.mockImplementation(() => (clock += 1_000));
      queue.push({ type: "text-delta", text: "a" });
      queue.push({ type: "text-delta", text: "b" });
      await Promise.resolve();
      queue.push({ type: "text-delta", text: "c" });
      expect([0, 1, 2].map(() => queue.take()!.meta.time.getTime())).toEqual([2_000, 2_000, 3_000]);
      expect(now).toHaveBeenCalledTimes(2);
    });
  });
});
