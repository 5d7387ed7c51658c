import { ErrApprovalKindMismatch, ErrApprovalNotPending, ErrCode, ErrThreadBusy, RunError, errorCode, isError } from "adaptor";

/** Longest error message an error event carries, in characters. */
export const MAX_PUBLIC_MESSAGE_CHARS = 500;

const SECRET_NAME = /(KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL|AUTH)/i;

/** Values of this process's environment variables whose names look like credentials (8+ characters). */
export function secretEnvValues(env: NodeJS.ProcessEnv = process.env): string[] {
  const values = new Set<string>();
  for (const [name, value] of Object.entries(env)) {
    if (value !== undefined && value.length >= 8 && SECRET_NAME.test(name)) values.add(value);
  }
  // Longest first, so a value that contains another is replaced whole.
  return [...values].sort((a, b) => b.length - a.length);
}

/**
 * What an error event may say about a failure: the message's first line (no stack trace), with
 * credential-looking text (API keys, bearer tokens, `NAME_KEY=value` pairs, URL passwords, the
 * values of the process's credential variables) replaced by `[redacted]`, at most
 * {@link MAX_PUBLIC_MESSAGE_CHARS} characters.
 */
export function publicMessage(message: string, secrets: readonly string[] = []): string {
  let text = message.split(/\r?\n/).find((line) => line.trim() !== "" && !/^\s+at\s/.test(line)) ?? "";
  for (const secret of secrets) text = text.split(secret).join("[redacted]");
  text = text
    .replace(/\bsk-[A-Za-z0-9_-]{8,}/g, "[redacted]")
    .replace(/\b(Bearer|Basic|Token)\s+[A-Za-z0-9._~+/=-]{8,}/gi, "$1 [redacted]")
    .replace(
      /\b([A-Za-z0-9_]*(?:key|token|secret|password|passwd|credential)[A-Za-z0-9_]*)(\s*[=:]\s*)("[^"]*"|'[^']*'|[^\s,;)]+)/gi,
      "$1$2[redacted]",
    )
    .replace(/:\/\/[^/\s:@]+:[^/\s@]+@/g, "://[redacted]@")
    .trim();
  return text.length > MAX_PUBLIC_MESSAGE_CHARS ? `${text.slice(0, MAX_PUBLIC_MESSAGE_CHARS - 1)}…` : text;
}

/**
 * A short machine-readable code for a failed verdict: the `RunError` reason, `cancelled` for an
 * abort, `approval_not_pending` / `approval_kind_mismatch` / `thread_busy` for what a resume can
 * meet, else the `ErrCode` or `error`.
 */
export function failureCode(error: unknown): string {
  if (error instanceof RunError) return error.reason;
  if (isAbort(error)) return "cancelled";
  // What a resume can meet, so a client can tell them apart without reading the message.
  if (isError(error, ErrApprovalNotPending)) return "approval_not_pending";
  if (isError(error, ErrApprovalKindMismatch)) return "approval_kind_mismatch";
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
