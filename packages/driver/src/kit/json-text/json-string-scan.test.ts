import { describe, expect, it } from "vitest";
import { closingQuote, hasRawControl } from "./json-string-scan.js";

describe("JSON string scanning for a driver's fast path", () => {
  it("closingQuote finds the quote that ends the string, past escaped quotes and backslashes", () => {
    const line = String.raw`{"text":"a \"b\" c\\","x":1}`;
    const start = line.indexOf(":") + 2;
    const end = closingQuote(line, start);
    expect(JSON.parse(`"${line.slice(start, end)}"`)).toBe(JSON.parse(line).text);
    expect(closingQuote(String.raw`"open \"`, 1)).toBe(-1);
    expect(closingQuote('""', 1)).toBe(1);
  });

  it("hasRawControl sees a raw control character in the span only, in short and long spans", () => {
    expect(hasRawControl("ab\ncd", 0, 5)).toBe(true);
    expect(hasRawControl("ab\ncd", 3, 5)).toBe(false);
    const long = `${"x".repeat(100)}\t${"y".repeat(100)}`;
    expect(hasRawControl(long, 0, long.length)).toBe(true);
    expect(hasRawControl(long, 0, 100)).toBe(false);
    expect(hasRawControl(long, 101, long.length)).toBe(false);
    expect(hasRawControl("\u001f", 0, 1)).toBe(true);
    expect(hasRawControl(" \u007f", 0, 2)).toBe(false);
  });
});
