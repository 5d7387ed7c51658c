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
      " a\t",
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
