/**
 * A model-call retry as codex 0.171.0 announces it, in the message of exec's `error` line or of the
 * app server's `error` notification. exec's line carries only a `message` (no `willRetry` flag, no
 * error code, unlike the app server's notification), so there the wording is the only signal. The
 * variants it emits, seen on the wire:
 * - `Reconnecting... waiting for network (Connection failed: error sending request)`: the model
 *   server cannot be reached over HTTP (retried without end, whatever the retry settings say);
 * - `Reconnecting... 1/2 (unexpected status 502 Bad Gateway: …)`: a failed response stream retried,
 *   attempt 1 of `stream_max_retries` 2 (also after HTTP 500, with codex's own text, and a DNS
 *   failure). codex bounds these itself: after the last one it fails the turn, or, when it was
 *   trying a websocket (the built-in provider tries one first, 5 times), falls back to HTTP POST
 *   (see {@link leftToCodex}). The app server's message is the bare `Reconnecting... 2/5`.
 * A final error (`unexpected status 502 …`, `exceeded retry limit, last status: 429 …`) does not
 * start with `Reconnecting` and is followed by `turn.failed`. Leading blanks and a `…` for `...` are
 * accepted too.
 */
const RETRY = /^\s*Reconnecting(?:\.{3}|\u2026)(?:\s*(\d+)\s*\/\s*(\d+))?/;

/**
 * What a retry announcement says: the attempt and the most attempts when codex counts them (a
 * retry codex bounds itself).
 */
export interface RetryAnnouncement {
  readonly attempt?: number;
  readonly maxAttempts?: number;
}

/**
 * The tries of a retry codex counts itself (`Reconnecting... n/m`) that are left to codex's own
 * bound: the built-in provider's websocket tries (5, its default `stream_max_retries`), after which
 * codex falls back to HTTP POST, and any series of at most 5, which codex ends within about 6 s of
 * doubling backoff (0.2 s, 0.4 s, … 3.2 s). A later try of a longer series (a provider's own
 * `stream_max_retries` up to 100, its backoff doubling without a cap: the 20th waits about 29
 * hours) counts toward the driver's `maxModelRetries` like any retry codex does not bound.
 */
export const CODEX_OWN_RETRIES = 5;

/**
 * True when the announced retry is left to codex's own bound (not counted toward
 * `maxModelRetries`): codex counts it (`n/m`) and it is one of the first {@link CODEX_OWN_RETRIES}.
 */
export function leftToCodex(retry: RetryAnnouncement | undefined): boolean {
  return retry?.maxAttempts !== undefined && retry.attempt !== undefined && retry.attempt <= CODEX_OWN_RETRIES;
}

/** The retry `message` announces, or undefined for any other `error` line. */
export function retryAnnouncement(message: string): RetryAnnouncement | undefined {
  const match = RETRY.exec(message);
  if (!match) return undefined;
  return match[1] !== undefined && match[2] !== undefined ? { attempt: Number(match[1]), maxAttempts: Number(match[2]) } : {};
}
