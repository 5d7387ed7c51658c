import { describe, expect, it } from "vitest";
import { isError } from "@adaptor/errors";
import { ErrInvalidThreadKey } from "../errors/sentinels.js";
import { InvalidThreadKeyError } from "../errors/invalid-thread-key-error.js";
import { MAX_THREAD_KEY_BYTES, checkThreadKey, threadKeyProblem } from "./thread-key.js";

describe("thread key rules", () => {
  it("accepts well-formed keys up to 1024 bytes of UTF-8, whatever their script, case, form or spacing", () => {
    for (const key of [
      "k",
      "Tenant/Issue 42",
      "caf\u00e9",
      "cafe\u0301",
      "\uFFFD",
      "\u{1F469}\u200D\u{1F4BB}",
      "\u05e9\u05dc\u05d5\u05dd",
      " a b ",
      "a\u00a0b",
      "\u200f\u05e9",
      "x".repeat(1024),
      "\u{1F600}".repeat(256),
    ]) {
      expect(threadKeyProblem(key), JSON.stringify(key).slice(0, 40)).toBeUndefined();
      expect(() => checkThreadKey(key)).not.toThrow();
    }
  });

  it("names the broken rule: lone surrogate with its index, NUL with its index, the length in bytes or units", () => {
    expect(threadKeyProblem("ab\uD800")).toBe("contains a lone UTF-16 surrogate at index 2 (not well-formed Unicode)");
    expect(threadKeyProblem("\uDC00")).toBe("contains a lone UTF-16 surrogate at index 0 (not well-formed Unicode)");
    expect(threadKeyProblem("a\u0000")).toBe("contains NUL (U+0000) at index 1");
    expect(threadKeyProblem("\u20ac".repeat(342))).toBe("longer than 1024 bytes of UTF-8 (1026 bytes)");
    expect(threadKeyProblem("x".repeat(MAX_THREAD_KEY_BYTES + 1))).toBe("longer than 1024 bytes of UTF-8 (1025 UTF-16 units)");
  });

  it("refuses a key of whitespace only, with a control character (C0, DEL, C1) or a bidi override or isolate", () => {
    for (const key of [" ", "\t\n ", "\u00a0\u3000", "\ufeff"])
      expect(threadKeyProblem(key), JSON.stringify(key)).toBe("is whitespace only");
    expect(threadKeyProblem("a\nb")).toBe("contains the control character U+000A at index 1");
    expect(threadKeyProblem(" a\t")).toBe("contains the control character U+0009 at index 2");
    expect(threadKeyProblem("\u001b[31m")).toBe("contains the control character U+001B at index 0");
    expect(threadKeyProblem("x\u007f")).toBe("contains the control character U+007F at index 1");
    expect(threadKeyProblem("x\u0085")).toBe("contains the control character U+0085 at index 1");
    expect(threadKeyProblem("\u202e")).toBe("contains the bidi control U+202E at index 0");
    for (const c of ["\u202a", "\u202b", "\u202c", "\u202d", "\u2066", "\u2067", "\u2068", "\u2069"])
      expect(threadKeyProblem(`tenant${c}/a`), JSON.stringify(c)).toMatch(/^contains the bidi control U\+20(2[A-E]|6[6-9]) at index 6$/);
    expect(() => checkThreadKey("a\nb")).toThrow(InvalidThreadKeyError);
  });

  it("checkThreadKey: TypeError for an empty or non-string key, InvalidThreadKeyError for a broken rule", () => {
    expect(() => checkThreadKey("")).toThrow(TypeError);
    expect(() => checkThreadKey(42)).toThrow(TypeError);
    expect(() => checkThreadKey(undefined, "resolve: key")).toThrow("resolve: key must be a non-empty string");
    let err: unknown;
    try {
      checkThreadKey("t\uD800");
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(InvalidThreadKeyError);
    expect(isError(err, ErrInvalidThreadKey)).toBe(true);
    expect((err as InvalidThreadKeyError).key).toBe("t\uD800");
  });
});
