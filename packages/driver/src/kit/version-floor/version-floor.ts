import type { DriverSink } from "../../spi/driver.js";
import { probeCliVersion, type CliVersionProbe } from "./cli-version.js";
import { isVersion, versionFloorRefusal, type VersionFloor } from "./floor.js";

export { CLI_VERSION_FEATURE, compareVersions, type VersionFloor } from "./floor.js";

/**
 * Refuses a run on a CLI older than `floor.minimum`, before anything of the run started. A newer
 * version (also one newer than the pinned one) runs. A version that could not be read runs too,
 * with a `notice` `warning` on `sink` saying so (`data.check` `"version"`, `data.minimum`,
 * `data.output`: what the CLI printed, at most 200 characters).
 *
 * @param found - the version the CLI reported (`major.minor.patch`), or undefined when it printed none.
 * @param output - what the CLI printed, for the notice when no version could be read.
 * @throws FeatureUnsupportedError (feature {@link CLI_VERSION_FEATURE}) naming the found and the
 * required version when `found` is older than `floor.minimum`.
 */
export function checkVersionFloor(floor: VersionFloor, found: string | undefined, sink: DriverSink, output = ""): void {
  if (found === undefined || !isVersion(found)) {
    sink.emit({
      type: "notice",
      kind: "warning",
      message: `${floor.cli} printed no version the driver can read; running without checking it is ${floor.minimum} or newer`,
      data: { check: "version", minimum: floor.minimum, output: output.slice(0, 200) },
    });
    return;
  }
  const refusal = versionFloorRefusal(floor, found);
  if (refusal) throw refusal;
}

/**
 * What {@link requireCliVersion} let a run start on, to be confirmed with what the started CLI
 * reports of itself before its first turn.
 */
export interface CliVersionCheck {
  /** The version the run was let through on (`major.minor.patch`), or undefined when none was read. */
  readonly version: string | undefined;
  /**
   * True when `version` is what `--version` printed (remembered per binary): a version manager's
   * shim at an unchanged path may run another CLI by now, so a driver whose CLI names its version
   * before its first turn passes that to {@link CliVersionCheck.confirm} and holds the turn until
   * then (see `confirmStartedVersion`). False for a package's version read at this call, and when
   * `--version` printed no version the driver can read: such a CLI (a development build, a test
   * double) runs unchecked with the `warning` notice, and its start is not held for a version it
   * may never name.
   */
  readonly confirmable: boolean;
  /**
   * Applies the floor to the version the started CLI `reported` of itself before its first turn
   * (undefined, or not `major.minor.patch`: it reported none, nothing changes), also when
   * `--version` printed none. When it differs from a {@link CliVersionCheck.version} that was read,
   * the remembered `--version` answer is forgotten: the next run asks again.
   *
   * @throws FeatureUnsupportedError (feature {@link CLI_VERSION_FEATURE}) naming the reported and the
   * required version when `reported` is older than `floor.minimum`: end the CLI, send no turn.
   */
  confirm(reported: string | undefined): void;
}

/**
 * Asks the CLI its version (`probeCliVersion`: once per binary and process) and applies
 * {@link checkVersionFloor}: for a driver whose CLI prints no version before it starts. Call it
 * before anything of the run is written or started. A refusal is not remembered (the next run
 * asks again, so a fixed install is seen at once); a remembered answer is confirmed with
 * {@link CliVersionCheck.confirm} where the started CLI reports its version before its first turn.
 * A `--version` with no answer within `VERSION_PROBE_TIMEOUT_MS` reads as an unreadable version
 * (the run goes on, with the `warning` notice).
 *
 * @returns what the run was let through on, to confirm once the CLI reports its version.
 * @throws like {@link checkVersionFloor} and `probeCliVersion` (`signal.reason` at once when aborted,
 * the probe's process ended).
 */
export async function requireCliVersion(
  floor: VersionFloor,
  probe: CliVersionProbe,
  sink: DriverSink,
  signal: AbortSignal,
): Promise<CliVersionCheck> {
  const found = await probeCliVersion(probe, signal);
  try {
    checkVersionFloor(floor, found.version, sink, found.output);
  } catch (error) {
    found.forget();
    throw error;
  }
  const version = found.version !== undefined && isVersion(found.version) ? found.version : undefined;
  return {
    version,
    confirmable: found.asked && version !== undefined,
    confirm: (reported) => {
      if (reported === undefined || !isVersion(reported)) return;
      if (version !== undefined && reported !== version) found.forget();
      const refusal = versionFloorRefusal(floor, reported);
      if (refusal) throw refusal;
    },
  };
}
