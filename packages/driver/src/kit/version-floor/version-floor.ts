import type { DriverSink } from "../../spi/driver.js";
import { cliVersion, type CliVersionProbe } from "./cli-version.js";
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
 * Asks the CLI its version ({@link cliVersion}: once per binary and process) and applies
 * {@link checkVersionFloor}: for a driver whose CLI prints no version before it acts. Call it
 * before anything of the run is written or started.
 *
 * @throws like {@link checkVersionFloor} and {@link cliVersion}.
 */
export async function requireCliVersion(floor: VersionFloor, probe: CliVersionProbe, sink: DriverSink, signal: AbortSignal): Promise<void> {
  const { version, output } = await cliVersion(probe, signal);
  checkVersionFloor(floor, version, sink, output);
}
