import { describe, expect, it } from "vitest";
import type { JsonValue } from "@adaptor/sessionrecorder";
import { AttemptLog, MAX_JOINED_TEXT } from "./attempt-log.js";

/** A write that records its batches and completes when the test releases it (`true`: written, `false`: fenced). */
function heldWrites() {
  const batches: JsonValue[][] = [];
  const pending: ((written: boolean) => void)[] = [];
  const write = (events: JsonValue[]): Promise<boolean> => {
    batches.push(events);
    return new Promise<boolean>((resolve) => pending.push(resolve));
  };
  /** Resolves once `n` writes have started. */
  const started = async (n: number): Promise<void> => {
    while (batches.length < n) await new Promise<void>((resolve) => setImmediate(resolve));
  };
  const release = (written = true): void => pending.shift()!(written);
  return { batches, write, started, release };
}

/** A log whose first event's write is in flight (held), with two more events queued behind it. */
async function twoQueuedBehindOne() {
  const w = heldWrites();
  const log = new AttemptLog(w.write, () => {});
  void log.push({ n: 1 });
  await w.started(1);
  void log.push({ n: 2 });
  void log.push({ n: 3 });
  return { w, log };
}

describe("AttemptLog", () => {
  it("events pushed in one turn of the event loop (one output chunk) are written in one batch", async () => {
    const w = heldWrites();
    const log = new AttemptLog(w.write, () => {});
    for (const n of [1, 2, 3]) void log.push({ n });
    await w.started(1);
    expect(w.batches).toEqual([[{ n: 1 }, { n: 2 }, { n: 3 }]]);
    w.release();
    expect(await log.close()).toEqual([]);
    expect(w.batches).toHaveLength(1);
  });

  it("events pushed while a write is in flight go in the next batch, in order", async () => {
    const { w, log } = await twoQueuedBehindOne();
    w.release();
    await w.started(2);
    expect(w.batches).toEqual([[{ n: 1 }], [{ n: 2 }, { n: 3 }]]);
    w.release();
    expect(await log.close()).toEqual([]);
  });

  it("close waits for the write in flight and returns the events queued since, unwritten (they go with the verdict)", async () => {
    const { w, log } = await twoQueuedBehindOne();
    let closed: JsonValue[] | undefined;
    const closing = log.close().then((rest) => (closed = rest));
    await new Promise<void>((resolve) => setImmediate(resolve));
    expect(closed).toBeUndefined();
    w.release();
    await closing;
    expect(closed).toEqual([{ n: 2 }, { n: 3 }]);
    expect(w.batches).toEqual([[{ n: 1 }]]);
  });

  it("close before the first write returns every event unwritten", async () => {
    const w = heldWrites();
    const log = new AttemptLog(w.write, () => {});
    void log.push({ n: 1 });
    void log.push({ n: 2 });
    expect(await log.close()).toEqual([{ n: 1 }, { n: 2 }]);
    expect(w.batches).toEqual([]);
  });

  it("a fenced write (a later attempt started) calls onFenced and drops the queued events", async () => {
    const w = heldWrites();
    let fenced = 0;
    const log = new AttemptLog(w.write, () => fenced++);
    void log.push({ n: 1 });
    await w.started(1);
    void log.push({ n: 2 });
    w.release(false);
    expect(await log.close()).toEqual([]);
    expect(fenced).toBe(1);
    expect(w.batches).toEqual([[{ n: 1 }]]);
  });

  it("a failed write is thrown by close", async () => {
    const failure = new Error("connection lost");
    let fenced = 0;
    let writes = 0;
    const log = new AttemptLog(
      () => {
        writes++;
        return Promise.reject(failure);
      },
      () => fenced++,
    );
    void log.push({ n: 1 });
    while (writes === 0) await new Promise<void>((resolve) => setImmediate(resolve));
    await expect(log.close()).rejects.toBe(failure);
    expect(fenced).toBe(1);
  });

  it("text deltas of one message queued while a write is in flight are joined into one event, and pushing 5,000 of them never waits", async () => {
    const w = heldWrites();
    const log = new AttemptLog(w.write, () => {});
    void log.push({ type: "notice", n: 0 });
    await w.started(1);
    let resolved = 0;
    const pushes: Promise<void>[] = [];
    for (let i = 0; i < 5000; i++)
      pushes.push(log.push({ type: "text-delta", text: `${i} `, messageId: "m1" }).then(() => void resolved++));
    pushes.push(log.push({ type: "thinking-delta", text: "hm", messageId: "m1" }).then(() => void resolved++));
    pushes.push(log.push({ type: "text-delta", text: "other", messageId: "m2" }).then(() => void resolved++));
    // The write is still held: no push waited for it.
    await Promise.all(pushes);
    expect(resolved).toBe(5002);
    w.release();
    await w.started(2);
    const text = Array.from({ length: 5000 }, (_, i) => `${i} `).join("");
    expect(w.batches[1]).toEqual([
      { type: "text-delta", text, messageId: "m1" },
      { type: "thinking-delta", text: "hm", messageId: "m1" },
      { type: "text-delta", text: "other", messageId: "m2" },
    ]);
    w.release();
    expect(await log.close()).toEqual([]);
  });

  it(`a joined delta holds at most ${MAX_JOINED_TEXT} characters; the rest starts the next event`, async () => {
    const w = heldWrites();
    const log = new AttemptLog(w.write, () => {});
    const half = "x".repeat(MAX_JOINED_TEXT / 2);
    for (let i = 0; i < 3; i++) void log.push({ type: "text-delta", text: half });
    expect(await log.close()).toEqual([
      { type: "text-delta", text: half + half },
      { type: "text-delta", text: half },
    ]);
  });
});
