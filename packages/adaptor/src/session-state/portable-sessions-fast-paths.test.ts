// The fast paths of portable sessions (files read from an offset, older copies completed with the
// missing segments only) give the same results as the plain path (files exported and imported whole).
import { createHash } from "node:crypto";
import { gunzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import type { SessionLocation } from "@adaptor/driver";
import { findError } from "@adaptor/errors";
import { MemoryThreadStore, type SessionStateStore, type SessionStateWrite } from "@adaptor/threadstore";
import { FakeHome, SliceHome, sessionRecord } from "../../test/support/fake-session-home.js";
import { ThreadSessionError } from "../errors/thread-session-error.js";
import { PortableSessions, type SessionCapture } from "./portable-sessions.js";
import { heldThrough, readManifest, TAIL_WINDOW } from "./session-manifest.js";

const where: SessionLocation = { resumeId: "s-1" };
const LIMIT = 100_000_000;

/** `n` bytes of lines that differ from each other (so gzip and hashes see real content). */
function lines(tag: string, n: number): Buffer {
  const out: string[] = [];
  let size = 0;
  for (let i = 0; size < n; i++) {
    const line = `{"turn":"${tag}","i":${i},"text":"${(i * 2654435761).toString(36).repeat(3)}"}\n`;
    out.push(line);
    size += line.length;
  }
  return Buffer.from(out.join("")).subarray(0, n);
}

/** A capture's write with its segments decompressed, for comparing two paths. */
function plain(capture: SessionCapture): { mode: string; manifest: unknown; segments: string[] } {
  if (capture.kind !== "write") throw new Error(`expected a write, got ${capture.kind}`);
  const { mode, manifest, segments } = capture.write;
  return { mode, manifest, segments: segments.map((s) => gunzipSync(s).toString("base64")) };
}

function write(capture: SessionCapture): SessionStateWrite {
  if (capture.kind !== "write") throw new Error(`expected a write, got ${capture.kind}`);
  return capture.write;
}

/** A store holding `turns` commits of `t.jsonl` (a first turn of `first` bytes, then 2 kB per turn) and `u.jsonl` from turn 2; the file contents after each. */
async function history(first: number, turns: number): Promise<{ store: MemoryThreadStore; states: Map<string, Buffer>[] }> {
  const store = new MemoryThreadStore();
  const home = new SliceHome();
  const portable = new PortableSessions(store.sessionState!, home, LIMIT, "k");
  const states: Map<string, Buffer>[] = [];
  for (let turn = 1; turn <= turns; turn++) {
    const t = home.files.get("t.jsonl") ?? Buffer.alloc(0);
    home.files.set("t.jsonl", Buffer.concat([t, lines(`t${turn}`, turn === 1 ? first : 2_000)]));
    if (turn >= 2) home.files.set("u.jsonl", Buffer.concat([home.files.get("u.jsonl") ?? Buffer.alloc(0), lines(`u${turn}`, 500)]));
    const captured = await portable.capture(await store.sessionState!.read("rec-1"), where);
    await store.finalize({ leases: [], record: sessionRecord(), sessionState: write(captured) });
    states.push(new Map([...home.files].map(([n, c]) => [n, Buffer.from(c)])));
  }
  return { store, states };
}

/** `files` as name → base64, so equal contents compare in one step. */
function text(files: Map<string, Buffer> | undefined): Record<string, string> {
  return Object.fromEntries([...(files ?? [])].map(([n, c]) => [n, c.toString("base64")]));
}

/** A home holding `files`. */
function holding<H extends FakeHome>(home: H, files: Map<string, Buffer>): H {
  home.files = new Map([...files].map(([n, c]) => [n, Buffer.from(c)]));
  return home;
}

/** `store`'s session state, counting which segments were read and how. */
function counted(store: SessionStateStore): SessionStateStore & { whole: number; from: number[] } {
  const c = {
    whole: 0,
    from: [] as number[],
    read: store.read,
    segments: (id: string, signal?: AbortSignal) => (c.whole++, store.segments(id, signal)),
    segmentsFrom: (id: string, from: number, signal?: AbortSignal) => (c.from.push(from), store.segmentsFrom!(id, from, signal)),
  };
  return c;
}

describe("portable sessions fast paths", () => {
  it("a capture from an offset stores exactly what the whole-file capture stores, reading only the window and the turn's bytes", async () => {
    const plainStore = new MemoryThreadStore();
    const fastStore = new MemoryThreadStore();
    const plainHome = new FakeHome();
    const fastHome = new SliceHome();
    const plainSessions = new PortableSessions(plainStore.sessionState!, plainHome, LIMIT, "k");
    const fastSessions = new PortableSessions(fastStore.sessionState!, fastHome, LIMIT, "k");
    let before = 0;
    for (let turn = 1; turn <= 5; turn++) {
      const t = Buffer.concat([plainHome.files.get("t.jsonl") ?? Buffer.alloc(0), lines(`t${turn}`, turn === 1 ? 300_000 : 3_000)]);
      plainHome.files.set("t.jsonl", t);
      fastHome.files.set("t.jsonl", Buffer.from(t));
      if (turn === 3) {
        plainHome.files.set("u.jsonl", lines("u", 700));
        fastHome.files.set("u.jsonl", lines("u", 700));
      }
      const p = await plainSessions.capture(await plainStore.sessionState!.read("rec-1"), where);
      fastHome.bytesRead = 0;
      const f = await fastSessions.capture(await fastStore.sessionState!.read("rec-1"), where);
      expect(plain(f)).toEqual(plain(p));
      // Turn 1 reads the file whole; later turns the window before the stored end, the new bytes, and new files.
      // u.jsonl is new at turn 3 (read whole), then shorter than the window (read whole again).
      const added = t.byteLength - before + (turn >= 3 ? 700 : 0);
      expect(fastHome.bytesRead).toBe(turn === 1 ? t.byteLength : added + TAIL_WINDOW);
      before = t.byteLength;
      await plainStore.finalize({ leases: [], record: sessionRecord(), sessionState: write(p) });
      await fastStore.finalize({ leases: [], record: sessionRecord(), sessionState: write(f) });
    }
    // A host without the state restores the same bytes either way.
    const fresh = new SliceHome();
    await new PortableSessions(fastStore.sessionState!, fresh, LIMIT, "k").restore(
      "rec-1",
      (await fastStore.sessionState!.read("rec-1"))!,
      where,
    );
    expect(text(fresh.files)).toEqual(text(plainHome.files));
  });

  it("a rewrite is caught from an offset as on the whole file: shorter, other bytes in the window, gone; an append is not", async () => {
    const { store, states } = await history(200_000, 2);
    const stored = (await store.sessionState!.read("rec-1"))!;
    const t = states[1]!.get("t.jsonl")!;
    const flip = (at: number): Buffer => {
      const copy = Buffer.concat([t, lines("t3", 100)]);
      copy[at] = copy[at]! ^ 1;
      return copy;
    };
    const cases: [string, Map<string, Buffer> | undefined][] = [
      ["shorter", new Map([...states[1]!, ["t.jsonl", t.subarray(0, t.byteLength - 1)]])],
      ["a byte changed in the window", new Map([...states[1]!, ["t.jsonl", flip(t.byteLength - 10)]])],
      ["a byte changed at the window's start", new Map([...states[1]!, ["t.jsonl", flip(t.byteLength - TAIL_WINDOW)]])],
      ["gone", new Map([["u.jsonl", states[1]!.get("u.jsonl")!]])],
      ["grown", new Map([...states[1]!, ["t.jsonl", Buffer.concat([t, lines("t3", 100)])]])],
    ];
    for (const [what, files] of cases) {
      const p = await new PortableSessions(store.sessionState!, holding(new FakeHome(), files!), LIMIT, "k").capture(stored, where);
      const f = await new PortableSessions(store.sessionState!, holding(new SliceHome(), files!), LIMIT, "k").capture(stored, where);
      expect({ what, kind: f.kind }).toEqual({ what, kind: what === "grown" ? "write" : "rewritten" });
      expect(f).toEqual(p);
    }
  });

  it("a host whose copy is the stored one keeps it, reading it whole once and then only each file's window", async () => {
    const { store, states } = await history(500_000, 3);
    const stored = (await store.sessionState!.read("rec-1"))!;
    const home = holding(new SliceHome(), states[2]!);
    const windows = TAIL_WINDOW + states[2]!.get("u.jsonl")!.byteLength;
    // A copy this process never verified is checked against every stored byte once (read whole) …
    expect(await new PortableSessions(store.sessionState!, home, LIMIT, "k").restore("rec-1", stored, where)).toBe("local");
    expect(home.bytesRead).toBe(windows + home.files.get("t.jsonl")!.byteLength + states[2]!.get("u.jsonl")!.byteLength);
    // … and then, while no one writes it, by its windows alone.
    home.bytesRead = 0;
    expect(await new PortableSessions(store.sessionState!, home, LIMIT, "k").restore("rec-1", stored, where)).toBe("local");
    expect(home.bytesRead).toBe(windows);
    expect(home.imports + home.appends.length).toBe(0);
  });

  it("bytes past the stored ones (a failed turn's, a forged or half line) are cut off before the CLI starts (one whole read of the file written since it was verified), and never reach the next capture", async () => {
    const { store, states } = await history(500_000, 3);
    const stored = (await store.sessionState!.read("rec-1"))!;
    const home = holding(new SliceHome(), states[2]!);
    const portable = new PortableSessions(store.sessionState!, home, LIMIT, "k");
    // Verified once (read whole), as after this process's own turn.
    expect(await portable.restore("rec-1", stored, where)).toBe("local");
    for (const extra of ['{"type":"user","text":"FORGED"}\n', "GARBAGE-NOT-JSON\n", '{"type":"respo']) {
      home.files.set("t.jsonl", Buffer.concat([states[2]!.get("t.jsonl")!, Buffer.from(extra)]));
      home.bytesRead = 0;
      home.appends = [];
      expect(await portable.restore("rec-1", stored, where)).toBe("trimmed");
      expect(text(home.files)).toEqual(text(states[2]));
      const t = states[2]!.get("t.jsonl")!.byteLength;
      expect(home.appends.map((a) => a.map((s) => [s.name, s.offset, s.bytes, s.content.byteLength]))).toEqual([[["t.jsonl", t, t, 0]]]);
      expect(home.imports).toBe(0);
      // The windows and the extra bytes; the written file whole once (written since this process
      // verified it: an edit before the window must not pass); the windows again after the cut.
      const windows = TAIL_WINDOW + states[2]!.get("u.jsonl")!.byteLength;
      expect(home.bytesRead).toBe(2 * windows + extra.length + (t + extra.length));
    }
    // The next turn's capture holds only what that turn wrote.
    home.files.set("t.jsonl", Buffer.concat([home.files.get("t.jsonl")!, Buffer.from("turn four\n")]));
    const captured = write(await portable.capture(stored, where));
    expect(captured.segments.map((s) => gunzipSync(s).toString())).toEqual(["turn four\n"]);
  });

  it("bytes past the stored ones stay for a turn that reuses this host's live parked process (its own lines between turns, stored with that turn); without that process or that turn they are cut off", async () => {
    const { store, states } = await history(500_000, 3);
    const stored = (await store.sessionState!.read("rec-1"))!;
    const t = states[2]!.get("t.jsonl")!;
    const late = '{"type":"last-prompt","lastPrompt":"turn three"}\n';
    const home = holding(new SliceHome(), states[2]!);
    const portable = new PortableSessions(store.sessionState!, home, LIMIT, "k");
    expect(await portable.restore("rec-1", stored, where)).toBe("local");
    home.files.set("t.jsonl", Buffer.concat([t, Buffer.from(late)]));
    home.parkedProcess = true;
    expect(await portable.restore("rec-1", stored, where, { reuse: true })).toBe("local");
    expect({ appends: home.appends.length, imports: home.imports, parked: home.parkedProcess }).toEqual({
      appends: 0,
      imports: 0,
      parked: true,
    });
    expect(home.files.get("t.jsonl")!.toString()).toBe(t.toString() + late);
    // The reusing turn's capture holds the process's late line and the turn's own.
    home.files.set("t.jsonl", Buffer.concat([home.files.get("t.jsonl")!, Buffer.from("turn four\n")]));
    const captured = write(await portable.capture(stored, where));
    expect(captured.segments.map((s) => gunzipSync(s).toString())).toEqual([`${late}turn four\n`]);
    // A turn that will not reuse it (spawn), or no live parked process: cut back to the stored bytes.
    for (const [reuse, parked] of [
      [false, true],
      [true, false],
    ] as const) {
      home.files.set("t.jsonl", Buffer.concat([t, Buffer.from(late)]));
      home.parkedProcess = parked;
      home.appends = [];
      expect({ reuse, parked, outcome: await portable.restore("rec-1", stored, where, { reuse }) }).toEqual({
        reuse,
        parked,
        outcome: "trimmed",
      });
      expect(text(home.files)).toEqual(text(states[2]));
      expect(home.parkedProcess).toBe(false);
    }
  });

  it("a host with an older copy gets only the segments it lacks, appended: the files equal a whole restore's", async () => {
    const { store, states } = await history(300_000, 6);
    const stored = (await store.sessionState!.read("rec-1"))!;
    for (const older of [0, 1, 3, 4]) {
      const sessions = counted(store.sessionState!);
      const home = holding(new SliceHome(), states[older]!);
      // A copy from before u.jsonl existed lacks a file: restored whole.
      const expected = older === 0 ? "import" : "append";
      const outcome = await new PortableSessions(sessions, home, LIMIT, "k").restore("rec-1", stored, where);
      expect(outcome).toBe(expected === "append" ? "appended" : "restored");
      expect(text(home.files)).toEqual(text(states[5]));
      expect({ older, how: home.appends.length === 1 && home.imports === 0 ? "append" : "import" }).toEqual({ older, how: expected });
      if (expected === "append") {
        // Segments are numbered across files: turn n (1-based) stored t's and then u's (from turn 2) new bytes.
        expect(sessions).toMatchObject({ whole: 0, from: [1 + 2 * older] });
        expect(home.appends[0]!.map((s) => [s.name, s.offset, s.bytes])).toEqual([
          ["t.jsonl", states[older]!.get("t.jsonl")!.byteLength, states[5]!.get("t.jsonl")!.byteLength],
          ["u.jsonl", states[older]!.get("u.jsonl")!.byteLength, states[5]!.get("u.jsonl")!.byteLength],
        ]);
      }
      const whole = holding(new FakeHome(), states[older]!);
      await new PortableSessions(store.sessionState!, whole, LIMIT, "k").restore("rec-1", stored, where);
      expect(text(whole.files)).toEqual(text(home.files));
    }
  });

  it("entries a live process adds as it ends before the append are replaced, as a whole restore replaces them", async () => {
    const { store, states } = await history(200_000, 4);
    const stored = (await store.sessionState!.read("rec-1"))!;
    const home = holding(new SliceHome(), states[1]!);
    home.onEnd = Buffer.from('{"type":"last-prompt"}\n');
    expect(await new PortableSessions(store.sessionState!, home, LIMIT, "k").restore("rec-1", stored, where)).toBe("appended");
    expect({ imports: home.imports, files: text(home.files) }).toEqual({ imports: 0, files: text(states[3]) });
  });

  it("an append whose result is not the stored files (checked as a kept copy is) is followed by a whole restore", async () => {
    const { store, states } = await history(200_000, 4);
    const stored = (await store.sessionState!.read("rec-1"))!;
    const home = holding(new SliceHome(), states[1]!);
    const append = home.appendSession.bind(home);
    home.appendSession = (location, slices) =>
      append(
        location,
        slices.map((s) => ({ ...s, content: Buffer.from(s.content).reverse() })),
      );
    expect(await new PortableSessions(store.sessionState!, home, LIMIT, "k").restore("rec-1", stored, where)).toBe("restored");
    expect({ appends: home.appends.length, imports: home.imports, files: text(home.files) }).toEqual({
      appends: 1,
      imports: 1,
      files: text(states[3]),
    });
  });

  it("an older copy that does not end at a stored segment's end, differs in its window, or cannot be appended to is restored whole", async () => {
    const { store, states } = await history(200_000, 4);
    const stored = (await store.sessionState!.read("rec-1"))!;
    const older = states[1]!;
    const t = older.get("t.jsonl")!;
    const changed = Buffer.from(t);
    changed[t.byteLength - 100] = changed[t.byteLength - 100]! ^ 1;
    const failing = holding(new SliceHome(), older);
    failing.appendSession = () => Promise.reject(new Error("EROFS"));
    const cases: [string, SliceHome][] = [
      ["mid-segment", holding(new SliceHome(), new Map([...older, ["t.jsonl", t.subarray(0, t.byteLength - 7)]]))],
      ["other bytes in the window", holding(new SliceHome(), new Map([...older, ["t.jsonl", changed]]))],
      ["append fails", failing],
    ];
    for (const [what, home] of cases) {
      expect(await new PortableSessions(store.sessionState!, home, LIMIT, "k").restore("rec-1", stored, where)).toBe("restored");
      expect({ what, imports: home.imports, files: text(home.files) }).toEqual({ what, imports: 1, files: text(states[3]) });
    }
  });

  it("a damaged later segment is ThreadSessionError damaged on the append path too, and nothing is appended", async () => {
    const { store, states } = await history(200_000, 3);
    const stored = (await store.sessionState!.read("rec-1"))!;
    const real = await store.sessionState!.segments("rec-1");
    const bad = [...real];
    bad[bad.length - 1] = Buffer.from("not gzip");
    const damaged: SessionStateStore = {
      read: store.sessionState!.read,
      segments: async () => bad,
      segmentsFrom: async (_id, from) => bad.slice(from),
    };
    const home = holding(new SliceHome(), states[1]!);
    const err = await new PortableSessions(damaged, home, LIMIT, "k").restore("rec-1", stored, where).catch((e: unknown) => e);
    expect(findError(err, ThreadSessionError)).toMatchObject({ reason: "damaged" });
    expect(home.appends).toEqual([]);
    expect(text(home.files)).toEqual(text(states[1]));
  });

  it("state written before segment ends were kept restores whole, and appends keep no ends for it", async () => {
    const { store, states } = await history(100_000, 3);
    const stored = (await store.sessionState!.read("rec-1"))!;
    const manifest = stored.manifest as { files: { ends?: unknown }[] };
    const legacy = { ...stored, manifest: { ...manifest, files: manifest.files.map(({ ends: _ends, ...f }) => f) } };
    const home = holding(new SliceHome(), states[1]!);
    expect(await new PortableSessions(store.sessionState!, home, LIMIT, "k").restore("rec-1", legacy, where)).toBe("restored");
    expect({ imports: home.imports, files: text(home.files) }).toEqual({ imports: 1, files: text(states[2]) });
    home.files.set("t.jsonl", Buffer.concat([home.files.get("t.jsonl")!, lines("t4", 100)]));
    const next = write(await new PortableSessions(store.sessionState!, home, LIMIT, "k").capture(legacy, where));
    expect(next.mode).toBe("append");
    expect((next.manifest as { files: { ends?: unknown }[] }).files.map((f) => f.ends)).toEqual([undefined, undefined]);
  });

  it("a same-length edit before the tail window is caught: a copy this process has not verified since it was written is checked whole and replaced by the stored bytes", async () => {
    const store = new MemoryThreadStore();
    const home = new SliceHome();
    const sessions = new PortableSessions(store.sessionState!, home, LIMIT, "k");
    for (let turn = 1; turn <= 3; turn++) {
      home.files.set(
        "t.jsonl",
        Buffer.concat([home.files.get("t.jsonl") ?? Buffer.alloc(0), lines(`t${turn}`, turn === 1 ? 200_000 : 2_000)]),
      );
      const captured = await sessions.capture(await store.sessionState!.read("rec-1"), where);
      await store.finalize({ leases: [], record: sessionRecord(), sessionState: write(captured) });
    }
    const stored = (await store.sessionState!.read("rec-1"))!;
    const original = Buffer.from(home.files.get("t.jsonl")!);
    // Untouched since this process stored it: kept, by its window alone.
    home.bytesRead = 0;
    expect(await sessions.restore("rec-1", stored, where)).toBe("local");
    expect(home.bytesRead).toBe(TAIL_WINDOW);
    // The first entry blanked with as many spaces, far before the window: same length, same window.
    const edited = Buffer.from(original).fill(0x20, 10, 60);
    home.files.set("t.jsonl", Buffer.from(edited));
    expect(await sessions.restore("rec-1", stored, where)).toBe("restored");
    expect(home.files.get("t.jsonl")!.equals(original)).toBe(true);
    // The same after a restart: another process has verified nothing.
    const restarted = holding(new SliceHome(), new Map([["t.jsonl", edited]]));
    expect(await new PortableSessions(store.sessionState!, restarted, LIMIT, "k").restore("rec-1", stored, where)).toBe("restored");
    expect(restarted.files.get("t.jsonl")!.equals(original)).toBe(true);
    // An older copy (through turn 2) with the edit is restored whole, not completed.
    const older = holding(new SliceHome(), new Map([["t.jsonl", edited.subarray(0, 202_000)]]));
    expect(await new PortableSessions(store.sessionState!, older, LIMIT, "k").restore("rec-1", stored, where)).toBe("restored");
    expect({ appends: older.appends.length, same: older.files.get("t.jsonl")!.equals(original) }).toEqual({ appends: 0, same: true });
    // Unedited, a restarted process keeps its copy (checked whole once) or completes its older one.
    const intact = holding(new SliceHome(), new Map([["t.jsonl", original]]));
    expect(await new PortableSessions(store.sessionState!, intact, LIMIT, "k").restore("rec-1", stored, where)).toBe("local");
    const olderIntact = holding(new SliceHome(), new Map([["t.jsonl", original.subarray(0, 202_000)]]));
    expect(await new PortableSessions(store.sessionState!, olderIntact, LIMIT, "k").restore("rec-1", stored, where)).toBe("appended");
    expect(olderIntact.files.get("t.jsonl")!.equals(original)).toBe(true);
  });

  it("heldThrough checks every stored segment's hash up to where the copy ends", async () => {
    const store = new MemoryThreadStore();
    const home = new SliceHome();
    const sessions = new PortableSessions(store.sessionState!, home, LIMIT, "k");
    for (let turn = 1; turn <= 3; turn++) {
      home.files.set("t.jsonl", Buffer.concat([home.files.get("t.jsonl") ?? Buffer.alloc(0), lines(`t${turn}`, 100_000)]));
      await store.finalize({
        leases: [],
        record: sessionRecord(),
        sessionState: write(await sessions.capture(await store.sessionState!.read("rec-1"), where)),
      });
    }
    const file = readManifest((await store.sessionState!.read("rec-1"))!.manifest, home.format)!.files[0]!;
    const whole = home.files.get("t.jsonl")!;
    const part = (content: Buffer) => ({ bytes: content.byteLength, offset: 0, content });
    expect(heldThrough(file, part(whole))).toBe(true);
    expect(heldThrough(file, part(whole.subarray(0, 200_000)), 2)).toBe(true);
    expect(heldThrough(file, part(Buffer.from(whole).fill(0x20, 5, 6)))).toBe(false);
    expect(heldThrough(file, part(Buffer.from(whole).fill(0x20, 150_000, 150_001)), 2)).toBe(false);
    expect(heldThrough(file, part(Buffer.from(whole).fill(0x20, 250_000, 250_001)), 2)).toBe(true);
    expect(heldThrough(file, { bytes: whole.byteLength, offset: 1, content: whole.subarray(1) })).toBe(false);
    // A manifest of an earlier version: the whole file's hash, and nothing to check a prefix with.
    const legacy = {
      name: file.name,
      bytes: file.bytes,
      segments: file.segments,
      sha256: createHash("sha256").update(whole).digest("hex"),
    };
    expect(heldThrough(legacy, part(whole))).toBe(true);
    expect(heldThrough(legacy, part(Buffer.from(whole).fill(0x20, 5, 6)))).toBe(false);
    expect(heldThrough(legacy, part(whole.subarray(0, 200_000)), 2)).toBe(false);
  });
});
