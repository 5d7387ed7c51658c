// Pins the runtime export list of @adaptor/acp: update the literal list together with index.ts.
import { describe, expect, it } from "vitest";

describe("public surface", () => {
  it("@adaptor/acp", async () => {
    expect(Object.keys(await import("@adaptor/acp")).sort()).toEqual([
      "AcpDriver",
      "GEMINI_INHERITED_ENV",
      "GEMINI_RESUME_LIMIT",
      "PINNED_GEMINI_VERSION",
      "acp",
      "gemini",
      "geminiAcpConfig",
      "validateAcpConfig",
    ]);
  });
});
