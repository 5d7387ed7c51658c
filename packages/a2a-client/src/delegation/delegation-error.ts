import { AdaptorError } from "@adaptor/errors";

/**
 * Why a delegation failed. `remote_failed`, `rejected`, `canceled`, `input_required` and
 * `auth_required` come from the remote task's state; `unauthorized`, `not_found`, `unsupported`,
 * `untrusted_origin`, `invalid_agent_card` and `protocol` from the client's error identities;
 * `unreachable` is a connection failure, `stream_lost` a stream that could not be recovered,
 * `timeout` the delegation's own deadline.
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
  | "timeout";

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
}

/**
 * A delegated task did not complete: a remote or business failure of the sub-agent, reported with
 * a closed `code`, a `message` safe to show the model, whether trying again may help
 * (`retryable`), the remote task state when one was reached (`remoteStatus`, e.g. `"failed"`) and
 * structured detail (`metadata`: the remote task id, the remote failure code).
 *
 * It has no sentinel and no unwrap contract: match it with `findError(err, DelegationError)` and
 * read its fields; it keeps no `cause`.
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
    super(init.message);
    this.code = init.code;
    this.retryable = init.retryable;
    this.remoteStatus = init.remoteStatus;
    this.metadata = Object.freeze({ ...(init.metadata ?? {}) });
  }
}
