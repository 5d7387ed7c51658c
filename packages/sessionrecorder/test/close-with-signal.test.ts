// close({ signal }) of a JSONL backend and of its writer: appends complete before a close resolves;
// when the disk stops answering (fault injected: fdatasync held), aborting the signal ends the
// close with AppendsPendingError naming the appends left behind, and they still land afterwards.
import { mkdtemp, open, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { findError, isError } from "@adaptor/errors";
import { AppendsPendingError, ErrAppendsPending, JsonlEventBackend, type RecordedEvent } from "@adaptor/sessionrecorder";

let dir: string;
let n = 0;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "adaptor-close-signal-"));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});
afterEach(() => {
  vi.restoreAllMocks();
});

const freshRoot = (): string => join(dir, `root-${++n}`);

/** Holds every `fdatasync` of this process's file handles until `release()`; `held()` resolves at the first one held. */
async function holdDatasync(): Promise<{ held: Promise<void>; release: () => void }> {
  const probe = await open(join(dir, "probe"), "w");
  const proto = Object.getPrototypeOf(probe) as { datasync(this: unknown): Promise<void> };
  await probe.close();
  const original = proto.datasync;
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  let markHeld!: () => void;
  const held = new Promise<void>((resolve) => (markHeld = resolve));
  vi.spyOn(proto, "datasync").mockImplementation(function (this: unknown) {
    markHeld();
    return gate.then(() => original.call(this));
  });
  return { held, release };
}

async function replayAll(backend: JsonlEventBackend, key: string): Promise<number[]> {
  const out: RecordedEvent[] = [];
  for await (const record of backend.replay(key)) out.push(record);
  return out.map((r) => r.sequence);
}

describe("JSONL close({ signal })", () => {
  it("a signal that does not abort: the pending appends complete first, then the close resolves", async () => {
    const root = freshRoot();
    const backend = new JsonlEventBackend({ root });
    const writer = await backend.openWriter("k");
    const order: string[] = [];
    const appends = [1, 2, 3].map((i) => writer.append({ i }).then(() => order.push(`append ${i}`)));
    await backend.close({ signal: new AbortController().signal });
    order.push("closed");
    await Promise.all(appends);
    expect(order).toEqual(["append 1", "append 2", "append 3", "closed"]);
    expect(await replayAll(new JsonlEventBackend({ root }), "k")).toEqual([1, 2, 3]);
  });

  it("appends the disk does not answer: the backend's close ends on the abort with AppendsPendingError naming them; they land once it answers", async () => {
    const root = freshRoot();
    const backend = new JsonlEventBackend({ root });
    const writer = await backend.openWriter("k");
    await writer.append({ i: 1 });
    const disk = await holdDatasync();
    const appends = [writer.append({ i: 2 }), writer.append({ i: 3 })];
    await disk.held;
    const host = new AbortController();
    const closing = backend.close({ signal: host.signal }).catch((e: unknown) => e);
    const reason = new Error("host gave up on closing");
    host.abort(reason);
    const error = await closing;
    expect(isError(error, ErrAppendsPending)).toBe(true);
    expect(findError(error, AppendsPendingError)?.pending).toEqual([{ key: "k", first: 2, last: 3 }]);
    expect((error as Error).cause).toBe(reason);
    expect((error as Error).message).toContain("k sequences 2-3");
    disk.release();
    expect((await Promise.all(appends)).map((r) => r.sequence)).toEqual([2, 3]);
    // A close without a signal waits for the same close: the key is released after it.
    await backend.close();
    const again = new JsonlEventBackend({ root });
    const next = await again.openWriter("k");
    expect(next.lastSequence).toBe(3);
    await again.close();
  });

  it("a writer's own close({ signal }) names its one pending append", async () => {
    const backend = new JsonlEventBackend({ root: freshRoot() });
    const writer = await backend.openWriter("w");
    const disk = await holdDatasync();
    const append = writer.append({ i: 1 });
    await disk.held;
    const host = new AbortController();
    host.abort(new Error("no more waiting"));
    const error = await writer.close({ signal: host.signal }).catch((e: unknown) => e);
    expect(findError(error, AppendsPendingError)?.pending).toEqual([{ key: "w", first: 1, last: 1 }]);
    expect((error as Error).message).toContain("w sequence 1");
    disk.release();
    expect((await append).sequence).toBe(1);
    await backend.close();
  });
});
