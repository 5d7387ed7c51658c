import { mkdtemp, open, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { scanLines, type ScannedLine } from "./transcript-lines.js";

const ENTRY = "22222222-2222-4222-8222-222222222222";
const NESTED = "99999999-9999-4999-8999-999999999999";
/** Bytes the scan reads at a time (its `SCAN_CHUNK_BYTES`). */
const CHUNK = 256 * 1024;

let dir: string | undefined;
afterEach(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
  dir = undefined;
});

/** The lines `scanLines` hands for a file of `text`, lines over `maxLineBytes` handed as oversized. */
async function scan(text: string, maxLineBytes: number): Promise<ScannedLine[]> {
  dir = await mkdtemp(join(tmpdir(), "transcript-lines-"));
  const file = join(dir, "t.jsonl");
  await writeFile(file, text);
  const handle = await open(file);
  try {
    const lines: ScannedLine[] = [];
    await scanLines(handle, (await handle.stat()).size, maxLineBytes, (line) => lines.push(line));
    return lines;
  } finally {
    await handle.close();
  }
}

/** An assistant entry whose tool call's input holds a `uuid`, `timestamp` pair of its own, before the entry's. */
function entryWithNestedPair(blob: string): string {
  return JSON.stringify({
    parentUuid: null,
    type: "assistant",
    message: {
      role: "assistant",
      content: [{ type: "tool_use", id: "t1", name: "insert", input: { rows: [{ uuid: NESTED, timestamp: "2026-01-01", blob }] } }],
    },
    uuid: ENTRY,
    timestamp: "2026-12-07T09:00:01.000Z",
  });
}

describe("scanLines: the uuid of an entry longer than the scan keeps", () => {
  it("is the entry's own top-level uuid, not a uuid, timestamp pair nested in a tool call's input before it", async () => {
    const line = entryWithNestedPair("x".repeat(5000));
    const [scanned] = await scan(`${line}\n`, 1024);
    expect(scanned!.oversized?.uuid).toBe(ENTRY);
    expect(scanned!.length).toBe(Buffer.byteLength(line));
  });

  it("skips pairs inside strings and nested objects across pieces: the nesting, a string and an escape cut at a piece's end carry over", async () => {
    // A blob with quotes, escapes, braces and a pair of its own as text, long enough that the
    // line spans pieces; the entry's pair is then placed across the first piece's end.
    const noise = '{"uuid":"' + NESTED + '","timestamp":"x"} \\ [ { ';
    const blob = noise.repeat(Math.ceil((CHUNK * 1.5) / noise.length));
    const line = entryWithNestedPair(blob);
    const [scanned] = await scan(`${line}\n`, 1024);
    expect(scanned!.oversized?.uuid).toBe(ENTRY);

    const shorter = noise.repeat(Math.floor((CHUNK * 0.8) / noise.length));
    const at = entryWithNestedPair(shorter).indexOf(`"uuid":"${ENTRY}"`);
    const across = entryWithNestedPair(shorter + "a".repeat(CHUNK - 20 - at));
    expect(across.indexOf(`"uuid":"${ENTRY}"`)).toBe(CHUNK - 20);
    const [cut] = await scan(`${across}\n`, 1024);
    expect(cut!.oversized?.uuid).toBe(ENTRY);
  });

  it("an entry with only nested pairs has no uuid; the next line is scanned afresh", async () => {
    const nestedOnly = JSON.stringify({ type: "system", data: { uuid: NESTED, timestamp: "t", blob: "y".repeat(3000) } });
    const next = entryWithNestedPair("z".repeat(3000));
    const lines = await scan(`${nestedOnly}\n${next}\n`, 1024);
    expect(lines.map((l) => l.oversized?.uuid)).toEqual([undefined, ENTRY]);
  });
});
