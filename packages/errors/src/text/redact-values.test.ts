import { describe, expect, it } from "vitest";
import { redactValues } from "./redact-values.js";

describe("redactValues", () => {
  it("replaces every occurrence of each value, leaves the rest, and skips an empty value (it would match between every character)", () => {
    expect(redactValues("key=s3cr3t-value and again s3cr3t-value; other=tok-12345678", ["s3cr3t-value", "tok-12345678"])).toBe(
      "key=[redacted] and again [redacted]; other=[redacted]",
    );
    expect(redactValues("nothing to hide", ["s3cr3t-value"])).toBe("nothing to hide");
    expect(redactValues("abc", [""])).toBe("abc");
    expect(redactValues("abc", [])).toBe("abc");
  });
});
