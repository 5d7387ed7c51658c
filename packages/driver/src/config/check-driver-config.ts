import { checkOptions, InvalidOptionError, type OptionCheck, type OptionShape } from "@adaptor/errors";
import { InvalidDriverConfigError } from "../errors/invalid-driver-config-error.js";
import { inheritEnvProblem } from "../process/child-env.js";

/** What an {@link InvalidOptionError} says, without its subject: `"idleMs must be ..."`. */
function optionReason(error: InvalidOptionError): string {
  return error.field === "" ? error.reason : `${error.field} ${error.reason}`;
}

/**
 * A refusal of driver config `field`: an {@link InvalidDriverConfigError} (matches
 * `ErrInvalidDriverConfig`) whose `cause` is an {@link InvalidOptionError} naming the field
 * (subject `"<driver> config"`). For checks {@link checkDriverConfig}'s shape cannot express.
 */
export function driverConfigRefusal(driver: string, field: string, reason: string): InvalidDriverConfigError {
  const option = new InvalidOptionError({ subject: `${driver} config`, field, reason });
  return new InvalidDriverConfigError(driver, optionReason(option), { cause: option });
}

/**
 * Checks a driver configuration against `shape` (see `checkOptions` of `@adaptor/errors`:
 * unknown keys with a spelling suggestion, types, empty strings, timer ranges, strings a CLI cannot
 * carry) and returns a frozen snapshot. `undefined` means "no options"; `null` is refused.
 *
 * @param driver - the driver type, e.g. `"claude"`; the subject is `"<driver> config"`.
 * @param hints - names peer SDKs give these options, with what to write instead (`hints` of
 * `checkOptions`).
 * @throws InvalidDriverConfigError (matches `ErrInvalidDriverConfig`) whose `cause` is the
 * {@link InvalidOptionError} naming the field.
 */
export function checkDriverConfig<T extends object>(
  driver: string,
  config: unknown,
  shape: OptionShape,
  hints?: Readonly<Record<string, string>>,
): T {
  try {
    return checkOptions<T>(`${driver} config`, config, shape, hints ? { hints } : {});
  } catch (error) {
    if (!(error instanceof InvalidOptionError)) throw error;
    throw new InvalidDriverConfigError(driver, optionReason(error), { cause: error });
  }
}

/**
 * The check of a driver's `inheritEnv` option for a {@link checkDriverConfig} shape: `true`,
 * `false`, or an array of variable names (a trailing `*` matches a prefix).
 */
export const inheritEnvOption: OptionCheck = (value, field, subject) => {
  const problem = inheritEnvProblem(value);
  if (problem) throw new InvalidOptionError({ subject, field, reason: problem });
};
