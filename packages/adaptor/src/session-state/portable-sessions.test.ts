import { gunzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import type { SessionFile, SessionLocation, SessionTransfer } from "@adaptor/driver";
import { isError } from "@adaptor/errors";
import { MemoryThreadStore, type ThreadRecordDraft } from "@adaptor/threadstore";
import { ErrThreadSessionUnavailable } from "../errors/sentinels.js";
import { PortableSessions } from "./portable-sessions.js";

/** A host's CLI home as a map of file name → bytes. */
class FakeHome implements SessionTransfer {
  readonly format = "fake/v1";
  files = new Map<string, Buffer>();
  imports = 0;
  async exportSession(_location: SessionLocation): Promise<readonly SessionFile[] | undefined> {
    if (this.files.size === 0) return undefined;
    return [...this.files].map(([name, content]) => ({ name, content }));
  }
  async importSession(_location: SessionLocation, files: readonly SessionFile[]): Promise<void> {
    this.imports++;
    this.files = new Map(files.map((f) => [f.name, Buffer.from(f.content)]));
  }
}

const where: SessionLocation = { resumeId: "s-1" };

function record(): ThreadRecordDraft {
  const now = new Date();
  return {
    id: "rec-1",
    key: "k",
    status: "active",
    driverType: "fake",
    identity: "",
    fingerprint: "f",
    codec: "json/v1",
    checkpoint: { resumeId: "s-1" },
    createdAt: now,
    updatedAt: now,
  };
}

describe("PortableSessions", () => {
  it("appends only the bytes a file grew by, and replaces everything when a file was rewritten", async () => {
    const store = new MemoryThreadStore();
    const home = new FakeHome();
    const portable = new PortableSessions(store.sessionState!, home, 1_000_000);
    home.files.set("t.jsonl", Buffer.from("line 1\n"));
    const first = await portable.capture(undefined, where);
    expect(first.mode).toBe("replace");
    await store.finalize({ leases: [], record: record(), sessionState: first });
    home.files.set("t.jsonl", Buffer.from("line 1\nline 2\n"));
    const second = await portable.capture(await store.sessionState!.read("rec-1"), where);
    expect(second.mode).toBe("append");
    expect(second.segments.map((s) => gunzipSync(s).toString())).toEqual(["line 2\n"]);
    await store.finalize({ leases: [], record: record(), sessionState: second });
    home.files.set("t.jsonl", Buffer.from("rewritten\n"));
    const third = await portable.capture(await store.sessionState!.read("rec-1"), where);
    expect(third.mode).toBe("replace");
    expect(third.segments.map((s) => gunzipSync(s).toString())).toEqual(["rewritten\n"]);
  });

  it("restore writes the stored files into a home that lacks them or diverged, and keeps a copy that only grew", async () => {
    const store = new MemoryThreadStore();
    const a = new FakeHome();
    const portable = (home: FakeHome) => new PortableSessions(store.sessionState!, home, 1_000_000);
    a.files.set("t.jsonl", Buffer.from("one\n"));
    await store.finalize({ leases: [], record: record(), sessionState: await portable(a).capture(undefined, where) });
    a.files.set("t.jsonl", Buffer.from("one\ntwo\n"));
    await store.finalize({
      leases: [],
      record: record(),
      sessionState: await portable(a).capture(await store.sessionState!.read("rec-1"), where),
    });
    const stored = (await store.sessionState!.read("rec-1"))!;
    const fresh = new FakeHome();
    expect(await portable(fresh).restore("rec-1", stored, where)).toBe("restored");
    expect(fresh.files.get("t.jsonl")?.toString()).toBe("one\ntwo\n");
    const grown = new FakeHome();
    grown.files.set("t.jsonl", Buffer.from("one\ntwo\nfailed turn\n"));
    expect(await portable(grown).restore("rec-1", stored, where)).toBe("local");
    expect(grown.imports).toBe(0);
    const diverged = new FakeHome();
    diverged.files.set("t.jsonl", Buffer.from("one\nother\n"));
    expect(await portable(diverged).restore("rec-1", stored, where)).toBe("restored");
    expect(diverged.files.get("t.jsonl")?.toString()).toBe("one\ntwo\n");
  });

  it("a stored segment that is not valid gzip (a corrupted store row) is ErrThreadSessionUnavailable with the zlib error as cause", async () => {
    const store = new MemoryThreadStore();
    const a = new FakeHome();
    a.files.set("t.jsonl", Buffer.from("one\n"));
    const state = await new PortableSessions(store.sessionState!, a, 1_000_000).capture(undefined, where);
    const corrupted = Buffer.from(state.segments[0]!);
    corrupted[corrupted.length - 6] = corrupted[corrupted.length - 6]! ^ 0xff;
    await store.finalize({ leases: [], record: record(), sessionState: { ...state, segments: [corrupted] } });
    const err = await new PortableSessions(store.sessionState!, new FakeHome(), 1_000_000)
      .restore("rec-1", (await store.sessionState!.read("rec-1"))!, where)
      .catch((e: unknown) => e);
    expect(isError(err, ErrThreadSessionUnavailable)).toBe(true);
    expect((err as Error).message).toContain("t.jsonl: segment 0 is not valid gzip");
    expect(((err as Error).cause as NodeJS.ErrnoException).code).toMatch(/^Z_/);
  });

  it("a checkpoint with no session files on this host, or stored state of another format, is ErrThreadSessionUnavailable", async () => {
    const store = new MemoryThreadStore();
    const empty = new FakeHome();
    const err = await new PortableSessions(store.sessionState!, empty, 100).capture(undefined, where).catch((e: unknown) => e);
    expect(isError(err, ErrThreadSessionUnavailable)).toBe(true);
    const other = await new PortableSessions(store.sessionState!, empty, 100)
      .restore("rec-1", { manifest: { v: 1, format: "other/v1", compression: "gzip", files: [] }, segments: 0, bytes: 0 }, where)
      .catch((e: unknown) => e);
    expect(isError(other, ErrThreadSessionUnavailable)).toBe(true);
  });
});
