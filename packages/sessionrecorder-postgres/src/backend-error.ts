import { DriverError } from "@adaptor/errors";
import { postgresErrorCode } from "@adaptor/errors/internal";

/** The device name in the `DriverError`s of this backend. */
export const DEVICE = "sessionrecorder-postgres";

/** A `pg` failure as a `DriverError` (device `sessionrecorder-postgres`, the failure as `cause`). */
export function backendError(op: string, cause: unknown): DriverError {
  if (cause instanceof DriverError && cause.device === DEVICE) return cause;
  return new DriverError({ op, device: DEVICE, code: postgresErrorCode(cause), cause });
}
