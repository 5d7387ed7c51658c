import {
  ErrApprovalKindMismatch,
  ErrInvalidOption,
  ErrApprovalNotPending,
  ErrCode,
  ErrThreadBusy,
  RunError,
  errorCode,
  isError,
  publicMessage,
} from "adaptor";

// The redaction is shared with the A2A server: it lives in `adaptor`.
export { MAX_PUBLIC_MESSAGE_CHARS, publicMessage, secretEnvValues } from "adaptor";

/**
 * Failures whose own message describes the server rather than the run (a busy thread's names the
 * lease holder, often a host name and process id, and when its lease lapses): a client gets this
 * fixed message for the code instead.
 */
const FIXED_MESSAGES: Readonly<Record<string, string>> = { thread_busy: "thread busy" };

/** The `subject` of the `InvalidOptionError` a resume's decision gets (`thread.answer()`). */
const RESUME_DECISION = "resume decision";

/**
 * The message an error event carries for a failure with `code` ({@link failureCode}): a fixed one
 * for a busy thread, else `publicMessage(message, secrets)`.
 */
export function failureMessage(code: string | undefined, message: string, secrets: readonly string[]): string {
  return (code !== undefined ? FIXED_MESSAGES[code] : undefined) ?? publicMessage(message, secrets);
}

/**
 * A short machine-readable code for a failed verdict: the `RunError` reason, `cancelled` for an
 * abort, `approval_not_pending` / `approval_kind_mismatch` / `approval_invalid_choice` /
 * `thread_busy` for what a resume can meet, else the `ErrCode` or `error`.
 */
export function failureCode(error: unknown): string {
  if (error instanceof RunError) return error.reason;
  if (isAbort(error)) return "cancelled";
  // What a resume can meet, so a client can tell them apart without reading the message.
  if (isError(error, ErrApprovalNotPending)) return "approval_not_pending";
  if (isError(error, ErrApprovalKindMismatch)) return "approval_kind_mismatch";
  // By its message, which a fleet's rebuilt worker error keeps (its `field` is not carried over).
  if (isError(error, ErrInvalidOption) && error instanceof Error && error.message.startsWith(`${RESUME_DECISION}: choice `))
    return "approval_invalid_choice";
  if (isError(error, ErrThreadBusy)) return "thread_busy";
  return errorCode(error) ?? carriedCode(error) ?? "error";
}

const ERR_CODES = new Set<unknown>(Object.values(ErrCode));

/** The `ErrCode` an error carries in its `code` field without being a `DriverError` (one rebuilt from a fleet worker's verdict). */
function carriedCode(error: unknown): string | undefined {
  const code = typeof error === "object" && error !== null ? (error as { code?: unknown }).code : undefined;
  return ERR_CODES.has(code) ? (code as string) : undefined;
}

/** True for a run cancelled through its signal or `stream.cancel()` (an `AbortError`). */
export function isAbort(error: unknown): boolean {
  return typeof error === "object" && error !== null && (error as { name?: unknown }).name === "AbortError";
}
