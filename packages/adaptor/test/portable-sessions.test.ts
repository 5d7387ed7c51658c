import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import type { SessionFile, SessionLocation, SessionTransfer } from "@adaptor/driver";
import { MemoryThreadStore, type SessionStateStore, type ThreadStore } from "@adaptor/threadstore";
import { hostileSegmentStore } from "@adaptor/threadstore/testing";
import {
  Agent,
  ErrThreadSessionCorrupt,
  ErrThreadSessionRewritten,
  ErrThreadSessionTooLarge,
  ErrThreadSessionUnavailable,
  InvalidOptionError,
  ThreadSessionError,
  findError,
  isError,
  type AgentEvent,
  type AgentOptions,
  type Stream,
} from "../src/index.js";
import { scriptedDriver } from "./scripted-driver.js";
import { baseOnly } from "./support/base-store.js";
import { keepingOldState } from "./support/stale-state-store.js";

// Portable sessions at the SDK level: each host is a scripted "CLI" whose session is one file in
// its own home (a map), appended to by every turn, like claude's transcript or codex's rollout.

/** One host's CLI home and what its CLI does to the session file in a turn. */
class Home implements SessionTransfer {
  readonly format = "lines/v1";
  readonly files = new Map<string, Buffer>();
  /** How the next turn writes the file: append (the normal case), rewrite to its own line only, or write nothing. */
  mode: "append" | "rewrite" | "none" = "append";
  async exportSession(location: SessionLocation): Promise<readonly SessionFile[] | undefined> {
    const content = this.files.get(location.resumeId);
    // Through the checkpoint: the file holds the checkpoint's last line.
    const last = (location.data as { last?: string } | undefined)?.last;
    if (!content || (last !== undefined && !content.toString().includes(last))) return undefined;
    return [{ name: "session.log", content }];
  }
  async importSession(location: SessionLocation, files: readonly SessionFile[]): Promise<void> {
    this.files.set(location.resumeId, Buffer.from(files[0]!.content));
  }
}

/** `strictResume`: the CLI also rejects a resume whose checkpoint is not in its session file (as claude does). */
function hostDriver(home: Home, { strictResume = false }: { strictResume?: boolean } = {}) {
  return scriptedDriver(
    async (request) => {
      const id = request.session?.resumeId ?? "00000000-0000-4000-8000-000000000001";
      const before = request.session ? home.files.get(id) : Buffer.alloc(0);
      if (before === undefined) return { failure: { reason: "resume_rejected", message: `no session ${id}` } };
      const last = (request.session?.data as { last?: string } | undefined)?.last;
      if (strictResume && last !== undefined && !before.toString().includes(last))
        return { failure: { reason: "resume_rejected", message: `no message ${last.trim()}` } };
      const line = `user: ${request.prompt}\n`;
      if (home.mode === "append") home.files.set(id, Buffer.concat([before, Buffer.from(line)]));
      else if (home.mode === "rewrite") home.files.set(id, Buffer.from(line));
      const seen = before.toString().split("\n").filter(Boolean).length + 1;
      return { text: `saw ${seen}`, checkpoint: { resumeId: id, data: { last: line } } };
    },
    { sessions: home },
  );
}

function host(store: ThreadStore, options: AgentOptions = {}): { home: Home; agent: Agent } {
  const home = new Home();
  return { home, agent: new Agent(hostDriver(home), { threadStore: store, ...options }) };
}

async function drain(stream: Stream): Promise<{ text: string; notices: { message: string; data?: Record<string, unknown> }[] }> {
  const notices: { message: string; data?: Record<string, unknown> }[] = [];
  for await (const event of stream as AsyncIterable<AgentEvent>) {
    if (event.type === "notice") notices.push({ message: event.message ?? "", ...(event.data ? { data: event.data } : {}) });
  }
  return { text: (await stream.result()).text, notices };
}

async function failure(promise: Promise<unknown>): Promise<ThreadSessionError> {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  const typed = findError(err, ThreadSessionError);
  if (!typed) throw new Error(`expected a ThreadSessionError, got ${String(err)}`);
  return typed;
}

/** `store` with its session-state capability replaced (a row deleted, a segment lost...). */
function withSessionState(store: MemoryThreadStore, sessionState: SessionStateStore): ThreadStore {
  return { ...baseOnly(store), sessionState };
}

/** Two turns on thread `k` through a store that kept the first turn's session state for the second's record. */
async function staleAfterTwoTurns() {
  const store = new MemoryThreadStore();
  const stale = keepingOldState(store);
  const a = host(stale);
  await a.agent.thread("k").run("one");
  await a.agent.thread("k").run("two");
  return { store, stale, before: await store.resolve({ key: "k" }) };
}

