import { FeatureUnsupportedError } from "../../errors/feature-unsupported-error.js";

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
 * The refusal a run gets on a CLI of version `found` (`major.minor.patch`): a
 * FeatureUnsupportedError (feature {@link CLI_VERSION_FEATURE}) naming the found and the required
 * version when `found` is older than `floor.minimum`; undefined when it is as new or newer (also
 * newer than the pinned one). `inspect()` reports the same refusal without throwing it.
 *
 * @throws TypeError when `found` is not `major.minor.patch`.
 */
export function versionFloorRefusal(floor: VersionFloor, found: string): FeatureUnsupportedError | undefined {
  if (compareVersions(found, floor.minimum) >= 0) return undefined;
  return new FeatureUnsupportedError(
    floor.driver,
    CLI_VERSION_FEATURE,
    `${floor.cli} ${found} is older than ${floor.minimum}, the oldest version this driver is known to keep its promises on ` +
      `(pinned: ${floor.pinned}); install ${floor.cli} ${floor.minimum} or newer`,
  );
}

/** Whether `text` starts with a `major.minor.patch` version. */
export function isVersion(text: string): boolean {
  return TRIPLE.test(text);
}
