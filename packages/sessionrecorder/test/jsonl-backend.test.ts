// The durable JSONL backend beyond the shared behaviour (backend-conformance.test.ts): the sequence across restarts, each kind of
// corruption reported precisely, explicit repair of a torn final line only, closed-backend errors.
import { mkdirSync, readFileSync } from "node:fs";
import { appendFile, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { hostname, tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DriverError, ErrCode, InvalidOptionError, findError, isError } from "@adaptor/errors";
import { ErrJSONLEventLogCorrupt, EventLogCorruptError, JsonlEventBackend, type RecordedEvent } from "@adaptor/sessionrecorder";

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "adaptor-jsonl-backend-"));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

let n = 0;
/** A new, existing root directory. */
function freshRoot(): string {
  const root = join(dir, `root-${++n}`);
  mkdirSync(root);
  return root;
}

async function replayAll(backend: JsonlEventBackend, key: string): Promise<RecordedEvent[]> {
  const out: RecordedEvent[] = [];
  for await (const record of backend.replay(key)) out.push(record);
  return out;
}

async function replayError(backend: JsonlEventBackend, key: string): Promise<{ records: RecordedEvent[]; error: EventLogCorruptError }> {
  const records: RecordedEvent[] = [];
  try {
    for await (const record of backend.replay(key)) records.push(record);
  } catch (error) {
    const corrupt = findError(error, EventLogCorruptError);
    if (!corrupt) throw error;
    expect(isError(error, ErrJSONLEventLogCorrupt)).toBe(true);
    return { records, error: corrupt };
  }
  throw new Error("replay did not report corruption");
}

const line = (sequence: number, event: unknown = { n: sequence }): string =>
  JSON.stringify({ sequence, recordedAt: "2026-01-01T00:00:00.000Z", event }) + "\n";

