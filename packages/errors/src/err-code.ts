/**
 * The 13 error classification codes shared by every driver and infrastructure error
 * (docs/errors.md "Infrastructure errors"). Keys are PascalCase names (`ErrCode.Timeout`);
 * values are the upper-case strings `DriverError.code` holds (`"TIMEOUT"`).
 */
export const ErrCode = Object.freeze({
  /** Operation timed out (a stall or a deadline). */
  Timeout: "TIMEOUT",
  /** Resource does not exist (process, executable, file, session). */
  NotFound: "NOT_FOUND",
  /** Permission denied. */
  Permission: "PERMISSION",
  /** Internal error: state anomaly, serialization failure. */
  Internal: "INTERNAL",
  /** Driver error: the CLI or the model call behind it failed. */
  Driver: "DRIVER",
  /** Invalid parameter. */
  Invalid: "INVALID",
  /** A directory where a file was expected. */
  IsDirectory: "IS_DIRECTORY",
  /** Write to a pipe with no live reader (a CLI whose stdin is gone). */
  BrokenPipe: "BROKEN_PIPE",
  /** Transient driver or service failure during an in-flight call. */
  ServiceUnavailable: "SERVICE_UNAVAILABLE",
  /** Mount path already in use. */
  AlreadyMounted: "ALREADY_MOUNTED",
  /** A resource limit (budget, capacity, quota, line length) was hit. */
  ResourceExhausted: "RESOURCE_EXHAUSTED",
  /** Graceful SIGTERM timed out and the process group was escalated to SIGKILL. */
  ForceKilled: "FORCE_KILLED",
  /** The device (a CLI child, an MCP server) is known to be gone; calls fail fast. */
  DeviceDisconnected: "DEVICE_DISCONNECTED",
} as const);

/** One of the 13 string values of {@link ErrCode}. */
export type ErrCode = (typeof ErrCode)[keyof typeof ErrCode];

const codes = new Set<string>(Object.values(ErrCode));

/** True when `value` is one of the 13 {@link ErrCode} strings. */
export function isErrCode(value: unknown): value is ErrCode {
  return typeof value === "string" && codes.has(value);
}
