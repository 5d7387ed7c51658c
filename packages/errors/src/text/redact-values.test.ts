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

  it("finds a value written in another letter case, URL-encoded, or base64-encoded (padded, unpadded, URL-safe)", () => {
    const secret = "p@ss(w0rd)+[x]*?\\1$&/ü~";
    const base64 = Buffer.from(secret).toString("base64");
    const written = [
      secret.toUpperCase(),
      encodeURIComponent(secret),
      base64,
      base64.replace(/=+$/, ""),
      Buffer.from(secret).toString("base64url"),
      `url=https://x.test/?q=${encodeURIComponent(secret)}&next=1`,
    ];
    for (const text of written) expect(redactValues(`seen: ${text} end`, [secret])).not.toMatch(/p@ss|P@SS|p%40ss|cEBzc/);
    expect(redactValues(`seen: ${secret.toUpperCase()} end`, [secret])).toBe("seen: [redacted] end");
    expect(redactValues(`q=${encodeURIComponent(secret)}&next=1`, [secret])).toBe("q=[redacted]&next=1");
    expect(redactValues(`token ${base64} end`, [secret])).toBe("token [redacted] end");
    // Characters with no case and text around them are left as they are.
    expect(redactValues("id 12345678-90 and 1234", ["12345678-90"])).toBe("id [redacted] and 1234");
  });

  it("writes the given marker in place of every form, as it is (a `$&` in it is not a replacement pattern)", () => {
    const secret = "tok-Echoed-42";
    const text = `a ${secret} b ${secret.toUpperCase()} c ${Buffer.from(secret).toString("base64")} d`;
    expect(redactValues(text, [secret], "<redacted>")).toBe("a <redacted> b <redacted> c <redacted> d");
    expect(redactValues(text, [secret], "$&")).toBe("a $& b $& c $& d");
  });
});
