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
  /** The underlying error or a short reason. Strings become the parenthesised detail. */
  cause?: unknown;
  /** The parenthesised detail, when it should not be the cause's message (a cause that is not an Error). */
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

  constructor(init: DriverErrorInit, options: Omit<AdaptorErrorOptions, "cause"> = {}) {
    super(formatDriverError(init), { ...options, ...("cause" in init ? { cause: init.cause } : {}) });
    this.op = init.op;
    this.device = init.device;
    this.code = init.code;
  }
}

function formatDriverError({ op, device, code, cause, detail }: DriverErrorInit): string {
  const text = detail ?? (cause === undefined ? undefined : cause instanceof Error ? cause.message : String(cause));
  return `[${code}] ${op}: ${device}${text === undefined ? "" : ` (${text})`}`;
}

/** The `code` of the first {@link DriverError} on `err`'s chain, else `undefined`. */
export function errorCode(err: unknown): ErrCode | undefined {
  return findError(err, DriverError)?.code;
}
