import { findError } from "@adaptor/errors";
import { InvalidDriverConfigError } from "@adaptor/driver";
import type { Preparation } from "./preparation.js";

/** Step: `driver.validateConfig()`; any failure becomes an `InvalidDriverConfigError` keeping its cause. */
export function checkDriverConfig(prep: Preparation): void {
  const { driver } = prep;
  try {
    driver.validateConfig();
  } catch (error) {
    if (findError(error, InvalidDriverConfigError)) throw error;
    throw new InvalidDriverConfigError(driver.descriptor.type, error instanceof Error ? error.message : String(error), {
      cause: error,
    });
  }
}
