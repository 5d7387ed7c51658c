import { FeatureUnsupportedError } from "../../errors/feature-unsupported-error.js";
import type { DriverSink } from "../../spi/driver.js";
import { cliVersion, type CliVersionProbe } from "./cli-version.js";

/** The run option a {@link FeatureUnsupportedError} names for a CLI older than the driver supports. */
export const CLI_VERSION_FEATURE = "cliVersion";

/** What a driver declares about the versions of its CLI. */
export interface VersionFloor {
  /** Driver type, e.g. `"codex"`. */
  readonly driver: string;
  /** The CLI as people name it in messages, e.g. `"codex"`, `"claude"`. */
  readonly cli: string;
  /** The oldest version the driver's promises were shown on, `major.minor.patch`. */
  readonly minimum: string;
  /** The version the driver is pinned to and tested against. */
  readonly pinned: string;
}

const TRIPLE = /^(\d+)\.(\d+)\.(\d+)(?:-([0-9A-Za-z.-]+))?/;

/**
 * Orders two `major.minor.patch[-prerelease]` versions: negative when `a` is older, 0 when equal,
 * positive when newer. A prerelease is older than its release; two prereleases of one release
 * compare as equal (only the release decides here).
 *
 * @throws TypeError when either is not `major.minor.patch`.
 */
export function compareVersions(a: string, b: string): number {
  const x = TRIPLE.exec(a);
  const y = TRIPLE.exec(b);
  if (!x || !y) throw new TypeError(`not a major.minor.patch version: ${!x ? a : b}`);
  for (let i = 1; i <= 3; i++) {
    const diff = Number(x[i]) - Number(y[i]);
    if (diff !== 0) return diff;
  }
  return (x[4] === undefined ? 1 : 0) - (y[4] === undefined ? 1 : 0);
}

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
  if (found === undefined || !TRIPLE.test(found)) {
    sink.emit({
      type: "notice",
      kind: "warning",
      message: `${floor.cli} printed no version the driver can read; running without checking it is ${floor.minimum} or newer`,
      data: { check: "version", minimum: floor.minimum, output: output.slice(0, 200) },
    });
    return;
  }
  if (compareVersions(found, floor.minimum) >= 0) return;
  throw new FeatureUnsupportedError(
    floor.driver,
    CLI_VERSION_FEATURE,
    `${floor.cli} ${found} is older than ${floor.minimum}, the oldest version this driver is known to keep its promises on ` +
      `(pinned: ${floor.pinned}); install ${floor.cli} ${floor.minimum} or newer`,
  );
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
