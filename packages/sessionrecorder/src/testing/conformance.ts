import { DriverError, ErrCode, findError, isError } from "@adaptor/errors";
import { afterEach, describe, expect, it } from "vitest";
import type { EventBackend, EventLogWriter, JsonValue, RecordedEvent } from "../backend/event-backend.js";
import { EventLogLockedError } from "../errors/event-log-locked-error.js";
import { InvalidSessionKeyError } from "../errors/invalid-session-key-error.js";
import { ErrEventLogLocked, ErrInvalidSessionKey, ErrJSONLEventBackendClosed } from "../errors/sentinels.js";
import { SessionRecorder } from "../recorder/session-recorder.js";

/** What a factory returns for one test: a fresh, empty log store and how to clean it up. */
export interface EventBackendHarness {
  /** The backend under test, on a store with no logs yet. */
  readonly backend: EventBackend;
  /**
   * Opens another backend object on the same store (what another process would see), for stores
   * that outlive the object (files, a database). Omit it for a store that lives in the object
   * (memory): the tests that need a second view then run on `backend` alone.
   */
  readonly another?: () => EventBackend | Promise<EventBackend>;
  /** Called after the test, after every backend was closed: drop the schema, delete the files. */
  readonly cleanup?: () => void | Promise<void>;
}

/** Makes a fresh, empty store for one test. Called once per test. */
export type MakeEventBackend = () => Promise<EventBackendHarness>;

async function replayAll(backend: EventBackend, key: string): Promise<RecordedEvent[]> {
  const out: RecordedEvent[] = [];
  for await (const record of backend.replay(key)) out.push(record);
  return out;
}

const EVENTS: JsonValue[] = [
  { type: "run-started", driver: "claude", meta: { sequence: 1, time: "2026-01-01T00:00:00.000Z" } },
  { type: "text-delta", text: 'héllo \u2028 "quoted"\n😀 \u0000 end' },
  { type: "tool-call", phase: "end", id: "toolu_1", name: "Bash", input: { command: "ls", nested: [1, null, true, 1.5e-7] } },
  null,
  42,
  "plain string",
  [],
  {},
];

/**
 * The behaviour every {@link EventBackend} shares, as vitest tests: faithful replay of JSON
 * values in order, the sequence continuing across writers and backend objects, one writer per key
 * (also between backend objects on one store, and among many racing openers), refusal of events
 * that are not JSON without using a sequence, key checks, `repair` on a sound log, and the closed
 * errors after `close()`. Call it in a test file with a factory making a fresh store per test.
 *
 * @example
 * ```ts
 * describeEventBackendConformance("memory", async () => ({ backend: new MemoryEventBackend() }));
 * ```
 */
