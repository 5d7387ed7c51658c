import { AdaptorError } from "@adaptor/errors";

/** The `error` member of a JSON-RPC 2.0 response: a numeric `code`, a `message`, optional `data`. */
export interface JsonRpcErrorObject {
  /** JSON-RPC error code, e.g. `-32601` (method not found) or an agent's own code. */
  readonly code: number;
  /** What the peer said went wrong. */
  readonly message: string;
  /** The peer's `data` member, when it sent one. */
  readonly data?: unknown;
}

/**
 * An error answer of the peer to one of our JSON-RPC requests, e.g.
 * `{"code":-32600,"message":"no rollout found for thread id …"}`. Its message reads
 * `<device> <method>: <peer's message> (JSON-RPC <code>)`. Kept as the `cause` of whatever
 * failure it leads to; match with `findError(err, JsonRpcError)` (driver-specific subclasses match too).
 */
export class JsonRpcError extends AdaptorError {
  static override readonly brand: symbol = Symbol.for("adaptor.error.JsonRpcError");
  /** The request method, e.g. `"thread/resume"`. */
  readonly method: string;
  /** JSON-RPC error code, e.g. `-32600`. */
  readonly code: number;
  /** The error's `data`, when the peer sent one. */
  readonly data: unknown;

  /**
   * @param device - who answered, e.g. `"codex"` (the first word of the message).
   * @param method - the request that was refused.
   * @param error - the response's `error` member.
   */
  constructor(device: string, method: string, error: JsonRpcErrorObject) {
    super(`${device} ${method}: ${error.message} (JSON-RPC ${error.code})`);
    this.method = method;
    this.code = error.code;
    this.data = error.data;
  }
}
