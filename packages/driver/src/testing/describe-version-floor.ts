import { describe, expect, it } from "vitest";
import { findError } from "@adaptor/errors";
import { FeatureUnsupportedError } from "../errors/feature-unsupported-error.js";
import { CLI_VERSION_FEATURE, type VersionFloor } from "../kit/version-floor/floor.js";
import type { Driver } from "../spi/driver.js";
import { runDriver, type DriverRun } from "./run-driver.js";

/** A driver that can start its CLI ahead of a run (`prewarm`), counting the processes it keeps started. */
export type PrewarmingDriver = Driver & { prewarm: NonNullable<Driver["prewarm"]>; readonly prewarmedProcesses: number };

/** What {@link describeVersionFloor} needs to know of a driver and of the CLI it drives. */
export interface VersionFloorCases {
  /** The versions the driver declares. */
  readonly floor: VersionFloor;
  /**
   * A new driver on a CLI whose `--version` prints `output` and that otherwise plays a turn that
   * completes: a fake CLI, for fault injection.
   */
  readonly driverPrinting: (output: string) => PrewarmingDriver;
  /** Versions older than `floor.minimum`, each with the line the CLI prints for it, e.g. `["0.160.0", "codex-cli 0.160.0"]`. */
  readonly older: readonly (readonly [version: string, output: string])[];
  /** What a CLI prints for `--version` that holds no version the driver can read, e.g. `"something else"`. */
  readonly unreadable: string;
  /** Expects `run` to have gone ahead with its turn; a case's run on a version it cannot read must. */
  readonly expectRan: (run: DriverRun) => void;
}

/**
 * The cases every driver with a version floor keeps (vitest): a CLI older than `floor.minimum` is
 * refused with `FeatureUnsupportedError` (feature `"cliVersion"`) naming both versions, before any
 * process of the run starts, and so is a `prewarm()`; a CLI printing no version it can read runs,
 * with a `notice` `warning` whose `data` is `{ check: "version", minimum, output }`. A driver that
 * remembers versions per binary (`cliVersion`) forgets them before each test of the calling file
 * (`beforeEach(forgetCliVersions)`): one fake binary answers differently per case.
 */
export function describeVersionFloor(name: string, cases: VersionFloorCases): void {
  const { floor } = cases;
  describe(`${name}: the version floor`, () => {
    it.each(cases.older)(
      `${floor.cli} %s, older than ${floor.minimum}, is refused with FeatureUnsupportedError cliVersion naming both versions, before ${floor.cli} is started`,
      async (version, output) => {
        const driver = cases.driverPrinting(output);
        try {
          const run = await runDriver(driver, { prompt: "hi" });
          const error = findError(run.error, FeatureUnsupportedError);
          expect([error?.driver, error?.feature]).toEqual([floor.driver, CLI_VERSION_FEATURE]);
          expect(error?.reason).toBe(
            `${floor.cli} ${version} is older than ${floor.minimum}, the oldest version this driver is known to keep its promises on ` +
              `(pinned: ${floor.pinned}); install ${floor.cli} ${floor.minimum} or newer`,
          );
          expect(run.recording.ofType("process").filter((p) => p.kind === "spawn")).toEqual([]);
        } finally {
          await driver.close?.();
        }
      },
    );

    it.each(cases.older)(`${floor.cli} %s is refused by prewarm() too, before ${floor.cli} is started`, async (_version, output) => {
      const driver = cases.driverPrinting(output);
      try {
        const error = await driver.prewarm({}, new AbortController().signal).catch((e: unknown) => e);
        expect(findError(error, FeatureUnsupportedError)?.feature).toBe(CLI_VERSION_FEATURE);
        expect(driver.prewarmedProcesses).toBe(0);
      } finally {
        await driver.close?.();
      }
    });

    it("a version it cannot read runs, with a warning notice saying so", async () => {
      const driver = cases.driverPrinting(cases.unreadable);
      try {
        const run = await runDriver(driver, { prompt: "hi" });
        expect(findError(run.error, FeatureUnsupportedError)).toBeUndefined();
        cases.expectRan(run);
        const notice = run.recording.events.find(({ event }) => event.type === "notice" && event.kind === "warning");
        expect(notice?.event).toMatchObject({ data: { check: "version", minimum: floor.minimum, output: cases.unreadable } });
      } finally {
        await driver.close?.();
      }
    });
  });
}
