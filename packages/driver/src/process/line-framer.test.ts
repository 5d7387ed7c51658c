import { describe, expect, it } from "vitest";
import { LineFramer } from "./line-framer.js";

/** What framing `text` gives by definition: its lines, terminator (`\n` or `\r\n`) stripped, blank ones skipped. */
function reference(text: string): string[] {
  const lines = text.split("\n");
  lines.pop(); // the unterminated rest, handed over by end()
  return lines.map((line) => (line.endsWith("\r") ? line.slice(0, -1) : line)).filter((line) => !/^\s*$/.test(line));
}

describe("LineFramer", () => {
  it("frames chunks of many kilobytes as the plain definition does: lines across the pieces it decodes, lines longer than a piece, CRLF and blank lines", () => {
    let seed = 11;
    const random = (n: number) => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) % n;
    const kinds = [
      () => `{"type":"stream_event","text":"token${random(100)} é😀"}`,
      () => `{"long":"${"x".repeat(9_000 + random(30_000))}"}`,
      () => `{"n":${random(1000)}}\r`,
      () => "",
      () => `plain ${random(10)}`,
    ];
    for (let run = 0; run < 12; run++) {
      const only = run % 3 === 0 ? 1 : run % 3 === 1 ? 2 : kinds.length;
      const lines = Array.from({ length: 200 + random(3_000) }, () => kinds[random(only)]!());
      const text = `${lines.join("\n")}\n`;
      const bytes = Buffer.from(text);
      const framer = new LineFramer(1 << 20);
      const framed: string[] = [];
      for (let at = 0; at < bytes.length;) {
        const size = 16_384 + random(120_000);
        framed.push(...framer.push(bytes.subarray(at, at + size)));
        at += size;
      }
      framed.push(...framer.end());
      expect(framed, `run ${run}`).toEqual(reference(text));
    }
  });

  it("frames any mix of chunks and lines as the plain definition does: JSON lines only, CRLF, blank and other lines", () => {
    let seed = 5;
    const random = (n: number) => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) % n;
    const kinds = [
      () => `{"method":"item/agentMessage/delta","params":{"delta":"token${random(100)} é😀"}}`,
      () => `{"n":${random(1000)}}\r`,
      () => "",
      () => "   \t",
      () => "\r",
      () => `plain text ${random(10)}`,
      () => ` {"indented":true}`,
    ];
    for (let run = 0; run < 40; run++) {
      // Some runs hold only JSON object lines (the one-split path), others any line.
      const only = run % 2 === 0 ? 1 : run % 4 === 1 ? 2 : kinds.length;
      const lines = Array.from({ length: 50 + random(400) }, () => kinds[random(only)]!());
      const text = `${lines.join("\n")}\n${random(2) === 0 ? '{"last":1}' : ""}`;
      const bytes = Buffer.from(text);
      const framer = new LineFramer();
      const framed: string[] = [];
      for (let at = 0; at < bytes.length;) {
        const size = 1 + random(random(3) === 0 ? 64 : 8_000);
        framed.push(...framer.push(bytes.subarray(at, at + size)));
        at += size;
      }
      framed.push(...framer.end());
      const expected = reference(text);
      if (text.endsWith('{"last":1}')) expected.push('{"last":1}');
      expect(framed, `run ${run}`).toEqual(expected);
    }
  });
});
