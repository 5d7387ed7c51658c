import { gunzipSync, gzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import type { SessionLocation } from "@adaptor/driver";
import { DriverError, ErrCode, findError, isError } from "@adaptor/errors";
import { MemoryThreadStore, type SessionStateWrite, type StoredSessionState } from "@adaptor/threadstore";
import { FakeHome, sessionRecord } from "../../test/support/fake-session-home.js";
import { ErrThreadSessionCorrupt, ErrThreadSessionUnavailable } from "../errors/sentinels.js";
import { ThreadSessionError } from "../errors/thread-session-error.js";
import { PortableSessions, type SessionCapture } from "./portable-sessions.js";
import { sha256 } from "./session-manifest.js";

const where: SessionLocation = { resumeId: "s-1" };

function written(capture: SessionCapture): SessionStateWrite {
  if (capture.kind !== "write") throw new Error(`expected a write, got ${capture.kind}`);
  return capture.write;
}

/** A store with one record whose stored state is `home`'s files at two turns ("one\n", then "one\ntwo\n"). */
async function twoTurns(): Promise<{
  store: MemoryThreadStore;
  stored: StoredSessionState;
  portable: (home: FakeHome) => PortableSessions;
}> {
  const store = new MemoryThreadStore();
  const portable = (home: FakeHome): PortableSessions => new PortableSessions(store.sessionState!, home, 1_000_000, "k");
  const a = new FakeHome();
  a.files.set("t.jsonl", Buffer.from("one\n"));
  await store.finalize({ leases: [], record: sessionRecord(), sessionState: written(await portable(a).capture(undefined, where)) });
  a.files.set("t.jsonl", Buffer.from("one\ntwo\n"));
  const second = written(await portable(a).capture(await store.sessionState!.read("rec-1"), where));
  await store.finalize({ leases: [], record: sessionRecord(), sessionState: second });
  return { store, stored: (await store.sessionState!.read("rec-1"))!, portable };
}

/** The restore of `stored` into an empty home, rejected: its ThreadSessionError. */
async function restoreFails(portable: PortableSessions, stored: StoredSessionState): Promise<ThreadSessionError> {
  const err = await portable.restore("rec-1", stored, where).catch((e: unknown) => e);
  const typed = findError(err, ThreadSessionError);
  if (!typed) throw new Error(`expected a ThreadSessionError, got ${String(err)}`);
  return typed;
}

describe("PortableSessions", () => {
  it("appends only the bytes a file grew by, and files new since the last turn whole", async () => {
    const store = new MemoryThreadStore();
    const home = new FakeHome();
    const portable = new PortableSessions(store.sessionState!, home, 1_000_000, "k");
    home.files.set("t.jsonl", Buffer.from("line 1\n"));
    const first = written(await portable.capture(undefined, where));
    expect(first.mode).toBe("replace");
    await store.finalize({ leases: [], record: sessionRecord(), sessionState: first });
    home.files.set("t.jsonl", Buffer.from("line 1\nline 2\n"));
    home.files.set("u.jsonl", Buffer.from("other\n"));
    const second = written(await portable.capture(await store.sessionState!.read("rec-1"), where));
    expect(second.mode).toBe("append");
    expect(second.segments.map((s) => gunzipSync(s).toString())).toEqual(["line 2\n", "other\n"]);
    await store.finalize({ leases: [], record: sessionRecord(), sessionState: second });
    const fresh = new FakeHome();
    expect(await portable.restore("rec-1", (await store.sessionState!.read("rec-1"))!, where)).toBe("local");
    expect(
      await new PortableSessions(store.sessionState!, fresh, 1_000_000, "k").restore(
        "rec-1",
        (await store.sessionState!.read("rec-1"))!,
        where,
      ),
    ).toBe("restored");
    expect(Object.fromEntries([...fresh.files].map(([n, c]) => [n, c.toString()]))).toEqual({
      "t.jsonl": "line 1\nline 2\n",
      "u.jsonl": "other\n",
    });
  });

  it("a stored file that shrank, no longer begins with the stored bytes, or is gone is a rewrite: nothing to store", async () => {
    const { stored, portable } = await twoTurns();
    for (const [content, what] of [
      ["two\nthree\n", "is now 10 bytes and does not begin with them"],
      ["one\n", "is now 4 bytes"],
      ["ONE\ntwo\nthree\n", "does not begin with them"],
    ] as const) {
      const home = new FakeHome();
      home.files.set("t.jsonl", Buffer.from(content));
      const capture = await portable(home).capture(stored, where);
      expect(capture).toMatchObject({ kind: "rewritten", file: "t.jsonl" });
      expect(capture.kind === "rewritten" && capture.message).toContain(what);
    }
    const renamed = new FakeHome();
    renamed.files.set("other.jsonl", Buffer.from("one\ntwo\nthree\n"));
    expect(await portable(renamed).capture(stored, where)).toMatchObject({ kind: "rewritten", file: "t.jsonl" });
  });

  it("a stored file's path holding a link, FIFO or folder after the turn (the export's DriverError INVALID / IS_DIRECTORY) is a rewrite carrying that refusal, not a skipped capture", async () => {
    const { stored, portable } = await twoTurns();
    for (const code of [ErrCode.Invalid, ErrCode.IsDirectory]) {
      const home = new FakeHome();
      const refused = new DriverError({
        op: "read session file",
        device: "/home/projects/t.jsonl",
        code,
        cause: "a symbolic link, not a regular file",
      });
      home.exportSession = () => Promise.reject(refused);
      const capture = await portable(home).capture(stored, where);
      expect(capture).toMatchObject({ kind: "rewritten", file: "t.jsonl", cause: refused });
      expect(capture.kind === "rewritten" && capture.message).toContain("a symbolic link, not a regular file");
    }
    const unreadable = new FakeHome();
    const denied = Object.assign(new Error("EACCES: permission denied"), { code: "EACCES" });
    unreadable.exportSession = () => Promise.reject(denied);
    expect(await portable(unreadable).capture(stored, where)).toMatchObject({ kind: "skipped", reason: "not_exported", cause: denied });
  });

  it("no session files, an export error, or state over the limit are skipped captures with their reason", async () => {
    const store = new MemoryThreadStore();
    const empty = new FakeHome();
    expect(await new PortableSessions(store.sessionState!, empty, 100, "k").capture(undefined, where)).toMatchObject({
      kind: "skipped",
      reason: "not_exported",
    });
    const broken = new FakeHome();
    const boom = new Error("EACCES");
    broken.exportSession = () => Promise.reject(boom);
    expect(await new PortableSessions(store.sessionState!, broken, 100, "k").capture(undefined, where)).toMatchObject({
      kind: "skipped",
      reason: "not_exported",
      cause: boom,
    });
    const big = new FakeHome();
    big.files.set("t.jsonl", Buffer.from(Array.from({ length: 4000 }, (_, i) => String.fromCharCode(33 + ((i * 7919) % 90))).join("")));
    expect(await new PortableSessions(store.sessionState!, big, 100, "k").capture(undefined, where)).toMatchObject({
      kind: "skipped",
      reason: "too_large",
    });
  });

  it("a session file longer than the driver reads (DriverError RESOURCE_EXHAUSTED from the export) is a too_large skip, not not_exported", async () => {
    const store = new MemoryThreadStore();
    const huge = new FakeHome();
    const refused = new DriverError({
      op: "read session file",
      device: "/home/t.jsonl",
      code: ErrCode.ResourceExhausted,
      cause: "2147483648 bytes",
    });
    huge.exportSession = () => Promise.reject(refused);
    expect(await new PortableSessions(store.sessionState!, huge, 1_000_000, "k").capture(undefined, where)).toMatchObject({
      kind: "skipped",
      reason: "too_large",
      cause: refused,
    });
    const fifo = new FakeHome();
    const invalid = new DriverError({ op: "read session file", device: "/home/t.jsonl", code: ErrCode.Invalid, cause: "a FIFO" });
    fifo.exportSession = () => Promise.reject(invalid);
    expect(await new PortableSessions(store.sessionState!, fifo, 1_000_000, "k").capture(undefined, where)).toMatchObject({
      kind: "skipped",
      reason: "not_exported",
      cause: invalid,
    });
  });

  it("restore writes the stored files into a home that lacks them, diverged, or holds bytes past them (no turn's), and keeps an exact copy", async () => {
    const { stored, portable } = await twoTurns();
    const fresh = new FakeHome();
    expect(await portable(fresh).restore("rec-1", stored, where)).toBe("restored");
    expect(fresh.files.get("t.jsonl")?.toString()).toBe("one\ntwo\n");
    const grown = new FakeHome();
    grown.files.set("t.jsonl", Buffer.from("one\ntwo\nfailed turn\n"));
    // Without appendSession, the stored files are written whole over it.
    expect(await portable(grown).restore("rec-1", stored, where)).toBe("restored");
    expect(grown.files.get("t.jsonl")?.toString()).toBe("one\ntwo\n");
    const exact = new FakeHome();
    exact.files.set("t.jsonl", Buffer.from("one\ntwo\n"));
    expect(await portable(exact).restore("rec-1", stored, where)).toBe("local");
    expect(exact.imports).toBe(0);
    const diverged = new FakeHome();
    diverged.files.set("t.jsonl", Buffer.from("one\nother\n"));
    expect(await portable(diverged).restore("rec-1", stored, where)).toBe("restored");
    expect(diverged.files.get("t.jsonl")?.toString()).toBe("one\ntwo\n");
  });

  it("damaged stored state (corrupt gzip, a missing segment, a segment of other bytes, a truncated file, an unreadable manifest) is ThreadSessionError damaged matching ErrThreadSessionCorrupt", async () => {
    const { store, stored, portable } = await twoTurns();
    const real = await store.sessionState!.segments("rec-1");
    const withSegments = (segments: Uint8Array[]): PortableSessions =>
      new PortableSessions({ read: store.sessionState!.read, segments: async () => segments }, new FakeHome(), 1_000_000, "k");
    const corrupted = Buffer.from(real[1]!);
    corrupted[corrupted.length - 6] = corrupted[corrupted.length - 6]! ^ 0xff;
    const manifest = stored.manifest as { files: { bytes: number }[] };
    const cases: [PortableSessions, StoredSessionState, string][] = [
      [withSegments([real[0]!, corrupted]), stored, "t.jsonl: segment 1 is not valid gzip"],
      [withSegments([real[0]!]), stored, "t.jsonl misses segment 1"],
      [withSegments([real[0]!, gzipSync("TWO\n")]), stored, "t.jsonl: segment 1 does not match its checksum"],
      [withSegments([real[0]!, real[1]!.subarray(0, real[1]!.length - 4)]), stored, "t.jsonl: segment 1 is not valid gzip"],
      [
        portable(new FakeHome()),
        { ...stored, manifest: { ...manifest, files: [{ ...manifest.files[0], bytes: 99 }] } },
        "t.jsonl does not match its checksum",
      ],
      [portable(new FakeHome()), { ...stored, manifest: { v: 1, format: "fake/v1", files: "?" } }, "not one of this driver's format"],
      [portable(new FakeHome()), { ...stored, manifest: { ...manifest, format: "other/v1" } }, "not one of this driver's format"],
      [portable(new FakeHome()), { ...stored, manifest: '{"v":1,"files":[{"na' }, "not one of this driver's format"],
    ];
    for (const [sessions, state, message] of cases) {
      const err = await restoreFails(sessions, state);
      expect(err.reason).toBe("damaged");
      expect(err.key).toBe("k");
      expect(err.message).toContain(message);
      expect(isError(err, ErrThreadSessionCorrupt)).toBe(true);
      expect(isError(err, ErrThreadSessionUnavailable)).toBe(true);
    }
    const zlib = await restoreFails(cases[0]![0], stored);
    expect((zlib.cause as NodeJS.ErrnoException).code).toMatch(/^Z_/);
  });

  it("a manifest naming a path outside the CLI home, a session id that is a path, a name twice, or its segments in another order is damaged before anything is written", async () => {
    const { store, stored, portable } = await twoTurns();
    const manifest = stored.manifest as { files: { name: string; segments: number[]; segmentSha256: string[] }[] };
    const [file] = manifest.files;
    const withFiles = (...files: object[]): StoredSessionState => ({ ...stored, manifest: { ...manifest, files } });
    const cases: [StoredSessionState, SessionLocation, string][] = [
      [withFiles({ ...file, name: "../../../../tmp/x.jsonl" }), where, 'file name "../../../../tmp/x.jsonl"'],
      [withFiles({ ...file, name: "/tmp/x.jsonl" }), where, 'file name "/tmp/x.jsonl"'],
      [withFiles({ ...file, name: "a\\..\\x.jsonl" }), where, "is not a session file's"],
      [withFiles(file!, { ...file, name: "sub/../../x" }), where, 'file name "sub/../../x"'],
      [withFiles(file!, { ...file }), where, 'file name "t.jsonl" is there twice'],
      [stored, { resumeId: "../../../../tmp/x" }, "session id"],
      [stored, { resumeId: "/tmp/x" }, "session id"],
      [stored, { resumeId: ".." }, "session id"],
      [
        withFiles({ ...file, segments: [...file!.segments].reverse(), segmentSha256: [...file!.segmentSha256].reverse() }),
        where,
        "segments of t.jsonl (1, 0) are not in the order they were stored",
      ],
    ];
    for (const [state, location, message] of cases) {
      const home = new FakeHome();
      const err = await portable(home)
        .restore("rec-1", state, location)
        .catch((e: unknown) => e);
      expect(findError(err, ThreadSessionError)?.reason, message).toBe("damaged");
      expect(String(err)).toContain(message);
      expect(home.imports).toBe(0);
    }
    // The store's segments swapped with the manifest's hashes: each matches its own, the file does not end as stored.
    const real = await store.sessionState!.segments("rec-1");
    const swapped = new PortableSessions(
      { read: store.sessionState!.read, segments: async () => [real[1]!, real[0]!] },
      new FakeHome(),
      1_000_000,
      "k",
    );
    const hashesSwapped = withFiles({ ...file, segmentSha256: [...file!.segmentSha256].reverse() });
    const err = await restoreFails(swapped, hashesSwapped);
    expect(err.reason).toBe("damaged");
    expect(err.message).toContain("t.jsonl does not end with the bytes it ended with when stored");
  });

  it("stored segments of unequal length swapped along with their hashes are damaged: each ends where its manifest entry says", async () => {
    const store = new MemoryThreadStore();
    const home = new FakeHome();
    const portable = new PortableSessions(store.sessionState!, home, 1_000_000, "k");
    home.files.set("t.jsonl", Buffer.from("a\n"));
    await store.finalize({ leases: [], record: sessionRecord(), sessionState: written(await portable.capture(undefined, where)) });
    home.files.set("t.jsonl", Buffer.from("a\nbbbb\n"));
    const second = written(await portable.capture(await store.sessionState!.read("rec-1"), where));
    await store.finalize({ leases: [], record: sessionRecord(), sessionState: second });
    const stored = (await store.sessionState!.read("rec-1"))!;
    const manifest = stored.manifest as { files: { segmentSha256: string[] }[] };
    const real = await store.sessionState!.segments("rec-1");
    const swapped = new PortableSessions(
      { read: store.sessionState!.read, segments: async () => [real[1]!, real[0]!] },
      new FakeHome(),
      1_000_000,
      "k",
    );
    const files = [{ ...manifest.files[0], segmentSha256: [...manifest.files[0]!.segmentSha256].reverse() }];
    const err = await restoreFails(swapped, { ...stored, manifest: { ...manifest, files } });
    expect(err.reason).toBe("damaged");
    expect(err.message).toContain("t.jsonl: segment 0 is not as long as where it ends says");
  });

  it("files the driver refuses to place by name (its TypeError, before writing) are damaged, not restore_failed", async () => {
    const { stored, portable } = await twoTurns();
    const picky = new FakeHome();
    const refused = new TypeError("fake session import: expected exactly t.jsonl, got a/b/t.jsonl");
    picky.importSession = () => Promise.reject(refused);
    const err = await restoreFails(portable(picky), stored);
    expect(err).toMatchObject({ reason: "damaged", cause: refused });
    expect(isError(err, ErrThreadSessionCorrupt)).toBe(true);
  });

  it("a CLI home the files cannot be written into is ThreadSessionError restore_failed (ErrThreadSessionUnavailable, not Corrupt)", async () => {
    const { stored, portable } = await twoTurns();
    const readOnly = new FakeHome();
    const denied = new Error("EACCES");
    readOnly.importSession = () => Promise.reject(denied);
    const err = await restoreFails(portable(readOnly), stored);
    expect(err).toMatchObject({ reason: "restore_failed", cause: denied });
    expect(isError(err, ErrThreadSessionUnavailable)).toBe(true);
    expect(isError(err, ErrThreadSessionCorrupt)).toBe(false);
  });

  it("state stored by an earlier version (whole-file sha256, no segment hashes) still restores, and its next capture replaces it once", async () => {
    const store = new MemoryThreadStore();
    const content = Buffer.from("one\ntwo\n");
    const manifest = {
      v: 1,
      format: "fake/v1",
      compression: "gzip",
      files: [{ name: "t.jsonl", bytes: 8, sha256: sha256(content), segments: [0, 1] }],
    };
    await store.finalize({
      leases: [],
      record: sessionRecord(),
      sessionState: { mode: "replace", segments: [gzipSync("one\n"), gzipSync("two\n")], manifest, limitBytes: 1_000_000 },
    });
    const home = new FakeHome();
    const portable = new PortableSessions(store.sessionState!, home, 1_000_000, "k");
    const stored = (await store.sessionState!.read("rec-1"))!;
    expect(await portable.restore("rec-1", stored, where)).toBe("restored");
    expect(home.files.get("t.jsonl")?.toString()).toBe("one\ntwo\n");
    home.files.set("t.jsonl", Buffer.from("one\ntwo\nthree\n"));
    const next = written(await portable.capture(stored, where));
    expect(next.mode).toBe("replace");
    expect(next.segments.map((s) => gunzipSync(s).toString())).toEqual(["one\ntwo\nthree\n"]);
    home.files.set("t.jsonl", Buffer.from("two\n"));
    expect(await portable.capture(stored, where)).toMatchObject({ kind: "rewritten" });
  });
});
