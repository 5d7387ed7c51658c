import { FeatureUnsupportedError, type DriverDescriptor } from "@adaptor/driver";
import type { ThreadMode } from "./thread-context.js";

/**
 * Refuses a thread turn whose mode needs a session capability the driver does not declare
 * (`capabilities.sessions`), before anything runs: no store read or write, no lease, no CLI.
 * A fork's first turn needs `sessions.fork` (without it the CLI would continue the parent's own
 * conversation, so parent and fork would share one); an adoption needs `sessions.resume` (it
 * continues a session the CLI already has).
 * @throws FeatureUnsupportedError: feature `fork` (a fork on a driver without `sessions.fork`),
 * `adoptSession` (an adoption on a driver without `sessions.resume`).
 */
export function checkThreadCapabilities(descriptor: DriverDescriptor, mode: ThreadMode): void {
  const { type, capabilities } = descriptor;
  if (mode === "fork" && capabilities.sessions.fork !== true) {
    throw new FeatureUnsupportedError(
      type,
      "fork",
      "its CLI cannot branch a session into a new one; continue the parent thread or start a new thread instead",
    );
  }
  if (mode === "adopt" && capabilities.sessions.resume !== true) {
    throw new FeatureUnsupportedError(type, "adoptSession", "its CLI cannot continue a session in a new process");
  }
}
