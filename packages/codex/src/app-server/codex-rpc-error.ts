import { JsonRpcError, type JsonRpcErrorObject } from "@adaptor/driver/kit";
import { DriverError, ErrCode } from "@adaptor/errors";

/**
 * A JSON-RPC error answer of `codex app-server` to one of the driver's requests, e.g.
 * `{"code":-32600,"message":"no rollout found for thread id …"}` for `thread/resume` of an unknown
 * thread. Kept as the `cause` of the failure or error it leads to; match with `findError` (it is
 * also a `JsonRpcError` of `@adaptor/driver/kit`).
 */
export class CodexRpcError extends JsonRpcError {
  static override readonly brand: symbol = Symbol.for("adaptor.error.CodexRpcError");

  constructor(method: string, error: JsonRpcErrorObject) {
    super("codex", method, error);
  }
}

/**
 * Whether `error` is codex's answer to `turn/steer` or `turn/interrupt` for a turn that is no
 * longer running: `no active turn to steer` / `to interrupt`, or `expected active turn id … but
 * found …` (the turn ended and another one runs). The host's request then resolves `false`.
 */
export function isTurnEnded(error: unknown): boolean {
  return error instanceof CodexRpcError && /^codex turn\/\w+: (no active turn\b|expected active turn id\b)/.test(error.message);
}

/**
 * A request of the host to the running turn that codex refused for another reason, as a
 * `DriverError` (`ErrCode.Driver`) with codex's error as its `cause`; other errors as they are.
 */
export function turnControlError(error: unknown): unknown {
  if (!(error instanceof CodexRpcError)) return error;
  return new DriverError({ op: error.method, device: "codex", code: ErrCode.Driver, cause: error });
}