export function describeEventBackendConformance(name: string, make: MakeEventBackend): void {
  describe(`EventBackend conformance: ${name}`, () => {
    let harness: EventBackendHarness | undefined;
    const opened: EventBackend[] = [];

    async function fresh(): Promise<EventBackend> {
      harness = await make();
      opened.push(harness.backend);
      return harness.backend;
    }
    /** A second backend object on the same store, or the same one for a store living in its object. */
    async function second(): Promise<EventBackend> {
      if (!harness?.another) return harness!.backend;
      const backend = await harness.another();
      opened.push(backend);
      return backend;
    }

    afterEach(async () => {
      for (const backend of opened.splice(0)) await backend.close();
      await harness?.cleanup?.();
      harness = undefined;
    });

    it("replays exactly the events written, in order, as JSON values with sequences from 1 and ISO times", async () => {
      const backend = await fresh();
      const writer = await backend.openWriter("run-1");
      expect(writer.lastSequence).toBe(0);
      const records = await Promise.all(EVENTS.map((e) => writer.append(e)));
      expect(records.map((r) => r.sequence)).toEqual(EVENTS.map((_, i) => i + 1));
      expect(writer.lastSequence).toBe(EVENTS.length);
      await writer.close();
      const replayed = await replayAll(await second(), "run-1");
      expect(replayed.map((r) => r.event)).toEqual(EVENTS);
      expect(replayed.map((r) => r.sequence)).toEqual(EVENTS.map((_, i) => i + 1));
      expect(replayed.map((r) => r.recordedAt)).toEqual(records.map((r) => r.recordedAt));
      expect(replayed.every((r) => new Date(r.recordedAt).toISOString() === r.recordedAt)).toBe(true);
    });

    it("a key with no log replays as empty, and repair reports it as empty", async () => {
      const backend = await fresh();
      expect(await replayAll(backend, "never-written")).toEqual([]);
      expect(await backend.repair("never-written")).toEqual({ key: "never-written", truncatedBytes: 0, lastSequence: 0 });
    });

    it("the sequence continues across writers and across backend objects on the same store", async () => {
      const backend = await fresh();
      const first = await backend.openWriter("k");
      await first.append("a");
      await first.append("b");
      await first.close();
      const other = await second();
      const next = await other.openWriter("k");
      expect(next.lastSequence).toBe(2);
      expect((await next.append("c")).sequence).toBe(3);
      await next.close();
      expect(await backend.repair("k")).toEqual({ key: "k", truncatedBytes: 0, lastSequence: 3 });
      expect((await replayAll(backend, "k")).map((r) => [r.sequence, r.event])).toEqual([
        [1, "a"],
        [2, "b"],
        [3, "c"],
      ]);
    });

    it("a replay while the writer is open yields what was appended so far", async () => {
      const backend = await fresh();
      const writer = await backend.openWriter("live");
      await writer.append(1);
      await writer.append(2);
      expect((await replayAll(await second(), "live")).map((r) => r.event)).toEqual([1, 2]);
      await writer.append(3);
      expect((await replayAll(backend, "live")).map((r) => r.event)).toEqual([1, 2, 3]);
      await writer.close();
    });

    it("one writer per key: a second openWriter and repair are refused with EventLogLockedError naming the holder, other keys are free", async () => {
      const backend = await fresh();
      const other = await second();
      const writer = await backend.openWriter("k");
      for (const refused of await Promise.all(
        [backend.openWriter("k"), other.openWriter("k"), other.repair("k")].map((p) => p.catch((e: unknown) => e)),
      )) {
        expect(isError(refused, ErrEventLogLocked)).toBe(true);
        expect(findError(refused, EventLogLockedError)).toMatchObject({ key: "k", holder: { pid: process.pid } });
      }
      const free = await other.openWriter("other-key");
      await writer.append("still the only writer");
      await writer.close();
      const next = await other.openWriter("k");
      expect(next.lastSequence).toBe(1);
      await Promise.all([next.close(), free.close()]);
    });

    it("eight openWriter calls racing on one key, across backend objects: exactly one wins, and its appends are the log", async () => {
      const backend = await fresh();
      const backends = [backend, ...(await Promise.all(Array.from({ length: 3 }, () => second())))];
      const outcomes = await Promise.allSettled(
        Array.from({ length: 8 }, (_, i) => backends[i % backends.length]!.openWriter("contended")),
      );
      const won = outcomes.filter((o): o is PromiseFulfilledResult<EventLogWriter> => o.status === "fulfilled");
      expect(won).toHaveLength(1);
      for (const o of outcomes) if (o.status === "rejected") expect(isError(o.reason, ErrEventLogLocked)).toBe(true);
      const writer = won[0]!.value;
      await Promise.all([writer.append("x"), writer.append("y")]);
      await writer.close();
      expect((await replayAll(backend, "contended")).map((r) => [r.sequence, r.event])).toEqual([
        [1, "x"],
        [2, "y"],
      ]);
    });

    it("an append that is not JSON (a BigInt, a cycle) is refused with DriverError INVALID and uses no sequence", async () => {
      const backend = await fresh();
      const writer = await backend.openWriter("k");
      const cycle: Record<string, unknown> = {};
      cycle.self = cycle;
      for (const bad of [{ n: 1n }, cycle, undefined]) {
        const err = await writer.append(bad as never).catch((e: unknown) => e);
        expect(findError(err, DriverError)?.code).toBe(ErrCode.Invalid);
      }
      expect((await writer.append("fine")).sequence).toBe(1);
      await writer.close();
      expect((await replayAll(backend, "k")).map((r) => r.event)).toEqual(["fine"]);
    });

    it("keys breaking the key rules are refused with InvalidSessionKeyError by openWriter, replay and repair", async () => {
      const backend = await fresh();
      for (const key of ["", "../x", "a/b", ".hidden", "x".repeat(201), "a b", 5]) {
        const errors = await Promise.all([
          backend.openWriter(key as string).catch((e: unknown) => e),
          replayAll(backend, key as string).catch((e: unknown) => e),
          backend.repair(key as string).catch((e: unknown) => e),
        ]);
        for (const err of errors) {
          expect(isError(err, ErrInvalidSessionKey)).toBe(true);
          expect(findError(err, InvalidSessionKeyError)?.key).toBe(String(key));
        }
      }
    });

    it("an aborted signal stops openWriter, replay and repair with its reason", async () => {
      const backend = await fresh();
      const reason = new Error("stop");
      const signal = AbortSignal.abort(reason);
      expect(await backend.openWriter("k", { signal }).catch((e: unknown) => e)).toBe(reason);
      expect(await backend.repair("k", { signal }).catch((e: unknown) => e)).toBe(reason);
      const writer = await backend.openWriter("k");
      await writer.append(1);
      await writer.close();
      const seen: unknown[] = [];
      const err = await (async () => {
        for await (const r of backend.replay("k", { signal })) seen.push(r);
      })().catch((e: unknown) => e);
      expect(err).toBe(reason);
      expect(seen).toEqual([]);
    });

    it("SessionRecorder on it: record() stores what it yields, and a kept-open writer continues one sequence over two runs", async () => {
      const backend = await fresh();
      const recorder = new SessionRecorder<{ type: string; at: Date }>({ backend });
      async function* source(n: number): AsyncGenerator<{ type: string; at: Date }> {
        for (let i = 0; i < n; i++) yield { type: "text-delta", at: new Date(Date.UTC(2026, 0, 1, 0, 0, i)) };
      }
      let seen = 0;
      for await (const _ of recorder.record("rec", source(50))) seen++;
      expect(seen).toBe(50);
      const writer = await recorder.open("rec");
      for await (const _ of recorder.record(writer, source(2))) {
        // drained
      }
      for await (const _ of recorder.record(writer, source(1))) {
        // drained
      }
      await writer.close();
      const records: RecordedEvent[] = [];
      for await (const r of recorder.replay("rec")) records.push(r);
      expect(records.map((r) => r.sequence)).toEqual(Array.from({ length: 53 }, (_, i) => i + 1));
      expect(records[1]!.event).toEqual({ type: "text-delta", at: "2026-01-01T00:00:01.000Z" });
    });

    it("after close(): every operation, and the writers it closed, fail with ErrJSONLEventBackendClosed; close() is idempotent", async () => {
      const backend = await fresh();
      const writer = await backend.openWriter("k");
      const pending = writer.append("before close");
      await backend.close();
      expect((await pending).sequence).toBe(1);
      const errors = await Promise.all([
        backend.openWriter("k").catch((e: unknown) => e),
        replayAll(backend, "k").catch((e: unknown) => e),
        backend.repair("k").catch((e: unknown) => e),
        writer.append("after close").catch((e: unknown) => e),
      ]);
      for (const err of errors) expect(isError(err, ErrJSONLEventBackendClosed)).toBe(true);
      await backend.close();
      await writer.close();
      const reopened = await second();
      if (reopened !== backend) expect((await replayAll(reopened, "k")).map((r) => r.event)).toEqual(["before close"]);
    });
  });
}
