import type { DriverFailure } from "@adaptor/driver";
import { describeExit, type ExitCause } from "@adaptor/driver/kit";
import { stripTerminalEscapes } from "@adaptor/driver/process";

/** `text` without terminal escape codes (codex colours its log lines), trimmed. */
export function plainText(text: string): string {
  return stripTerminalEscapes(text).trim();
}

/**
 * Why codex refused to open a stored thread, from its error text (the `thread/resume` /
 * `thread/fork` error message, or exec's stderr, which carries the same message):
 * - `"missing"`: no such thread (`no rollout found for thread id …`): the only case a caller may
 *   treat as "start a fresh conversation";
 * - `"busy"`: another process is writing to the thread (`… already has an active writer`,
 *   a thread-store conflict or lock);
 * - `"other"`: anything else (transport, auth, config, I/O): an infrastructure failure.
 */
export function resumeRefusal(text: string): "missing" | "busy" | "other" {
  const plain = plainText(text);
  if (/active writer|thread-store conflict|\block(ed)?\b/i.test(plain)) return "busy";
  if (/no rollout found|thread not found|no thread (found )?with id|unknown thread/i.test(plain) || lineageGap(plain)) return "missing";
  return "other";
}

/**
 * Whether codex's refusal to open a thread says it lacks part of the thread's history: a fork whose
 * parent's rollout (through the fork point) this host does not hold (`invalid paginated history
 * lineage for …: missing source rollout`, `failed to scan paginated model context lineage: …`).
 * Such a refusal is `"missing"` for {@link resumeRefusal}, and never a reason to start fresh.
 */
export function lineageGap(text: string): boolean {
  return /missing source rollout|paginated (history|model context) lineage/i.test(plainText(text));
}

/**
 * The API's own message inside a codex error message. codex 0.171.0 reports a failed model call as
 * the raw response body, e.g. `{"error":{"message":"scripted error 400","type":"invalid_request_error",...}}`
 * (seen for HTTP 400 in both app-server and exec); this returns `"scripted error 400"` for it, the
 * text itself when it is not such a body.
 */
export function apiMessage(text: string): { message: string; apiError?: Record<string, unknown> } {
  const trimmed = text.trim();
  if (trimmed.startsWith("{")) {
    try {
      const body = JSON.parse(trimmed) as { error?: unknown; message?: unknown };
      const error = typeof body.error === "object" && body.error !== null ? (body.error as Record<string, unknown>) : undefined;
      if (error && typeof error.message === "string") return { message: error.message, apiError: error };
      if (typeof body.message === "string") return { message: body.message };
    } catch {
      // not JSON after all
    }
  }
  return { message: text };
}

/** The text codex 0.171.0 reports a model call that got HTTP 500 with (its `InternalServerError`), in place of the API's answer. */
export const CODEX_HTTP_500_MESSAGE = "We\u2019re currently experiencing high demand, which may cause temporary errors.";

/**
 * The model API's HTTP status of a failed codex model call, when codex names it (codex 0.171.0):
 * - app-server's `codexErrorInfo` variant that carries it, e.g.
 *   `{"httpConnectionFailed":{"httpStatusCode":401}}` or `{"responseTooManyFailedAttempts":{"httpStatusCode":429}}`;
 * - the error text of either transport: `unexpected status 401 Unauthorized: …`,
 *   `exceeded retry limit, last status: 429 Too Many Requests, …`;
 * - an error text that is the API's own JSON error body (`{"error":{…}}`, see {@link apiMessage}):
 *   codex reports a failed model call so only for an HTTP 400 (its invalid-request error), so 400;
 * - codex's error for an HTTP 500, which names no status: app-server's `codexErrorInfo`
 *   `"internalServerError"`, or (both transports) its fixed text {@link CODEX_HTTP_500_MESSAGE}, so 500.
 *
 * Undefined when none of these is there (a connection that never got an answer, a codex-side error).
 */
export function apiErrorStatus(errorMessage: string | undefined, codexErrorInfo?: unknown): number | undefined {
  if (codexErrorInfo === "internalServerError") return 500;
  if (typeof codexErrorInfo === "object" && codexErrorInfo !== null) {
    for (const variant of Object.values(codexErrorInfo as Record<string, unknown>)) {
      const status = (variant as { httpStatusCode?: unknown } | null)?.httpStatusCode;
      if (typeof variant === "object" && Number.isInteger(status)) return status as number;
    }
  }
  if (errorMessage === undefined) return undefined;
  const named = /\b(?:unexpected status|last status:?) ([1-5]\d\d)\b/.exec(errorMessage);
  if (named) return Number(named[1]);
  if (errorMessage.trim() === CODEX_HTTP_500_MESSAGE) return 500;
  return apiMessage(errorMessage).apiError ? 400 : undefined;
}

