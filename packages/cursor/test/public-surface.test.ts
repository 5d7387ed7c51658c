// Pins the runtime export list of @adaptor/cursor: update the literal list together with index.ts.
import { describe, expect, it } from "vitest";

describe("public surface", () => {
  it("@adaptor/cursor", async () => {
    expect(Object.keys(await import("@adaptor/cursor")).sort()).toEqual([
      "CURSOR_DESCRIPTOR",
      "CURSOR_INHERITED_ENV",
      "CursorDriver",
      "cursor",
      "cursorArgs",
      "validateCursorConfig",
    ]);
  });
});