describe("portable sessions (SDK)", () => {
  it("a CLI that rewrote its session file mid-turn: ErrThreadSessionRewritten carrying the turn's Result; the previous checkpoint and stored history are kept and another host continues all of it", async () => {
    const store = new MemoryThreadStore();
    const a = host(store);
    const b = host(store);
    await a.agent.thread("k").run("one");
    await a.agent.thread("k").run("two");
    const before = await store.resolve({ key: "k" });
    const storedBefore = await store.sessionState!.read(before!.id);
    a.home.mode = "rewrite";
    const err = await failure(a.agent.thread("k").run("three"));
    expect(err.reason).toBe("rewritten");
    expect(isError(err, ErrThreadSessionRewritten)).toBe(true);
    expect(err.result?.text).toBe("saw 3");
    expect(err.message).toContain("held 20 bytes when stored");
    const after = await store.resolve({ key: "k" });
    expect(after?.revision).toBe(before?.revision);
    expect(await store.sessionState!.read(before!.id)).toStrictEqual(storedBefore);
    const next = await drain(b.agent.thread("k").stream("four"));
    expect(next.notices.map((n) => n.message)).toContain("session restored");
    expect(next.text).toBe("saw 3");
    expect(b.home.files.get("00000000-0000-4000-8000-000000000001")?.toString()).toBe("user: one\nuser: two\nuser: four\n");
  });

  it("a first turn whose CLI wrote no session files commits the checkpoint without them (notice cause not_exported, codec session=local)", async () => {
    const store = new MemoryThreadStore();
    const a = host(store);
    a.home.mode = "none";
    const one = await drain(a.agent.thread("k").stream("one"));
    expect(one.text).toBe("saw 1");
    expect(one.notices.find((n) => n.message === "session not stored")?.data).toMatchObject({ threadKey: "k", cause: "not_exported" });
    expect((await store.resolve({ key: "k" }))?.codec).toBe("json/v1;session=local");
  });

  it("session files that cannot be read after a turn: best effort commits the checkpoint without them with a notice; this host continues, another gets local_only until a turn stores them again", async () => {
    const store = new MemoryThreadStore();
    const a = host(store);
    const b = host(store);
    await a.agent.thread("k").run("one");
    const exportless = a.home.exportSession.bind(a.home);
    a.home.exportSession = () => Promise.reject(new Error("EACCES: permission denied"));
    const two = await drain(a.agent.thread("k").stream("two"));
    expect(two.text).toBe("saw 2");
    expect(two.notices.find((n) => n.message === "session not stored")?.data).toMatchObject({
      threadKey: "k",
      cause: "not_exported",
      error: "EACCES: permission denied",
    });
    a.home.exportSession = exportless;
    const record = await store.resolve({ key: "k" });
    expect(record?.codec).toBe("json/v1;session=local");
    const elsewhere = await failure(b.agent.thread("k").run("three on b"));
    expect(elsewhere.reason).toBe("local_only");
    expect(elsewhere.result).toBeUndefined();
    expect(isError(elsewhere, ErrThreadSessionUnavailable)).toBe(true);
    expect(isError(elsewhere, ErrThreadSessionCorrupt)).toBe(false);
    expect((await store.resolve({ key: "k" }))?.revision).toBe(record?.revision);
    expect((await a.agent.thread("k").run("three")).text).toBe("saw 3");
    expect((await store.resolve({ key: "k" }))?.codec).toBe("json/v1;session=stored");
    const four = await drain(b.agent.thread("k").stream("four"));
    expect(four.text).toBe("saw 4");
    expect(four.notices.map((n) => n.message)).toContain("session restored");
  });

  it("strict portability: session files that cannot be exported reject with ErrThreadSessionUnavailable carrying the Result, nothing committed", async () => {
    const store = new MemoryThreadStore();
    const a = host(store, { sessionPortability: "strict" });
    await a.agent.thread("k").run("one");
    const before = await store.resolve({ key: "k" });
    a.home.exportSession = () => Promise.reject(new Error("EACCES: permission denied"));
    const err = await failure(a.agent.thread("k").run("two"));
    expect(err.reason).toBe("not_exported");
    expect(isError(err, ErrThreadSessionUnavailable)).toBe(true);
    expect(err.result?.text).toBe("saw 2");
    expect((err.cause as Error).message).toBe("EACCES: permission denied");
    expect(await store.resolve({ key: "k" })).toStrictEqual(before);
  });

  it("over sessionStateLimitBytes: best effort commits without the files (notice cause too_large); strict rejects with ErrThreadSessionTooLarge carrying the Result", async () => {
    const store = new MemoryThreadStore();
    const lenient = host(store, { sessionStateLimitBytes: 200 });
    await lenient.agent.thread("k").run("short");
    // Random bytes do not compress: this turn's line alone is over the limit.
    const noise = randomBytes(1500).toString("base64");
    const big = await drain(lenient.agent.thread("k").stream(`long ${noise}`));
    expect(big.text).toBe("saw 2");
    expect(big.notices.find((n) => n.message === "session not stored")?.data).toMatchObject({ cause: "too_large" });
    expect((await store.resolve({ key: "k" }))?.codec).toBe("json/v1;session=local");

    const strictStore = new MemoryThreadStore();
    const strict = host(strictStore, { sessionStateLimitBytes: 200, sessionPortability: "strict" });
    await strict.agent.thread("k").run("short");
    const before = await strictStore.resolve({ key: "k" });
    const err = await failure(strict.agent.thread("k").run(`long ${noise}`));
    expect(err.reason).toBe("too_large");
    expect(isError(err, ErrThreadSessionTooLarge)).toBe(true);
    expect(err.result?.text).toBe("saw 2");
    expect(await strictStore.resolve({ key: "k" })).toStrictEqual(before);
  });

  it("a record whose stored session state is gone (state row deleted) is ThreadSessionError missing (ErrThreadSessionCorrupt) on a host without the files, never a fresh conversation; a host that holds them continues and stores them anew", async () => {
    const store = new MemoryThreadStore();
    const a = host(store);
    await a.agent.thread("k").run("one");
    const before = await store.resolve({ key: "k" });
    expect(before?.codec).toBe("json/v1;session=stored");
    const gone = withSessionState(store, { read: () => Promise.resolve(undefined), segments: () => Promise.resolve([]) });
    const b = host(gone);
    const driver = hostDriver(b.home);
    const agent = new Agent(driver, { threadStore: gone });
    const err = await failure(agent.thread("k").run("two"));
    expect(err.reason).toBe("missing");
    expect(isError(err, ErrThreadSessionCorrupt)).toBe(true);
    expect(err.message).toContain(`record ${before!.id}`);
    expect(driver.requests).toHaveLength(0);
    expect(await store.resolve({ key: "k" })).toStrictEqual(before);
    // The host whose CLI home still holds the checkpoint continues from it, says so, and stores the files anew.
    const own = new Agent(hostDriver(a.home), { threadStore: gone });
    const two = await drain(own.thread("k").stream("two"));
    expect(two.text).toBe("saw 2");
    expect(two.notices.find((n) => n.message === "session state missing; continuing from this host's copy")?.data).toMatchObject({
      cause: "missing",
    });
    const healed = await store.sessionState!.read(before!.id);
    expect(healed?.segments).toBe(1);
    expect((await store.resolve({ key: "k" }))?.codec).toBe("json/v1;session=stored");
  });

  it("a stored segment lost or corrupted is ThreadSessionError damaged (ErrThreadSessionCorrupt) before the CLI starts", async () => {
    const store = new MemoryThreadStore();
    const a = host(store);
    await a.agent.thread("k").run("one");
    await a.agent.thread("k").run("two");
    const real = store.sessionState!;
    for (const segments of [
      async (id: string) => (await real.segments(id)).slice(0, 1),
      async (id: string) => (await real.segments(id)).map((s, i) => (i === 1 ? s.subarray(0, s.length - 3) : s)),
    ]) {
      const damaged = withSessionState(store, { read: real.read, segments });
      const home = new Home();
      const driver = hostDriver(home);
      const err = await failure(new Agent(driver, { threadStore: damaged }).thread("k").run("three"));
      expect(err.reason).toBe("damaged");
      expect(isError(err, ErrThreadSessionCorrupt)).toBe(true);
      expect(driver.requests).toHaveLength(0);
    }
  });

  it("a store that silently keeps only the newest segments is ThreadSessionError damaged at the next turn's start, also on the host whose copy is whole; nothing more is committed", async () => {
    const store = new MemoryThreadStore();
    const real = store.sessionState!;
    const KEEP = 8;
    const newest = async (id: string, signal?: AbortSignal) => (await real.segments(id, signal)).slice(-KEEP);
    const truncating = withSessionState(store, {
      read: async (id, signal) => {
        const state = await real.read(id, signal);
        const kept = await newest(id, signal);
        return state && { ...state, segments: kept.length, bytes: kept.reduce((sum, s) => sum + s.byteLength, 0) };
      },
      segments: newest,
      segmentsFrom: async (id, from, signal) => (await newest(id, signal)).slice(from),
    });
    const home = new Home();
    const driver = hostDriver(home);
    const a = new Agent(driver, { threadStore: truncating });
    const seen: string[] = [];
    for (let turn = 1; turn <= KEEP + 1; turn++) seen.push((await a.thread("k").run(`turn ${turn}`)).text);
    expect(seen).toEqual(Array.from({ length: KEEP + 1 }, (_, i) => `saw ${i + 1}`));
    const committed = await store.resolve({ key: "k" });
    // The store now holds 8 of the 9 segments the manifest names.
    const err = await failure(a.thread("k").run("turn 10"));
    expect({ reason: err.reason, corrupt: isError(err, ErrThreadSessionCorrupt) }).toEqual({ reason: "damaged", corrupt: true });
    expect(err.message).toMatch(/holds 8 segments .* names 9/);
    expect(driver.requests).toHaveLength(KEEP + 1);
    expect((await store.resolve({ key: "k" }))?.revision).toBe(committed?.revision);
    // Another host gets the same, never a fresh or cut conversation.
    const b = new Home();
    const other = await failure(new Agent(hostDriver(b), { threadStore: truncating }).thread("k").run("turn 10 on b"));
    expect(other.reason).toBe("damaged");
    expect(b.files.size).toBe(0);
  });

  for (const damage of ["drop", "truncate", "swap"] as const) {
    it(`a custom store that did ${damage} an old segment while still reporting the full count and length fails the next turn on the host whose copy is whole (ErrThreadSessionCorrupt, from the store's summary), before the CLI continues; without summary that turn went on`, async () => {
      for (const summary of [true, false]) {
        const store = new MemoryThreadStore();
        // Damaged by the third turn's commit: the first segment (of two) swapped with the second, or the second lost or cut.
        const hostile = hostileSegmentStore(store, { damage, at: damage === "swap" ? 0 : 1, summary });
        const home = new Home();
        const driver = hostDriver(home);
        const a = new Agent(driver, { threadStore: hostile });
        for (const turn of ["one", "two", "three"]) await a.thread("k").run(turn);
        const committed = await store.resolve({ key: "k" });
        const next = a.thread("k").run("four");
        if (!summary) {
          // What the check is for: the CLI continued from this host's copy as if nothing was lost.
          expect((await next).text).toBe("saw 4");
          continue;
        }
        const err = await failure(next);
        expect({ reason: err.reason, corrupt: isError(err, ErrThreadSessionCorrupt) }).toEqual({ reason: "damaged", corrupt: true });
        expect(err.message).toContain("a stored segment was lost, shortened or reordered");
        expect(driver.requests).toHaveLength(3);
        expect((await store.resolve({ key: "k" }))?.revision).toBe(committed?.revision);
      }
    });
  }

  it("a store that wrote a turn's record but kept the previous session state is ThreadSessionError stale (ErrThreadSessionCorrupt) before the CLI starts, never a shorter conversation", async () => {
    const { store, stale, before } = await staleAfterTwoTurns();
    expect(before?.codec).toBe("json/v1;session=stored");
    const home = new Home();
    const driver = hostDriver(home);
    const err = await failure(new Agent(driver, { threadStore: stale }).thread("k").run("three"));
    expect(err.reason).toBe("stale");
    expect(isError(err, ErrThreadSessionCorrupt)).toBe(true);
    expect(err.message).toContain(`record ${before!.id}`);
    expect(driver.requests).toHaveLength(0);
    // Nothing written into this host's CLI home, nothing committed.
    expect(home.files.size).toBe(0);
    expect(await store.resolve({ key: "k" })).toStrictEqual(before);
  });

  it("a session=stored record whose restored state the CLI rejects (a manifest without a turn log, state of an older write) is ThreadSessionError stale (the CLI's rejection its cause, as an Error), never a fresh conversation committed over it", async () => {
    const { store, before } = await staleAfterTwoTurns();
    // An earlier version's manifest: no turn log, so only the CLI can tell.
    const real = store.sessionState!;
    const unlogged = withSessionState(store, {
      read: async (id, signal) => {
        const state = await real.read(id, signal);
        if (!state) return state;
        const { turns: _none, ...manifest } = state.manifest as Record<string, unknown>;
        return { ...state, manifest };
      },
      segments: real.segments,
    });
    const home = new Home();
    const driver = hostDriver(home, { strictResume: true });
    const err = await failure(new Agent(driver, { threadStore: unlogged }).thread("k").run("three"));
    expect(err.reason).toBe("stale");
    expect(isError(err, ErrThreadSessionCorrupt)).toBe(true);
    expect(err.cause).toBeInstanceOf(Error);
    expect((err.cause as Error).message).toBe("no message user: two");
    expect(driver.requests).toHaveLength(1);
    expect(await store.resolve({ key: "k" })).toStrictEqual(before);
  });

  it("sessionPortability other than best_effort or strict is an InvalidOptionError at construction", () => {
    expect(() => new Agent(hostDriver(new Home()), { sessionPortability: "loose" as "strict" })).toThrow(InvalidOptionError);
  });
});
