import { describe, expect, it } from "vitest";
import { stripTerminalEscapes } from "./strip-terminal-escapes.js";

describe("stripTerminalEscapes", () => {
  it("removes ANSI colour codes from a coloured stderr error line", () => {
    expect(stripTerminalEscapes("\u001b[31mERROR\u001b[0m: \u001b[1mbad\u001b[22m request")).toBe("ERROR: bad request");
  });

  it("removes OSC hyperlinks and titles but keeps their visible text", () => {
    expect(stripTerminalEscapes("\u001b]8;;https://x.test\u0007link\u001b]8;;\u0007 \u001b]0;title\u0007done")).toBe("link done");
  });

  it("keeps the last segment of a carriage-return progress line and CRLF line ends as plain lines", () => {
    expect(stripTerminalEscapes("10%\r50%\r100%\nnext\r\nlast")).toBe("100%\nnext\nlast");
  });

  it("drops stray control characters (bell, backspace, NUL) but keeps tabs, newlines and non-ASCII", () => {
    expect(stripTerminalEscapes("a\u0007b\u0008c\u0000d\te\nfé✓😀")).toBe("abcd\te\nfé✓😀");
  });
});
