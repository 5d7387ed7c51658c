import { describe, expect, it } from "vitest";
import { utf8Tail } from "./stderr-tail.js";

describe("utf8Tail", () => {
  it("returns the whole text, trimmed, when it fits", () => {
    expect(utf8Tail("  boom\n", 4096)).toBe("boom");
  });
  it("keeps the last maxBytes bytes", () => {
    expect(utf8Tail("0123456789", 4)).toBe("6789");
  });
  it("never starts inside a multi-byte character", () => {
    expect(utf8Tail("aé😀", 5)).toBe("😀"); // é is 2 bytes, 😀 is 4: 5 bytes would cut é
    expect(utf8Tail("😀😀", 5)).toBe("😀");
    expect(Buffer.byteLength(utf8Tail("é".repeat(100), 7))).toBeLessThanOrEqual(7);
  });
  it("gives an empty string for maxBytes <= 0", () => {
    expect(utf8Tail("abc", 0)).toBe("");
  });
});
