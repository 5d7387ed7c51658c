import { AdaptorError } from "@adaptor/errors";

/**
 * A JSON-RPC error answer of `codex app-server` to one of the driver's requests, e.g.
 * `{"code":-32600,"message":"no rollout found for thread id …"}` for `thread/resume` of an unknown
 * thread. Kept as the `cause` of the failure or error it leads to; match with `findError`.
 */
export class CodexRpcError extends AdaptorError {
  static override readonly brand: symbol = Symbol.for("adaptor.error.CodexRpcError");
  /** The request method, e.g. `"thread/resume"`. */
  readonly method: string;
  /** JSON-RPC error code, e.g. `-32600`. */
  readonly code: number;
  /** The error's `data`, when codex sent one. */
  readonly data: unknown;

  constructor(method: string, error: { code: number; message: string; data?: unknown }) {
    super(`codex ${method}: ${error.message} (JSON-RPC ${error.code})`);
    this.method = method;
    this.code = error.code;
    this.data = error.data;
  }
}
