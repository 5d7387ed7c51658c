// Pins the runtime export list of @adaptor/bridge (type-only exports are not runtime keys).
import { describe, expect, it } from "vitest";

describe("public surface", () => {
  it("@adaptor/bridge", async () => {
    expect(Object.keys(await import("@adaptor/bridge")).sort()).toEqual([
      "AG_UI_APPROVAL_INTERRUPT",
      "AG_UI_CUSTOM_EVENTS",
      "AG_UI_FRAMES_PER_EVENT",
      "Bridge",
      "DENIED_BY_CLIENT_REASON",
      "INTERRUPT_CANCELLED_REASON",
      "MAX_PUBLIC_MESSAGE_CHARS",
      "hostAllowed",
      "publicMessage",
    ]);
  });
});
