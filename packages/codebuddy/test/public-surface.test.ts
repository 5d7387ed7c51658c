// Pins the runtime export list of @adaptor/codebuddy: update the literal list together with index.ts.
import { describe, expect, it } from "vitest";

describe("public surface", () => {
  it("@adaptor/codebuddy", async () => {
    expect(Object.keys(await import("@adaptor/codebuddy")).sort()).toEqual([
      "CODEBUDDY_DESCRIPTOR",
      "CODEBUDDY_INHERITED_ENV",
      "CodeBuddyDriver",
      "codebuddy",
      "codebuddyArgs",
      "validateCodeBuddyConfig",
    ]);
  });
});
