import { randomUUID } from "node:crypto";
import { text as streamText } from "node:stream/consumers";
import { getHeapSnapshot } from "node:v8";
import { describe, expect, it } from "vitest";
import { TextDeltaLineReader } from "./text-delta-line.js";

const SESSION = "faafdc72-86fd-44e3-8500-4f233e1579e0";

/** A text-delta line as claude 2.1.332 writes it with `--include-partial-messages` (key order included). */
function deltaLine(text: string, tail: Record<string, unknown> = {}, index = 0): string {
  return JSON.stringify({
    type: "stream_event",
    event: { type: "content_block_delta", index, delta: { type: "text_delta", text } },
    session_id: SESSION,
    parent_tool_use_id: null,
    uuid: "a3488bba-471b-47fc-be4f-c5c376195fa7",
    api_message_id: "msg_fake_1",
    ...tail,
  });
}

const TEXTS = [
  "token1 ",
  'Streaming "works',
  '" in é several\n ',
  "small pieces 😀.",
  "tab\tand\\backslash and \u2028 line separator",
  "\ud83d", // a lone surrogate, as JSON.stringify escapes it
  "x".repeat(5000),
  "a\u0000b\u001fc",
];

/** What the slow path reads from a line: the text of a non-empty text_delta of an untagged stream_event, else undefined. */
function parsedText(line: string): string | undefined {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return undefined;
  }
  const v = value as Record<string, unknown> & { event?: { type?: unknown; delta?: { type?: unknown; text?: unknown } } };
  if (v === null || typeof v !== "object" || v.type !== "stream_event" || v.event?.type !== "content_block_delta") return undefined;
  if (v.event.delta?.type !== "text_delta" || typeof v.event.delta.text !== "string" || v.event.delta.text === "") return undefined;
  return v.event.delta.text;
}

/** Keys of a parsed line outside the event: none of them may tag the line with a prompt. */
const ALLOWED_KEYS = ["type", "event", "session_id", "parent_tool_use_id", "uuid", "api_message_id"];

/** A reader that learned the shape of `line` (as the session does after parsing it). */
function learned(line: string): TextDeltaLineReader {
  const reader = new TextDeltaLineReader();
  reader.learn(line, JSON.parse(line) as Record<string, unknown>);
  expect(reader.read(line), `learned ${line.slice(0, 160)}`).toBe(parsedText(line));
  return reader;
}

/** A text-delta line with its keys in the given orders. */
function ordered(text: string, uuid: string, top: readonly string[], inEvent: readonly string[], inDelta: readonly string[]): string {
  const values: Record<string, unknown> = {
    type: "stream_event",
    session_id: SESSION,
    parent_tool_use_id: null,
    uuid,
    api_message_id: "msg_fake_1",
  };
  const deltaValues: Record<string, unknown> = { type: "text_delta", text };
  const delta = Object.fromEntries(inDelta.map((k) => [k, deltaValues[k]]));
  const eventValues: Record<string, unknown> = { type: "content_block_delta", index: 0, delta };
  values.event = Object.fromEntries(inEvent.map((k) => [k, eventValues[k]]));
  return JSON.stringify(Object.fromEntries(top.map((k) => [k, values[k]])));
}

function permutations<T>(items: readonly T[]): T[][] {
  if (items.length <= 1) return [[...items]];
  return items.flatMap((item, i) => permutations([...items.slice(0, i), ...items.slice(i + 1)]).map((rest) => [item, ...rest]));
}

/**
 * Whether a string beginning with `prefix` + `id` is on this process's heap (a heap snapshot
 * collects garbage first, and names each string by its first characters). The needle is made after
 * the snapshot, so that it is not itself on the heap.
 */
async function onHeap(prefix: string, id: string): Promise<boolean> {
  const snapshot = await streamText(getHeapSnapshot());
  return snapshot.includes(prefix + id);
}

