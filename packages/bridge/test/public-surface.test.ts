// Pins the runtime export list of @adaptor/bridge (type-only exports are not runtime keys).
import { describe, expect, it } from "vitest";

describe("public surface", () => {
  it("@adaptor/bridge", async () => {
    expect(Object.keys(await import("@adaptor/bridge")).sort()).toEqual([
      "AG_UI_CUSTOM_EVENTS",
      "Bridge",
      "MAX_PUBLIC_MESSAGE_CHARS",
      "publicMessage",
    ]);
  });
});
