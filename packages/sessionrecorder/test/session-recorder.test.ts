// SessionRecorder.record tees an event stream into a log while the host consumes it; the memory
// backend behaves like the JSONL one (same record shapes, one writer per key, closed errors).
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DriverError, ErrCode, findError, InvalidOptionError, isError } from "@adaptor/errors";
import {
  ErrEventLogLocked,
  ErrJSONLEventBackendClosed,
  JsonlEventBackend,
  MemoryEventBackend,
  SessionRecorder,
  toJsonEvent,
  type EventBackend,
  type RecordedEvent,
} from "@adaptor/sessionrecorder";

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "adaptor-recorder-"));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

interface Ev {
  readonly type: string;
  readonly meta: { readonly sequence: number; readonly time: Date };
  readonly text?: string;
}
const ev = (sequence: number, text?: string): Ev => ({
  type: "text-delta",
  meta: { sequence, time: new Date(Date.UTC(2026, 0, 1, 0, 0, sequence)) },
  ...(text ? { text } : {}),
});

async function* source(events: readonly Ev[], onReturn?: () => void): AsyncGenerator<Ev> {
  try {
    for (const e of events) yield e;
  } finally {
    onReturn?.();
  }
}

async function replayAll(recorder: SessionRecorder<Ev>, key: string): Promise<RecordedEvent[]> {
  const out: RecordedEvent[] = [];
  for await (const record of recorder.replay(key)) out.push(record);
  return out;
}

const BACKENDS: readonly (readonly [string, () => EventBackend])[] = [
  ["memory", () => new MemoryEventBackend()],
  ["JSONL", () => new JsonlEventBackend({ root: join(dir, `jsonl-${Math.random().toString(36).slice(2)}`) })],
];

