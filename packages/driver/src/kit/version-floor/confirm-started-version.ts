import { DriverError, ErrCode, findError } from "@adaptor/errors";
import type { CliVersionCheck } from "./version-floor.js";

/**
 * Confirms `check` ({@link requireCliVersion}) with the version a just-started CLI reports of
 * itself before its first turn, for a driver whose CLI names its version in its start-up answer (a
 * version manager's shim may run another CLI than the one whose `--version` answer is remembered).
 * Nothing to confirm ({@link CliVersionCheck.confirmable} false): resolves at once, `report` not
 * called. A CLI that ends before it answered (`report` rejects with a DriverError
 * `DEVICE_DISCONNECTED`) reported no version: this resolves and the turn reads and classifies
 * that exit (its code, its stderr) as it would any other.
 *
 * Pass `report` a signal joined with the run's stall watchdog, so a CLI that never answers ends
 * the run after `stallTimeoutMs` like any silence.
 *
 * @param report - asks the started CLI its version (its start-up answer); resolves undefined when it names none.
 * @param close - ends the CLI; called before a refusal or any other failure of `report` is rethrown.
 * @throws FeatureUnsupportedError (feature `"cliVersion"`) when the reported version is older than
 * the floor; whatever else `report` rejects with (e.g. its signal's reason), the CLI ended first.
 */
export async function confirmStartedVersion(
  check: CliVersionCheck,
  report: () => Promise<string | undefined>,
  close: () => Promise<void>,
): Promise<void> {
  if (!check.confirmable) return;
  try {
    check.confirm(await report().catch(ifEnded));
  } catch (error) {
    await close();
    throw error;
  }
}

/** A CLI that ended before it answered reported no version; any other failure stands. */
function ifEnded(error: unknown): undefined {
  if (findError(error, DriverError)?.code === ErrCode.DeviceDisconnected) return undefined;
  throw error;
}
