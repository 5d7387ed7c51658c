import { describe, expect, it } from "vitest";
import { DriverError, ErrCode } from "@adaptor/errors";
import { JsonLinesDecoder } from "./json-lines-decoder.js";
import type { OutputLine } from "./output-line.js";

const bytes = (text: string): Buffer => Buffer.from(text, "utf8");

function decodeAll(decoder: JsonLinesDecoder, chunks: readonly Buffer[]): OutputLine[] {
  return [...chunks.flatMap((chunk) => decoder.push(chunk)), ...decoder.end()];
}

function catchError(fn: () => unknown): unknown {
  try {
    fn();
  } catch (err) {
    return err;
  }
  throw new Error("expected a throw");
}

describe("JsonLinesDecoder", () => {
  it("decodes a 4-byte UTF-8 character split in the middle across chunks", () => {
    const line = bytes('{"text":"a😀b"}\n');
    const emoji = line.indexOf(0xf0);
    const decoder = new JsonLinesDecoder();
    expect(decoder.push(line.subarray(0, emoji + 2))).toEqual([]);
    expect(decoder.push(line.subarray(emoji + 2))).toEqual([{ kind: "json", value: { text: "a😀b" }, text: '{"text":"a😀b"}' }]);
  });

  it("decodes a line delivered one byte per chunk", () => {
    const line = bytes('{"é":"ü"}\n');
    const chunks = [...line].map((b) => Buffer.from([b]));
    expect(decodeAll(new JsonLinesDecoder(), chunks)).toEqual([{ kind: "json", value: { é: "ü" }, text: '{"é":"ü"}' }]);
  });

  it("returns several lines of one chunk in order", () => {
    expect(new JsonLinesDecoder().push(bytes('{"n":1}\n{"n":2}\n{"n":3}\n')).map((l) => l.text)).toEqual(['{"n":1}', '{"n":2}', '{"n":3}']);
  });

  it("strips the CR of CRLF line endings, also when CR and LF arrive in different chunks", () => {
    const out = decodeAll(new JsonLinesDecoder(), [bytes('{"a":1}\r\n{"b":2}\r'), bytes("\nplain\r\n")]);
    expect(out).toEqual([
      { kind: "json", value: { a: 1 }, text: '{"a":1}' },
      { kind: "json", value: { b: 2 }, text: '{"b":2}' },
      { kind: "text", text: "plain" },
    ]);
  });

  it("skips blank lines (empty, CR only, whitespace only)", () => {
    expect(decodeAll(new JsonLinesDecoder(), [bytes('\n\r\n   \n{"a":1}\n\n')])).toEqual([
      { kind: "json", value: { a: 1 }, text: '{"a":1}' },
    ]);
  });

  it("returns a non-JSON line as text between JSON lines", () => {
    expect(new JsonLinesDecoder().push(bytes('{"a":1}\nnot json {\n{"b":2}\n'))).toEqual([
      { kind: "json", value: { a: 1 }, text: '{"a":1}' },
      { kind: "text", text: "not json {" },
      { kind: "json", value: { b: 2 }, text: '{"b":2}' },
    ]);
  });

  it("keeps any valid JSON value (array, string, number, null) as kind json", () => {
    expect(new JsonLinesDecoder().push(bytes('[1,2]\n"s"\n42\nnull\n')).map((l) => (l.kind === "json" ? l.value : l))).toEqual([
      [1, 2],
      "s",
      42,
      null,
    ]);
  });

  it("delivers an unterminated final line on end() and resets", () => {
    const decoder = new JsonLinesDecoder();
    expect(decoder.push(bytes('{"a":1}\n{"last":'))).toHaveLength(1);
    expect(decoder.end()).toEqual([{ kind: "text", text: '{"last":' }]);
    expect(decoder.end()).toEqual([]);
    expect(decoder.push(bytes("true\n"))).toEqual([{ kind: "json", value: true, text: "true" }]);
  });

  it("accepts Uint8Array chunks that are not Buffers", () => {
    const view = new Uint8Array(new TextEncoder().encode('xx{"a":1}\n').buffer, 2);
    expect(new JsonLinesDecoder().push(view)).toEqual([{ kind: "json", value: { a: 1 }, text: '{"a":1}' }]);
  });

  it("accepts a line of exactly maxLineBytes with LF or CRLF", () => {
    const decoder = new JsonLinesDecoder({ maxLineBytes: 8 });
    expect(decoder.push(bytes('"123456"\n"abcdef"\r'))).toHaveLength(1);
    expect(decoder.push(bytes("\n"))).toEqual([{ kind: "json", value: "abcdef", text: '"abcdef"' }]);
  });

  it("fails an over-long line with RESOURCE_EXHAUSTED as soon as buffered bytes exceed the limit, before any newline", () => {
    const decoder = new JsonLinesDecoder({ maxLineBytes: 1024, device: "claude" });
    expect(decoder.push(Buffer.alloc(1000, 0x61))).toEqual([]);
    const err = catchError(() => decoder.push(Buffer.alloc(100, 0x61)));
    expect(err).toBeInstanceOf(DriverError);
    expect(err).toMatchObject({ op: "read", device: "claude", code: ErrCode.ResourceExhausted });
    expect((err as Error).message).toBe("[RESOURCE_EXHAUSTED] read: claude (line exceeds 1024 bytes)");
  });

  it("fails a complete over-long line that arrives in one chunk", () => {
    const decoder = new JsonLinesDecoder({ maxLineBytes: 4 });
    expect(catchError(() => decoder.push(bytes("12345\n")))).toMatchObject({ code: ErrCode.ResourceExhausted });
  });

  it("buffers at most maxLineBytes + 1 bytes: one slack byte only for the CR of a CRLF", () => {
    const crlf = new JsonLinesDecoder({ maxLineBytes: 4 });
    expect(crlf.push(bytes("1234\r"))).toEqual([]); // the CR could still be a CRLF
    expect(crlf.end()).toEqual([{ kind: "json", value: 1234, text: "1234" }]);
    const plain = new JsonLinesDecoder({ maxLineBytes: 4 });
    expect(catchError(() => plain.push(bytes("12345")))).toMatchObject({ code: ErrCode.ResourceExhausted });
  });

  it("returns the lines before an over-long line, then stays failed with the same error", () => {
    const decoder = new JsonLinesDecoder({ maxLineBytes: 16 });
    expect(decoder.push(bytes(`{"a":1}\n${"x".repeat(40)}\n{"b":2}\n`))).toEqual([{ kind: "json", value: { a: 1 }, text: '{"a":1}' }]);
    const first = catchError(() => decoder.push(Buffer.alloc(0)));
    expect(first).toMatchObject({ code: ErrCode.ResourceExhausted });
    expect(catchError(() => decoder.push(bytes("{}\n")))).toBe(first);
    expect(catchError(() => decoder.end())).toBe(first);
  });

  it("frames the same lines whatever the chunk boundaries (multi-byte text, CRLF, blank and non-JSON lines)", () => {
    const lines = ['{"t":"héllo 🙂"}', "", '{"t":"日本語"}\r', "   ", "plain text ✓", "[1,2]", '{"t":"x"}\r', '"s"'];
    const input = bytes(Array.from({ length: 40 }, (_, i) => lines[i % lines.length]).join("\n") + "\n");
    const expected = decodeAll(
      new JsonLinesDecoder(),
      input
        .toString("utf8")
        .split("\n")
        .map((line) => bytes(`${line}\n`)),
    );
    expect(expected).toHaveLength(30);
    let seed = 7;
    const random = (): number => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    // A large limit decodes runs of whole lines at once; 24 bytes (every line fits) checks runs line by line.
    for (const maxLineBytes of [64 * 1024, 24]) {
      for (let round = 0; round < 20; round++) {
        const chunks: Buffer[] = [];
        for (let at = 0; at < input.length;) {
          const size = 1 + Math.floor(random() * (round % 2 ? 8 : 200));
          chunks.push(input.subarray(at, at + size));
          at += size;
        }
        expect(decodeAll(new JsonLinesDecoder({ maxLineBytes }), chunks)).toEqual(expected);
      }
    }
  });

  it("rejects a maxLineBytes that is not a positive integer with INVALID", () => {
    expect(catchError(() => new JsonLinesDecoder({ maxLineBytes: 0 }))).toMatchObject({ code: ErrCode.Invalid, op: "decode" });
    expect(catchError(() => new JsonLinesDecoder({ maxLineBytes: 1.5 }))).toMatchObject({ code: ErrCode.Invalid });
  });
});
