import { describe, expect, it } from "vitest";
import { StreamRedactor } from "./redact-output.js";

const SECRET = "sk-live-Zq9Wk3vT7pLm2Xr8Yb";

describe("StreamRedactor", () => {
  it("hands on whole lines, redacted, holding the unfinished last line until its end or the stream's", () => {
    const text = `one\ntoken ${SECRET} two\nthree ${SECRET}`;
    // Every way of cutting the text in two gives the same lines; nothing but whole lines before the end.
    for (let at = 0; at <= text.length; at++) {
      const redactor = new StreamRedactor([SECRET]);
      const pieces = [redactor.push(text.slice(0, at)), redactor.push(text.slice(at))];
      for (const piece of pieces) expect(piece === "" || piece.endsWith("\n")).toBe(true);
      pieces.push(redactor.end());
      expect(pieces.join("")).toBe("one\ntoken [redacted] two\nthree [redacted]");
    }
    const redactor = new StreamRedactor([SECRET]);
    expect(redactor.push("no line end yet")).toBe("");
    expect(redactor.end()).toBe("no line end yet");
    expect(redactor.end()).toBe("");
  });

  it("flush hands on the unfinished line now, as a cut one: a value it ends inside loses its first 8 characters or more, and the rest of the line its last", () => {
    const redactor = new StreamRedactor([SECRET]);
    expect(redactor.push(`token ${SECRET.slice(0, 10)}`)).toBe("");
    expect(redactor.holding).toBe(true);
    expect(redactor.flush()).toBe("token [redacted]");
    expect(redactor.holding).toBe(false);
    expect(redactor.push(`${SECRET.slice(10)} end\nnext`)).toBe("[redacted] end\n");
    expect(redactor.flush()).toBe("next");
    expect(redactor.end()).toBe("");
  });

  it("hands on a line longer than its bound at once; a value cut there loses its 8 characters or more on each side of the cut", () => {
    const redactor = new StreamRedactor([SECRET], 64);
    const line = `${"a".repeat(50)} ${SECRET} ${"b".repeat(50)}\n`;
    // 14 characters of the secret in the first piece (65 characters: over the bound), 12 in the next.
    const cutAt = 51 + 14;
    const first = redactor.push(line.slice(0, cutAt));
    expect(first).toBe(`${"a".repeat(50)} [redacted]`);
    expect(redactor.push(line.slice(cutAt))).toBe(`[redacted] ${"b".repeat(50)}\n`);
    // Nothing over the bound is held; a piece cut within no value is handed on as it is.
    expect(redactor.push("x".repeat(200))).toBe("x".repeat(200));
    expect(redactor.end()).toBe("");
  });
});
