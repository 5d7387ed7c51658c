import { checkOptions, optionChecks } from "@adaptor/errors";
import type { InspectOptions } from "./inspect.js";

const INSPECT_OPTIONS_SHAPE = { signal: optionChecks.abortSignal() };

/**
 * Checks the options of `driver.inspect(options)` / `agent.inspect(options)` and returns a frozen
 * snapshot. `undefined` and `null` mean none.
 * @throws InvalidOptionError (subject `"inspect options"`) naming the field: options that are not
 * an object, an unknown key (with the closest known one suggested), a `signal` that is not an
 * `AbortSignal`, a getter that throws.
 */
export function checkInspectOptions(options: unknown): InspectOptions {
  return checkOptions<InspectOptions>("inspect options", options, INSPECT_OPTIONS_SHAPE, { allowNull: true });
}
