import { AdaptorError, type AdaptorErrorOptions } from "./adaptor-error.js";
import type { ErrCode } from "./err-code.js";
import { findError } from "./match.js";

/** Fields of a {@link DriverError}. */
export interface DriverErrorInit {
  /** Operation, e.g. `"spawn"`, `"write"`, `"decode"`, `"kill"`. */
  op: string;
  /** The device: the CLI name or path, an MCP server, a store. */
  device: string;
  /** Classification; one of the 13 {@link ErrCode} values. */
  code: ErrCode;
  /**
   * The underlying error, or the reason as text. Its message (or the text) is the parenthesised
   * detail of the message unless `detail` is given. Text without a `detail` is kept on
   * {@link DriverError.cause} as an `Error` with that message, so every link of the chain is an
   * `Error`; any other value is kept as given.
   */
  cause?: unknown;
  /**
   * The parenthesised detail, when it should not be the cause's message (a cause that is not an
   * Error, such as a driver's rejection value, is then kept on `cause` as it is).
   */
  detail?: string;
}

/**
 * A classified driver or infrastructure failure (docs/errors.md "Infrastructure errors"). Its message reads
 * `[CODE] Op: device (cause)`, e.g. `[NOT_FOUND] spawn: claude (executable not found on PATH)`.
 */
export class DriverError extends AdaptorError {
  static override readonly brand: symbol = Symbol.for("adaptor.error.DriverError");
  /** The operation that failed, e.g. `"spawn"`. */
  readonly op: string;
  /** What it failed on, e.g. the command or a path. */
  readonly device: string;
  /** Classification; one of the 13 {@link ErrCode} values. */
  readonly code: ErrCode;
  /**
   * The underlying failure: an `Error` (a reason given as text becomes an `Error` with that
   * message, and a stack); only a value wrapped with a `detail` (e.g. a driver's `run()` that
   * rejected with a value that is not an Error) is that value. Absent when there is none.
   */
  declare cause?: unknown;

  constructor(init: DriverErrorInit, options: Omit<AdaptorErrorOptions, "cause"> = {}) {
    super(formatDriverError(init), { ...options, ...("cause" in init ? { cause: causeOf(init) } : {}) });
    this.op = init.op;
    this.device = init.device;
    this.code = init.code;
  }
}

/** The cause kept for `init`: its text as an `Error` when given as text without a `detail`, else as given. */
function causeOf({ cause, detail }: DriverErrorInit): unknown {
  return typeof cause === "string" && detail === undefined ? new Error(cause) : cause;
}

function formatDriverError({ op, device, code, cause, detail }: DriverErrorInit): string {
  const text = detail ?? (cause === undefined ? undefined : cause instanceof Error ? cause.message : String(cause));
  return `[${code}] ${op}: ${device}${text === undefined ? "" : ` (${text})`}`;
}

/** The `code` of the first {@link DriverError} on `err`'s chain, else `undefined`. */
export function errorCode(err: unknown): ErrCode | undefined {
  return findError(err, DriverError)?.code;
}
