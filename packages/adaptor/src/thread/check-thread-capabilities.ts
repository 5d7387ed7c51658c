import { FeatureUnsupportedError, type DriverDescriptor } from "@adaptor/driver";
import type { ThreadContext } from "./thread-context.js";

/**
 * Refuses a thread turn whose mode needs a session capability the driver does not declare
 * (`capabilities.sessions`), before anything runs: no store read or write, no lease, no CLI.
 * A fork's first turn needs `sessions.fork` (without it the CLI would continue the parent's own
 * conversation, so parent and fork would share one); an adoption needs `sessions.resume` (it
 * continues a session the CLI already has). A fork at an earlier turn also needs
 * `sessions.fromCheckpoint` (the CLI branches at a checkpoint older than the session's last), and
 * the driver's session transfer with a store that has session state (the parent's turns are kept
 * with its stored session state).
 * @throws FeatureUnsupportedError: feature `fork` (a fork on a driver without `sessions.fork`, or
 * one `at` a turn where the driver or store cannot), `adoptSession` (an adoption on a driver
 * without `sessions.resume`).
 */
export function checkThreadCapabilities(
  descriptor: DriverDescriptor,
  thread: Pick<ThreadContext, "mode" | "forkAt" | "store">,
  transfers: boolean,
): void {
  const { type, capabilities } = descriptor;
  const { mode } = thread;
  if (mode === "fork" && capabilities.sessions.fork !== true) {
    throw new FeatureUnsupportedError(
      type,
      "fork",
      "its CLI cannot branch a session into a new one; continue the parent thread or start a new thread instead",
    );
  }
  if (mode === "fork" && thread.forkAt !== undefined) {
    if (capabilities.sessions.fromCheckpoint !== true)
      throw new FeatureUnsupportedError(
        type,
        "fork",
        "its CLI cannot branch a session at an earlier turn; fork at the parent's latest turn (no `at`) instead",
      );
    if (!transfers || !thread.store.sessionState)
      throw new FeatureUnsupportedError(
        type,
        "fork",
        `a fork at an earlier turn needs portable sessions (a thread store with session state${transfers ? "" : ", and a driver that moves its CLI's session files"}): the parent's turns are kept with its stored session state`,
      );
  }
  if (mode === "adopt" && capabilities.sessions.resume !== true) {
    throw new FeatureUnsupportedError(type, "adoptSession", "its CLI cannot continue a session in a new process");
  }
}