describe("JsonlEventBackend", () => {
  it("a root that does not exist yet is created with its missing parents on first use", async () => {
    const root = join(dir, `deep-${++n}`, "a", "b");
    const backend = new JsonlEventBackend({ root });
    const writer = await backend.openWriter("k");
    await writer.append({ n: 1 });
    await writer.close();
    expect(await readFile(join(root, "k.jsonl"), "utf8")).toContain('"event":{"n":1}');
    await backend.close();
  });

  it("a writer's lock file names this process: its pid, host and start time (field 22 of /proc/<pid>/stat)", async () => {
    const root = freshRoot();
    const backend = new JsonlEventBackend({ root });
    const writer = await backend.openWriter("locked");
    const lock = JSON.parse(await readFile(join(root, "locked.jsonl.lock"), "utf8")) as Record<string, unknown>;
    const stat = readFileSync(`/proc/${process.pid}/stat`, "utf8");
    expect(lock).toMatchObject({ pid: process.pid, hostname: hostname(), startTime: stat.slice(stat.lastIndexOf(")") + 2).split(" ")[19] });
    await writer.close();
    await backend.close();
  });

  it("lines ending in CRLF are accepted: replay yields them and a writer continues their sequence", async () => {
    const root = freshRoot();
    await writeFile(join(root, "crlf.jsonl"), line(1).replace("\n", "\r\n") + line(2).replace("\n", "\r\n"));
    const backend = new JsonlEventBackend({ root });
    expect((await replayAll(backend, "crlf")).map((r) => [r.sequence, r.event])).toEqual([
      [1, { n: 1 }],
      [2, { n: 2 }],
    ]);
    const writer = await backend.openWriter("crlf");
    expect((await writer.append({ n: 3 })).sequence).toBe(3);
    await writer.close();
    expect((await replayAll(backend, "crlf")).map((r) => r.sequence)).toEqual([1, 2, 3]);
    await backend.close();
  });

  it("the sequence continues across writers and across a restart (a new backend on the same root)", async () => {
    const root = freshRoot();
    const first = new JsonlEventBackend({ root });
    const w1 = await first.openWriter("thread-7");
    await w1.append("turn 1 a");
    await w1.append("turn 1 b");
    await w1.close();
    const w2 = await first.openWriter("thread-7");
    expect(w2.lastSequence).toBe(2);
    expect((await w2.append("turn 2")).sequence).toBe(3);
    await first.close();
    const restarted = new JsonlEventBackend({ root, fsync: "never" });
    const w3 = await restarted.openWriter("thread-7");
    expect(w3.lastSequence).toBe(3);
    expect((await w3.append("after restart")).sequence).toBe(4);
    await w3.close();
    expect((await replayAll(restarted, "thread-7")).map((r) => [r.sequence, r.event])).toEqual([
      [1, "turn 1 a"],
      [2, "turn 1 b"],
      [3, "turn 2"],
      [4, "after restart"],
    ]);
    await restarted.close();
  });

  it("torn final line: openWriter and replay report it (repairable, same line and byte), repair() cuts it, the sequence continues", async () => {
    const root = freshRoot();
    const backend = new JsonlEventBackend({ root });
    await writeFile(join(root, "torn.jsonl"), line(1) + line(2) + '{"sequence":3,"recordedAt":"2026-01-01T00:0');
    const open = await backend.openWriter("torn").catch((e: unknown) => e);
    expect(findError(open, EventLogCorruptError)).toMatchObject({ kind: "torn-final-line", repairable: true, key: "torn" });
    const { records, error } = await replayError(backend, "torn");
    // openWriter and replay name the same line and byte of the same tear.
    const openError = findError(open, EventLogCorruptError)!;
    expect([openError.line, openError.offset]).toEqual([error.line, error.offset]);
    expect(records.map((r) => r.sequence)).toEqual([1, 2]);
    expect([error.kind, error.line, error.offset, error.repairable]).toEqual(["torn-final-line", 3, line(1).length * 2, true]);
    const report = await backend.repair("torn");
    expect(report).toEqual({ key: "torn", truncatedBytes: '{"sequence":3,"recordedAt":"2026-01-01T00:0'.length, lastSequence: 2 });
    expect(await readFile(join(root, "torn.jsonl"), "utf8")).toBe(line(1) + line(2));
    expect(await backend.repair("torn")).toEqual({ key: "torn", truncatedBytes: 0, lastSequence: 2 });
    const writer = await backend.openWriter("torn");
    expect((await writer.append("next")).sequence).toBe(3);
    await backend.close();
  });

  it("a tear at every byte of the last record is reported as a torn final line and repaired back to the records before it", async () => {
    const root = freshRoot();
    const backend = new JsonlEventBackend({ root });
    const writer = await backend.openWriter("cut");
    for (const text of ["first", "second", "third \u00e9\u{1F600} with multi-byte text"]) await writer.append({ text });
    await writer.close();
    const bytes = await readFile(join(root, "cut.jsonl"));
    const boundary = bytes.subarray(0, bytes.length - 1).lastIndexOf(0x0a) + 1;
    let cuts = 0;
    for (let cut = boundary + 1; cut < bytes.length; cut++) {
      await writeFile(join(root, "cut-copy.jsonl"), bytes.subarray(0, cut));
      const { records, error } = await replayError(backend, "cut-copy");
      expect([records.length, error.kind, error.line, error.offset]).toEqual([2, "torn-final-line", 3, boundary]);
      expect(await backend.repair("cut-copy")).toEqual({ key: "cut-copy", truncatedBytes: cut - boundary, lastSequence: 2 });
      expect((await replayAll(backend, "cut-copy")).map((r) => r.event)).toEqual([{ text: "first" }, { text: "second" }]);
      cuts++;
    }
    expect(cuts).toBe(bytes.length - boundary - 1);
    await backend.close();
  });

  it("a complete final record without its newline is still a torn line (its append never resolved)", async () => {
    const root = freshRoot();
    const backend = new JsonlEventBackend({ root });
    await writeFile(join(root, "k.jsonl"), line(1) + line(2).trimEnd());
    const { records, error } = await replayError(backend, "k");
    expect([records.length, error.kind]).toEqual([1, "torn-final-line"]);
    expect((await backend.repair("k")).lastSequence).toBe(1);
    await backend.close();
  });

  const faults: readonly (readonly [string, string, string, number, number | undefined, number | undefined])[] = [
    ["malformed line in the middle", line(1) + "{not json\n" + line(2), "malformed-line", 2, undefined, undefined],
    ["record without a sequence", line(1) + '{"recordedAt":"x","event":1}\n', "malformed-line", 2, undefined, undefined],
    ["sequence gap", line(1) + line(2) + line(4), "sequence-gap", 3, 3, 4],
    ["duplicated sequence", line(1) + line(2) + line(2), "duplicate-sequence", 3, 3, 2],
    ["log not starting at 1", line(2), "sequence-gap", 1, 1, 2],
    ["blank line", line(1) + "\n" + line(2), "malformed-line", 2, undefined, undefined],
  ];
  it.each(faults)(
    "%s: replay yields the records before it, then throws with kind, line and offset; repair refuses and changes nothing",
    async (_name, content, kind, lineNo, expected, found) => {
      const root = freshRoot();
      const backend = new JsonlEventBackend({ root });
      await writeFile(join(root, "bad.jsonl"), content);
      const { records, error } = await replayError(backend, "bad");
      expect(records).toHaveLength(lineNo - 1);
      expect([error.kind, error.line, error.repairable, error.expectedSequence, error.foundSequence]).toEqual([
        kind,
        lineNo,
        false,
        expected,
        found,
      ]);
      expect(error.offset).toBe(
        content
          .split("\n")
          .slice(0, lineNo - 1)
          .join("\n").length + (lineNo > 1 ? 1 : 0),
      );
      const repair = await backend.repair("bad").catch((e: unknown) => e);
      expect(findError(repair, EventLogCorruptError)?.kind).toBe(kind);
      expect(await readFile(join(root, "bad.jsonl"), "utf8")).toBe(content);
      await backend.close();
    },
  );

  it("a record longer than maxLineBytes is refused with RESOURCE_EXHAUSTED", async () => {
    const backend = new JsonlEventBackend({ root: freshRoot(), maxLineBytes: 1024 });
    const writer = await backend.openWriter("k");
    const err = await writer.append("x".repeat(2000)).catch((e: unknown) => e);
    expect(findError(err, DriverError)?.code).toBe(ErrCode.ResourceExhausted);
    expect(writer.lastSequence).toBe(0);
    await backend.close();
  });

  it("refuses bad options with InvalidOptionError naming the field", () => {
    const field = (fn: () => unknown): string | undefined => {
      try {
        fn();
      } catch (error) {
        return findError(error, InvalidOptionError)?.field;
      }
      return undefined;
    };
    expect(field(() => new JsonlEventBackend({ root: "" }))).toBe("root");
    expect(field(() => new JsonlEventBackend({} as never))).toBe("root");
    expect(field(() => new JsonlEventBackend({ root: dir, fsync: "sometimes" as never }))).toBe("fsync");
    expect(field(() => new JsonlEventBackend({ root: dir, maxLineBytes: 0 }))).toBe("maxLineBytes");
    expect(field(() => new JsonlEventBackend({ root: dir, fsynk: "always" } as never))).toBe("fsynk");
  });

  it("appends after an earlier process's records on disk continue its sequence (host-side sequence survives restarts)", async () => {
    const root = freshRoot();
    const backend = new JsonlEventBackend({ root });
    await writeFile(join(root, "k.jsonl"), line(1) + line(2));
    await appendFile(join(root, "k.jsonl"), line(3));
    const writer = await backend.openWriter("k");
    expect((await writer.append("4th")).sequence).toBe(4);
    await backend.close();
  });
});
