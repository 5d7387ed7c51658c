import { DriverError, ErrCode } from "@adaptor/errors";

/** The device name in the `DriverError`s of this backend. */
export const DEVICE = "sessionrecorder-postgres";

const CONNECTION_ERRNO = new Set(["ECONNREFUSED", "ECONNRESET", "EPIPE", "ETIMEDOUT", "ENOTFOUND", "EHOSTUNREACH", "ENETUNREACH"]);

/** A `pg` failure as a `DriverError` (device `sessionrecorder-postgres`, the failure as `cause`). */
export function backendError(op: string, cause: unknown): DriverError {
  if (cause instanceof DriverError && cause.device === DEVICE) return cause;
  return new DriverError({ op, device: DEVICE, code: classify(cause), cause });
}

function classify(cause: unknown): ErrCode {
  const code = typeof cause === "object" && cause !== null ? (cause as { code?: unknown }).code : undefined;
  if (typeof code === "string") {
    if (CONNECTION_ERRNO.has(code) || code.startsWith("08") || code.startsWith("57P")) return ErrCode.ServiceUnavailable;
    if (code === "40001" || code === "40P01" || code === "55P03") return ErrCode.ServiceUnavailable;
    if (code === "42P01" || code === "3F000") return ErrCode.NotFound;
    if (code === "57014") return ErrCode.Timeout;
    if (code === "54000") return ErrCode.ResourceExhausted;
  }
  if (cause instanceof Error && /Connection terminated|not queryable|after calling end on the pool/i.test(cause.message)) {
    return ErrCode.ServiceUnavailable;
  }
  return ErrCode.Internal;
}
