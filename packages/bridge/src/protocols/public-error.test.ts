import { describe, expect, it } from "vitest";
import { MAX_PUBLIC_MESSAGE_CHARS, publicMessage, secretEnvValues } from "./public-error.js";

describe("publicMessage: what an error event may say", () => {
  it("keeps the first line and drops stack frames", () => {
    expect(publicMessage("Error: spawn failed\n    at spawn (node:child_process:1:1)\n    at run (/srv/x.js:2:2)")).toBe(
      "Error: spawn failed",
    );
    expect(publicMessage("\n    at x (/srv/y.js:1:1)\nsecond line")).toBe("second line");
  });

  it("redacts API keys, bearer tokens, NAME_KEY=value pairs, URL passwords and the values of credential variables", () => {
    expect(publicMessage("key sk-ant-api03-AbCdEf123456 refused")).toBe("key [redacted] refused");
    expect(publicMessage("Authorization: Bearer eyJhbGciOi.JIUzI1NiJ9")).toBe("Authorization: Bearer [redacted]");
    expect(publicMessage("header Bearer eyJhbGciOiJIUzI1NiJ9 rejected")).toBe("header Bearer [redacted] rejected");
    expect(publicMessage("ANTHROPIC_API_KEY=abc123 and password: 'hunter22'")).toBe(
      "ANTHROPIC_API_KEY=[redacted] and password: [redacted]",
    );
    expect(publicMessage("connect postgres://app:s3cret@db:5432/x failed")).toBe("connect postgres://[redacted]@db:5432/x failed");
    const secrets = secretEnvValues({ SERVICE_TOKEN: "plain-value-123", HOME: "/home/someone-long" });
    expect(secrets).toEqual(["plain-value-123"]);
    expect(publicMessage("upstream said plain-value-123 is wrong; home is /home/someone-long", secrets)).toBe(
      "upstream said [redacted] is wrong; home is /home/someone-long",
    );
  });

  it("caps the length", () => {
    const text = publicMessage("x".repeat(10_000));
    expect(text).toHaveLength(MAX_PUBLIC_MESSAGE_CHARS);
    expect(text.endsWith("…")).toBe(true);
  });
});