describe.each(BACKENDS)("SessionRecorder on the %s backend", (_name, make) => {
  it("record() yields the events unchanged and stores their JSON form (Dates as ISO strings), in order", async () => {
    const backend = make();
    const recorder = new SessionRecorder<Ev>({ backend });
    const events = Array.from({ length: 300 }, (_, i) => ev(i + 1, `t${i}`));
    const seen: Ev[] = [];
    for await (const e of recorder.record("run-1", source(events))) seen.push(e);
    expect(seen).toEqual(events);
    expect(seen[0]).toBe(events[0]);
    const records = await replayAll(recorder, "run-1");
    expect(records.map((r) => r.sequence)).toEqual(events.map((_, i) => i + 1));
    expect(records.map((r) => r.event)).toEqual(events.map((e) => toJsonEvent(e)));
    expect((records[0]!.event as { meta: { time: string } }).meta.time).toBe("2026-01-01T00:00:01.000Z");
    // The key's writer was released at the end: another recording continues the sequence.
    for await (const _ of recorder.record("run-1", source([ev(1, "second run")]))) {
      // drained
    }
    expect((await replayAll(recorder, "run-1")).at(-1)?.sequence).toBe(301);
    await backend.close();
  });

  it("breaking out of the loop stores what was yielded, returns the source and releases the key", async () => {
    const backend = make();
    const recorder = new SessionRecorder<Ev>({ backend });
    let returned = false;
    for await (const e of recorder.record(
      "run-2",
      source([ev(1), ev(2), ev(3)], () => (returned = true)),
    )) {
      if (e.meta.sequence === 2) break;
    }
    expect(returned).toBe(true);
    expect((await replayAll(recorder, "run-2")).map((r) => r.sequence)).toEqual([1, 2]);
    const writer = await recorder.open("run-2");
    await writer.close();
    await backend.close();
  });

  it("a writer kept open records several runs (a thread's turns) with one sequence, and refuses a second recorder meanwhile", async () => {
    const backend = make();
    const recorder = new SessionRecorder<Ev>({ backend });
    const writer = await recorder.open("thread-1");
    for (const turn of [1, 2]) {
      for await (const _ of recorder.record(writer, source([ev(1, `turn ${turn}`), ev(2, `turn ${turn}`)]))) {
        // drained
      }
    }
    const err = await (async () => {
      for await (const _ of recorder.record("thread-1", source([ev(1)]))) {
        // not reached
      }
    })().catch((e: unknown) => e);
    expect(isError(err, ErrEventLogLocked)).toBe(true);
    await writer.close();
    expect((await replayAll(recorder, "thread-1")).map((r) => [r.sequence, (r.event as { text: string }).text])).toEqual([
      [1, "turn 1"],
      [2, "turn 1"],
      [3, "turn 2"],
      [4, "turn 2"],
    ]);
    await backend.close();
  });

  it("a failing append ends the iteration with its error and returns the source", async () => {
    const backend = make();
    const recorder = new SessionRecorder<Ev>({ backend, encode: (e) => (e.meta.sequence === 3 ? ({ big: 1n } as never) : toJsonEvent(e)) });
    let returned = false;
    const seen: number[] = [];
    const err = await (async () => {
      for await (const e of recorder.record(
        "run-3",
        source([ev(1), ev(2), ev(3), ev(4), ev(5)], () => (returned = true)),
      ))
        seen.push(e.meta.sequence);
    })().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(Error);
    expect(seen).not.toContain(4);
    expect(returned).toBe(true);
    await backend.close();
  });

  it("an event that is not JSON (a BigInt, a cycle) fails record() with DriverError INVALID, uses no sequence and releases the key", async () => {
    const backend = make();
    const recorder = new SessionRecorder<unknown>({ backend });
    const cycle: Record<string, unknown> = { type: "c" };
    cycle["self"] = cycle;
    for (const bad of [{ type: "b", v: 1n }, cycle]) {
      const err = await (async () => {
        for await (const _ of recorder.record(
          "not-json",
          (async function* () {
            yield { type: "a" };
            yield bad;
          })(),
        )) {
          // drained
        }
      })().catch((e: unknown) => e);
      const driverError = findError(err, DriverError);
      expect(driverError?.code).toBe(ErrCode.Invalid);
      expect(driverError?.op).toBe("append");
      expect(driverError?.device).toBe("not-json");
      expect(driverError?.cause).toBeInstanceOf(TypeError);
    }
    // The key was released, and each bad event used no sequence.
    const records: RecordedEvent[] = [];
    for await (const record of recorder.replay("not-json")) records.push(record);
    expect(records.map((r) => [r.sequence, r.event])).toEqual([
      [1, { type: "a" }],
      [2, { type: "a" }],
    ]);
    await backend.close();
  });

  it("a record() that cannot open the log (key locked, invalid key, closed backend) returns the source before it throws", async () => {
    const locked = make();
    const holder = await locked.openWriter("held");
    const closed = make();
    await closed.close();
    const cases = [
      [locked, "held", ErrEventLogLocked],
      [make(), "../escape", undefined],
      [closed, "k", ErrJSONLEventBackendClosed],
    ] as const;
    for (const [backend, key, sentinel] of cases) {
      // A source that tells whether it was returned without being read (an SDK Stream ends its run then).
      let returned = false;
      let read = false;
      const stream: AsyncIterable<Ev> = {
        [Symbol.asyncIterator]: () => ({
          next: async () => {
            read = true;
            return { done: true, value: undefined };
          },
          return: async () => {
            returned = true;
            return { done: true, value: undefined };
          },
        }),
      };
      const err = await (async () => {
        for await (const _ of new SessionRecorder<Ev>({ backend }).record(key, stream)) {
          // not reached
        }
      })().catch((e: unknown) => e);
      expect(err).toBeInstanceOf(Error);
      if (sentinel) expect(isError(err, sentinel)).toBe(true);
      expect([key, returned, read]).toEqual([key, true, false]);
    }
    await holder.close();
    await locked.close();
  });

  it("a store whose appends never answer: aborting record()'s signal ends the loop with its reason and returns the source", async () => {
    const inner = make();
    // A backend whose writer's appends from the second on never answer (a row lock held elsewhere).
    const backend: EventBackend = {
      openWriter: async (key, options) => {
        const writer = await inner.openWriter(key, options);
        let calls = 0;
        return {
          key: writer.key,
          get lastSequence() {
            return writer.lastSequence;
          },
          append: (event) => (++calls >= 2 ? new Promise<never>(() => undefined) : writer.append(event)),
          close: () => writer.close(),
          [Symbol.asyncDispose]: () => writer.close(),
        };
      },
      replay: (key, options) => inner.replay(key, options),
      repair: (key, options) => inner.repair(key, options),
      close: () => inner.close(),
      [Symbol.asyncDispose]: () => inner.close(),
    };
    const recorder = new SessionRecorder<Ev>({ backend, maxPendingAppends: 1 });
    const host = new AbortController();
    let returned = false;
    const seen: number[] = [];
    const loop = (async () => {
      for await (const e of recorder.record(
        "stuck",
        source([ev(1), ev(2), ev(3), ev(4)], () => (returned = true)),
        { signal: host.signal },
      ))
        seen.push(e.meta.sequence);
    })().catch((e: unknown) => e);
    // The loop waits on the second append (over maxPendingAppends) once the first event was yielded.
    while (seen.length < 1) await new Promise((resolve) => setTimeout(resolve, 10));
    const reason = new Error("host gave up on the recording");
    host.abort(reason);
    expect(await loop).toBe(reason);
    expect(returned).toBe(true);
    expect(seen).toEqual([1]);
    await inner.close();
  });

  it("after the backend is closed, record, replay and open fail with ErrJSONLEventBackendClosed", async () => {
    const backend = make();
    const recorder = new SessionRecorder<Ev>({ backend });
    await backend.close();
    const errors = await Promise.all([
      recorder.open("k").catch((e: unknown) => e),
      replayAll(recorder, "k").catch((e: unknown) => e),
      recorder.repair("k").catch((e: unknown) => e),
      (async () => {
        for await (const _ of recorder.record("k", source([ev(1)]))) {
          // not reached
        }
      })().catch((e: unknown) => e),
    ]);
    for (const err of errors) expect(isError(err, ErrJSONLEventBackendClosed)).toBe(true);
  });
});

describe("SessionRecorder options", () => {
  const refusal = (options: unknown): InvalidOptionError | undefined => {
    try {
      new SessionRecorder(options as never);
    } catch (error) {
      return findError(error, InvalidOptionError);
    }
    return undefined;
  };

  it("refuses bad options at construction, naming the field: a missing backend, a bad encode, an unknown key with its closest match", () => {
    const backend = new MemoryEventBackend();
    expect(refusal({})).toMatchObject({ subject: "SessionRecorder options", field: "backend" });
    expect(refusal(undefined)).toMatchObject({ field: "backend" });
    expect(refusal(5)?.message).toContain("must be an object");
    expect(refusal({ backend: {} })?.message).toMatch(/backend.*openWriter\(\)/);
    expect(refusal({ backend, encode: 5 })).toMatchObject({ field: "encode" });
    expect(refusal({ backend, maxPendingAppends: 0 })).toMatchObject({ field: "maxPendingAppends" });
    const unknown = refusal({ backend, encoder: toJsonEvent });
    expect(unknown).toMatchObject({ field: "encoder", suggestion: "encode" });
    expect(unknown?.message).toContain('did you mean "encode"?');
    expect(refusal({ backend, encode: toJsonEvent, maxPendingAppends: 8 })).toBeUndefined();
  });
});
