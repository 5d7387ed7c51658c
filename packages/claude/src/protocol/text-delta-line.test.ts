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

describe("TextDeltaLineReader", () => {
  it("reads the text of claude's text-delta line exactly as JSON.parse gives it", () => {
    const reader = new TextDeltaLineReader();
    for (const text of TEXTS) {
      for (const tail of [{}, { api_message_id: undefined }, { parent_tool_use_id: "toolu_1" }, { uuid: "u1" }]) {
        for (const index of [0, 1, 12]) {
          const line = deltaLine(text, tail, index);
          expect(reader.read(line), line.slice(0, 160)).toBe(parsedText(line));
          expect(reader.read(line)).toBe(text);
        }
      }
    }
  });

  it("reads the line the real claude 2.1.332 wrote, and the benchmark fixture's shape", () => {
    const reader = new TextDeltaLineReader();
    const real = `{"type":"stream_event","event":{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"\\" in é several\\n "}},"session_id":"${SESSION}","parent_tool_use_id":null,"uuid":"8cab8368-0acb-46cf-afe8-8d4f3c3aa065","api_message_id":"msg_fake_1"}`;
    expect(reader.read(real)).toBe('" in é several\n ');
    const fixture = `{"type":"stream_event","event":{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"token7 "}},"session_id":"${SESSION}","parent_tool_use_id":null,"uuid":"u7"}`;
    expect(reader.read(fixture)).toBe("token7 ");
  });

  it("refuses every other line, leaving it to the caller's parse", () => {
    const reader = new TextDeltaLineReader();
    const good = deltaLine("hello");
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
    const bases = [deltaLine('tok \\ " é'), deltaLine("token1 ", { api_message_id: undefined })];
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
        const reader = new TextDeltaLineReader();
        reader.read(base); // the caches hold the line before
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