describe("TextDeltaLineReader", () => {
  it("keeps no part of a line it read, so the stdout chunk the line was cut from can go while the turn waits", async () => {
    const reader = learned(deltaLine("seed"));
    const id = randomUUID();
    // A decoded stdout chunk, as the session gets it, with the line cut from it (a slice: the
    // values read from it, such as the session id, are slices of the chunk too; a text this short
    // is a copy, and what the caller does with a longer one is the caller's).
    const read = ((): string | undefined => {
      const chunk = `{"type":"system","note":"chunk-${id}"}\n${deltaLine("short text")}\n`;
      const start = chunk.indexOf("\n") + 1;
      return reader.read(chunk.slice(start, chunk.length - 1), SESSION);
    })();
    expect(read).toBe("short text");
    /^x$/.test("x"); // the engine keeps the last regular-expression subject (the line) until the next match
    expect(await onHeap("chunk-", id)).toBe(false);
    expect(reader.read(deltaLine("next"), SESSION)).toBe("next");
  });

  it("reads the text of claude's text-delta line exactly as JSON.parse gives it, once it learned the line's shape", () => {
    for (const tail of [{}, { api_message_id: undefined }, { parent_tool_use_id: "toolu_1" }, { uuid: "u1" }]) {
      for (const index of [0, 1, 12]) {
        const reader = learned(deltaLine("seed", tail, index));
        for (const text of TEXTS) {
          const line = deltaLine(text, { ...tail, uuid: `u-${text.length}` }, index);
          expect(reader.read(line), line.slice(0, 160)).toBe(parsedText(line));
          expect(reader.read(line)).toBe(text);
        }
      }
    }
  });

  it("reads text-delta lines with their keys in any order as JSON.parse reads them", () => {
    const events = permutations(["type", "index", "delta"]);
    const deltas = permutations(["type", "text"]);
    let shapes = 0;
    for (const top of permutations(["type", "event", "session_id", "parent_tool_use_id", "uuid", "api_message_id"])) {
      const inEvent = events[shapes % events.length]!;
      const inDelta = deltas[Math.floor(shapes / events.length) % deltas.length]!;
      const reader = learned(ordered("seed", "u-seed", top, inEvent, inDelta));
      for (const text of TEXTS) {
        const line = ordered(text, `u-${text.length}`, top, inEvent, inDelta);
        expect(reader.read(line), line.slice(0, 160)).toBe(text);
      }
      // Another order is another shape: left to the parse.
      if (top[0] !== "type" || inEvent[0] !== "type" || inDelta[0] !== "type") expect(reader.read(deltaLine("x"))).toBeUndefined();
      shapes++;
    }
    expect(shapes).toBe(720);
  });

  it("learns nothing from a line that is not a compact untagged text delta", () => {
    const notLearned = [
      `{"type": "stream_event", "event": {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "spaced"}}, "session_id": "s", "parent_tool_use_id": null, "uuid": "u"}`,
      deltaLine("x").replace('"uuid"', '"uuid":"dup","uuid"'),
      deltaLine("x", { user_message_uuid: "p1" }),
      deltaLine(""),
      deltaLine("x", { parent_tool_use_id: 7 }),
      deltaLine("x", { parent_tool_use_id: "\u2060adaptor-uuid\u2060" }), // a marker in a constant part
      deltaLine("x").replace('"index":0', '"index":1.5'),
      JSON.stringify({
        type: "stream_event",
        event: { type: "content_block_delta", index: 0, delta: { type: "thinking_delta", thinking: "t" } },
      }),
    ];
    for (const line of notLearned) {
      const reader = new TextDeltaLineReader();
      let parsed: unknown;
      try {
        parsed = JSON.parse(line);
      } catch {
        continue;
      }
      reader.learn(line, parsed as Record<string, unknown>);
      expect(reader.read(line), line).toBeUndefined();
    }
  });

  it("reads a delta of any session id JSON writes without escapes as the parse reads it, so every process learns one shape", () => {
    const other = "0d4c1c39-5a0e-4d5f-9a57-3f1d8e2b7c61";
    const ours = learned(deltaLine("seed"));
    const theirs = learned(deltaLine("seed", { session_id: other }));
    for (const text of TEXTS) {
      for (const line of [deltaLine(text), deltaLine(text, { session_id: other }), deltaLine(text, { session_id: "" })]) {
        expect(ours.read(line), line.slice(0, 160)).toBe(parsedText(line));
        expect(theirs.read(line), line.slice(0, 160)).toBe(parsedText(line));
      }
    }
    for (const session_id of ['quo"te', "back\\slash", "tab\there", "\u0001"]) {
      const line = deltaLine("x", { session_id });
      expect(ours.read(line), line).toBeUndefined();
      // Learned from such a line, the shape is the same: it refuses that line and reads a plain one.
      const reader = new TextDeltaLineReader();
      reader.learn(line, JSON.parse(line) as Record<string, unknown>);
      expect(reader.read(line), line).toBeUndefined();
      expect(reader.read(deltaLine("x")), line).toBe("x");
    }
  });

  it("given the turn's session id, refuses a delta of another session, even one whose text spells the session's key", () => {
    const other = "0d4c1c39-5a0e-4d5f-9a57-3f1d8e2b7c61";
    const reader = learned(deltaLine("seed"));
    for (const text of TEXTS) expect(reader.read(deltaLine(text), SESSION)).toBe(parsedText(deltaLine(text)));
    expect(reader.read(deltaLine("x", { session_id: other }), SESSION)).toBeUndefined();
    expect(reader.read(deltaLine("x", { session_id: other }), other)).toBe("x");
    expect(reader.read(deltaLine("x", { session_id: "" }), SESSION)).toBeUndefined();
    const spelled = `"session_id":"${SESSION}"`;
    expect(reader.read(deltaLine(spelled, { session_id: other }), SESSION)).toBeUndefined();
    expect(reader.read(deltaLine(spelled), SESSION)).toBe(spelled);
  });

  it("refuses every other line, leaving it to the caller's parse", () => {
    const good = deltaLine("hello");
    expect(new TextDeltaLineReader().read(good)).toBeUndefined(); // nothing learned yet
    const reader = learned(deltaLine("seed"));
    const refused = [
      deltaLine(""),
      deltaLine("x", { user_message_uuid: "p1" }),
      deltaLine("x", { session_id: 'quo"te' }),
      deltaLine("x", { uuid: "back\\slash" }),
      deltaLine("x", { parent_tool_use_id: 7 }),
      deltaLine("x", { type: "stream_event", extra: true }),
      JSON.stringify({
        type: "stream_event",
        event: { type: "content_block_delta", index: 0, delta: { type: "thinking_delta", thinking: "t" } },
      }),
      JSON.stringify({
        type: "stream_event",
        event: { type: "content_block_delta", index: 0, delta: { type: "text_delta", text: "x", more: 1 } },
        session_id: SESSION,
        parent_tool_use_id: null,
        uuid: "u",
      }),
      JSON.stringify({
        event: { type: "content_block_delta", index: 0, delta: { type: "text_delta", text: "x" } },
        type: "stream_event",
        session_id: SESSION,
        parent_tool_use_id: null,
        uuid: "u",
      }),
      JSON.stringify({
        type: "stream_event",
        event: { type: "content_block_delta", index: 0, delta: { type: "text_delta", text: "x" } },
        uuid: "u",
        session_id: SESSION,
        parent_tool_use_id: null,
      }),
      good.replace('"index":0', '"index":01'),
      good.replace('"index":0', '"index":-1'),
      good.replace('"index":0', '"index":1.5'),
      good.replace('"index":0', '"index": 0'),
      good.replace("hello", "hel\u0001lo"),
      good.replace("hello", "hel\\qlo"),
      good.replace("hello", "hel\\u12lo"),
      `${good} `,
      ` ${good}`,
      good.slice(0, -1),
      `${good}x`,
      `${good}}`,
      "not json",
      "",
    ];
    for (const line of refused) expect(reader.read(line), line).toBeUndefined();
    expect(reader.read(good)).toBe("hello");
  });

  it("after a line was accepted, no mutation of the next line is accepted unless JSON.parse reads the same", () => {
    // Every single-character deletion, and insertion or replacement of characters that matter to
    // JSON, at every position: what the reader accepts must parse to an untagged text delta with that text.
    const bases = [
      deltaLine('tok \\ " é'),
      deltaLine("token1 ", { api_message_id: undefined }),
      ordered(
        'tok \\ " é',
        "u-1",
        ["uuid", "event", "api_message_id", "parent_tool_use_id", "type", "session_id"],
        ["delta", "index", "type"],
        ["text", "type"],
      ),
    ];
    const inserts = ['"', "\\", "}", "{", ",", " ", "\u0001", "0", "a", ":"];
    let accepted = 0;
    for (const base of bases) {
      const variants: string[] = [];
      for (let i = 0; i <= base.length; i++) {
        if (i < base.length) variants.push(base.slice(0, i) + base.slice(i + 1));
        for (const c of inserts) {
          variants.push(base.slice(0, i) + c + base.slice(i));
          if (i < base.length) variants.push(base.slice(0, i) + c + base.slice(i + 1));
        }
      }
      for (const line of variants) {
        const reader = learned(base);
        const text = reader.read(line);
        if (text === undefined) continue;
        accepted++;
        expect(text, line).toBe(parsedText(line));
        expect(
          Object.keys(JSON.parse(line) as object).every((key) => ALLOWED_KEYS.includes(key)),
          line,
        ).toBe(true);
      }
    }
    expect(accepted).toBeGreaterThan(100); // changes inside the text and ids are still read fast
  });
});
