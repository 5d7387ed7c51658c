// Pins the runtime export list of @adaptor/fleet (type-only exports are not runtime keys).
import { describe, expect, it } from "vitest";

describe("public surface", () => {
  it("@adaptor/fleet", async () => {
    expect(Object.keys(await import("@adaptor/fleet")).sort()).toEqual([
      "ErrFleetAttemptsExhausted",
      "ErrFleetClosed",
      "ErrFleetQueueFull",
      "ErrFleetRemote",
      "ErrFleetRunCancelled",
      "ErrFleetRunExists",
      "ErrFleetRunExpired",
      "ErrFleetRunNotFound",
      "Fleet",
      "FleetAttemptsExhaustedError",
      "FleetClosedError",
      "FleetQueueFullError",
      "FleetRemoteError",
      "FleetRunCancelledError",
      "FleetRunExistsError",
      "FleetRunExpiredError",
      "FleetRunNotFoundError",
      "RunHandle",
    ]);
  });
});
