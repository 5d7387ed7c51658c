import { JsonRpcError, type JsonRpcErrorObject } from "@adaptor/driver/kit";

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
