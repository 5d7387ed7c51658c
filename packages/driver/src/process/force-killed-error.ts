import { DriverError, ErrCode } from "@adaptor/errors";

/**
 * The error a driver reports when a CLI ignored SIGTERM and its process group had to be SIGKILLed
 * (`ExitInfo.forceKilled`): a {@link DriverError} with `op: "kill"`, `code: FORCE_KILLED`, message
 * `[FORCE_KILLED] kill: <device>` plus ` (<cause>)` when a cause is given.
 *
 * @param device - the CLI name used in the message.
 * @param cause - the underlying error or a short reason, kept on `cause`.
 */
export function forceKilledError(device: string, cause?: unknown): DriverError {
  return new DriverError({ op: "kill", device, code: ErrCode.ForceKilled, ...(cause === undefined ? {} : { cause }) });
}