/**
 * The cause codex logged for its last model-call retry, from its stderr: codex 0.171.0 writes
 * `WARN codex_core::responses_retry: stream connection failed; waiting to retry turn_id=… error=Connection failed: error sending request retry_delay=5s`
 * and this returns `"Connection failed: error sending request"` for it; undefined when no such line is there.
 */
export function retryCause(stderrTail: string): string | undefined {
  const lines = plainText(stderrTail).split("\n");
  for (let i = lines.length - 1; i >= 0; i--) {
    const match = /waiting to retry.*?\berror=(.*?)(?:\s+retry_delay=\S+)?\s*$/.exec(lines[i]!);
    if (match?.[1]) return match[1];
  }
  return undefined;
}

/** How a codex turn ended, as the classifier needs it (both transports). */
export interface CodexTurnEnd extends ExitCause {
  /** Terminal status: app-server `turn.status`, exec `turn.completed` → `"completed"`, `turn.failed` → `"failed"`; undefined when none arrived. */
  readonly status: "completed" | "interrupted" | "failed" | "inProgress" | undefined;
  /** The turn's error message (raw), when failed. */
  readonly errorMessage?: string;
  /** app-server `codexErrorInfo`, when given. */
  readonly codexErrorInfo?: unknown;
  readonly stderrTail: string;
}

/**
 * Classifies a finished codex turn: `completed` is no failure; `failed` is `agent_error` carrying
 * the API's message ({@link apiMessage}) and, when codex names it, the HTTP status in
 * `details.apiErrorStatus` ({@link apiErrorStatus}); `interrupted` (not asked for by the host) is `cancelled`;
 * no terminal at all (codex exited first, was killed by a signal the SDK did not send, or was ended
 * by the SDK after its stdout ended: `endedBySdk`) is `agent_error` with the exit code or signal,
 * worded as {@link describeExit} does, and the stderr tail (escape codes stripped).
 */
export function classifyCodexTurn(end: CodexTurnEnd): DriverFailure | undefined {
  const { status, exitCode, exitSignal } = end;
  const stderrTail = plainText(end.stderrTail);
  if (status === "completed") return undefined;
  if (status === undefined || status === "inProgress") {
    const how = describeExit(end);
    return {
      reason: "agent_error",
      message: `codex exited (${how}) before the turn completed${stderrTail ? `: ${stderrTail}` : ""}`,
      details: { exitCode, exitSignal, stderrTail },
    };
  }
  if (status === "interrupted") {
    return { reason: "cancelled", message: "codex turn interrupted", details: { status, exitCode } };
  }
  const raw = end.errorMessage ?? "codex turn failed";
  const { message, apiError } = apiMessage(raw);
  const httpStatus = apiErrorStatus(end.errorMessage, end.codexErrorInfo);
  return {
    reason: "agent_error",
    message,
    details: {
      status,
      ...(httpStatus !== undefined ? { apiErrorStatus: httpStatus } : {}),
      ...(end.codexErrorInfo !== undefined && end.codexErrorInfo !== null ? { codexErrorInfo: end.codexErrorInfo } : {}),
      ...(apiError ? { apiError } : {}),
      rawMessage: raw,
      exitCode,
    },
  };
}

/** Default of `CodexConfig.maxModelRetries`. */
export const MAX_MODEL_RETRIES = 3;

/**
 * The verdict of a turn that codex kept retrying a model call for (`CodexConfig.maxModelRetries`):
 * `agent_error` with codex's last error text, the cause it logged (`cause`, from its stderr), the retry count
 * and the last HTTP status when codex named it (`apiErrorStatus`).
 */
export function modelUnreachable(
  gaveUp: { readonly message: string; readonly retries: number; readonly codexErrorInfo?: unknown },
  logged: string | undefined,
): DriverFailure {
  const cause = logged && !gaveUp.message.includes(logged) ? logged : undefined;
  const httpStatus = apiErrorStatus(gaveUp.message, gaveUp.codexErrorInfo);
  return {
    reason: "agent_error",
    message: `model unreachable: ${gaveUp.message}${cause ? ` (${cause})` : ""}; no model output after ${gaveUp.retries} ${gaveUp.retries === 1 ? "retry" : "retries"}`,
    details: {
      retries: gaveUp.retries,
      ...(httpStatus !== undefined ? { apiErrorStatus: httpStatus } : {}),
      rawMessage: gaveUp.message,
      ...(cause ? { cause } : {}),
      ...(gaveUp.codexErrorInfo !== undefined && gaveUp.codexErrorInfo !== null ? { codexErrorInfo: gaveUp.codexErrorInfo } : {}),
    },
  };
}
