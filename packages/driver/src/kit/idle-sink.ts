import type { DriverSink } from "../spi/driver.js";

/**
 * A sink for a process that serves no run yet (pre-warming, parked between turns): events go
 * nowhere and every approval is denied ("no run is being served"), so the CLI is always answered.
 */
export const IDLE_SINK: DriverSink = Object.freeze({
  emit: () => undefined,
  requestApproval: () => Promise.resolve({ outcome: "deny" as const, reason: "no run is being served" }),
});
