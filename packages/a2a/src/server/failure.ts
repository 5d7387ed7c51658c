import { currentSecretEnvValues, ErrInvalidThreadKey, findError, InvalidThreadKeyError, isError, publicMessage, RunError } from "adaptor";

/**
 * The closed set of failure codes an A2A task of this server can end with, under the status
 * message's `metadata["adaptor.failure"].code`. Business failures of the run keep their reason
 * (`approval_denied`, `approval_timeout`, `agent_error`, `policy_violation`,
 * `active_execution_timeout`; `cancelled` ends the task `canceled`); an unknown reason is
 * `agent_error`; anything that is not a business failure (a CLI that cannot start, a timeout of
 * the SDK, a store failure) is `error`, with no detail; a thread key the SDK refuses (the one the
 * runner picker or `threadKey` option derived from the client's `contextId`) is `invalid_id`, not
 * retryable.
 */
export type A2AFailureCode =
  | "approval_denied"
  | "approval_timeout"
  | "agent_error"
  | "policy_violation"
  | "active_execution_timeout"
  | "cancelled"
  | "invalid_id"
  | "error";

const BUSINESS = new Set<string>([
  "approval_denied",
  "approval_timeout",
  "agent_error",
  "policy_violation",
  "active_execution_timeout",
  "cancelled",
]);

/** Longest failure message a task carries, in characters (after the `"<code>: "` prefix). */
export const MAX_FAILURE_MESSAGE_CHARS = 500;

/** A run's failure as the task reports it: the code, and a message fit for a remote client. */
export interface TaskFailure {
  /** The closed failure code. */
  readonly code: A2AFailureCode;
  /** `"<code>: <first line of the message, redacted>"`, or `"error: internal error"`. */
  readonly message: string;
  /** True when the same request may succeed later (an approval that timed out, an internal error). */
  readonly retryable: boolean;
}

/**
 * Maps a run's rejection to its {@link TaskFailure}. A `RunError` keeps its reason and what
 * `publicMessage` (from `adaptor`, the redaction the bridge applies too) keeps of its message: the
 * first line, control characters removed, API keys, tokens, `NAME_KEY=value` pairs, URL
 * credentials (userinfo and credential-named query values) and the values of `secrets` replaced
 * by `[redacted]`, cut to 500 characters. `ErrInvalidThreadKey` (the key derived from the task's
 * `contextId` breaks the SDK's key rules) is `invalid_id` with the rule it breaks, not retryable.
 * Any other error is
 * `error` with the fixed message `"internal error"`: no message, stack or cause of it leaves the host.
 * @param secrets literal values to redact; default the values of this process's credential-looking
 *   environment variables as they are now (`currentSecretEnvValues()` from `adaptor`).
 */
export function taskFailure(error: unknown, secrets: readonly string[] = currentSecretEnvValues()): TaskFailure {
  if (error instanceof RunError) {
    const code = (BUSINESS.has(error.reason) ? error.reason : "agent_error") as A2AFailureCode;
    const line = publicMessage(error.message, secrets);
    const message = line.length > MAX_FAILURE_MESSAGE_CHARS ? `${line.slice(0, MAX_FAILURE_MESSAGE_CHARS - 1)}…` : line;
    return { code, message: `${code}: ${message || "the run failed"}`, retryable: code === "approval_timeout" };
  }
  if (isError(error, ErrInvalidThreadKey)) {
    const reason = findError(error, InvalidThreadKeyError)?.reason ?? "it breaks the key rules";
    return { code: "invalid_id", message: `invalid_id: the thread key of this context ${reason}`, retryable: false };
  }
  return { code: "error", message: "error: internal error", retryable: true };
}
