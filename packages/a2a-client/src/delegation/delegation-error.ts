import { AdaptorError } from "@adaptor/errors";

/**
 * Why a delegation failed. `remote_failed`, `rejected`, `canceled`, `input_required` and
 * `auth_required` come from the remote task's state; `unauthorized`, `not_found`, `unsupported`,
 * `untrusted_origin`, `invalid_agent_card` and `protocol` from the client's error identities;
 * `unreachable` is a connection failure, `stream_lost` a stream that could not be recovered,
 * `timeout` the delegation's own deadline, `output_too_large` an answer longer than the
 * delegation's `maxTextChars`.
 */
export type DelegationErrorCode =
  | "remote_failed"
  | "rejected"
  | "canceled"
  | "input_required"
  | "auth_required"
  | "unauthorized"
  | "not_found"
  | "unsupported"
  | "untrusted_origin"
  | "invalid_agent_card"
  | "protocol"
  | "unreachable"
  | "stream_lost"
  | "timeout"
  | "output_too_large";

/** Fields of a {@link DelegationError}. */
export interface DelegationErrorInit {
  /** Why the delegation failed. */
  readonly code: DelegationErrorCode;
  /** For people and the model; nothing secret. */
  readonly message: string;
  /** Whether trying again may help. */
  readonly retryable: boolean;
  /** The remote task's state name, when the failure came from one. */
  readonly remoteStatus?: string | undefined;
  /** Structured detail (copied and frozen). */
  readonly metadata?: Readonly<Record<string, unknown>> | undefined;
  /** The local failure behind it, when there is one (a limit passed, an unexpected error); for logs, not for the model. */
  readonly cause?: unknown;
}

/**
 * A delegated task did not complete: a remote or business failure of the sub-agent, reported with
 * a closed `code`, a `message` safe to show the model, whether trying again may help
 * (`retryable`), the remote task state when one was reached (`remoteStatus`, e.g. `"failed"`) and
 * structured detail (`metadata`: the remote task id, the remote failure code).
 *
 * It has no sentinel and no unwrap contract: match it with `findError(err, DelegationError)` and
 * read its fields. A failure that is neither the remote's nor one of the client's error identities
 * keeps what caused it on `cause` (an answer over `maxTextChars`: a `DriverError` coded
 * `RESOURCE_EXHAUSTED`; an unexpected error: that error), for logs.
 */
export class DelegationError extends AdaptorError {
  static override readonly brand: symbol = Symbol.for("adaptor.error.DelegationError");
  /** Why the delegation failed. */
  readonly code: DelegationErrorCode;
  /** True when the same delegation may succeed if tried again (a dropped stream, a transient remote failure). */
  readonly retryable: boolean;
  /** The remote task's state when the failure came from one, e.g. `"failed"`, `"canceled"`, `"input-required"`. */
  readonly remoteStatus: string | undefined;
  /** Structured detail: `taskId`, `contextId`, the remote failure code (`failure`), the `op` that failed. */
  readonly metadata: Readonly<Record<string, unknown>>;

  constructor(init: DelegationErrorInit) {
    super(init.message, init.cause !== undefined ? { cause: init.cause } : {});
    this.code = init.code;
    this.retryable = init.retryable;
    this.remoteStatus = init.remoteStatus;
    this.metadata = Object.freeze({ ...(init.metadata ?? {}) });
  }
}
