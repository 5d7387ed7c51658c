import { REDACTED, redactUrlCredentials, redactValues } from "@adaptor/errors/internal";

/** Longest `raw` text a {@link ProtocolError} keeps, in UTF-16 code units. */
export const MAX_RAW_CHARS = 2048;

// eslint-disable-next-line no-control-regex -- removing control characters is the point
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;
// eslint-disable-next-line no-control-regex -- removing terminal escapes is the point
const TERMINAL_ESCAPE = /\u001b\[[0-?]*[ -/]*[@-~]/g;
const AUTH_VALUE = /\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=-]+/gi;
const SECRET_FIELD = /("(?:authorization|api[-_]?key|x-api-key|token|access[-_]?token|password|secret|cookie)"\s*:\s*)"(?:[^"\\]|\\.)*"/gi;
/**
 * Text received from a remote agent, made safe to keep on an error: each of `secrets` (credential
 * values the client sent) and anything that looks like an authorization value, a secret JSON
 * field or a credential in a URL becomes `[redacted]` (as {@link redactCredentials} does);
 * terminal escapes and control characters (except newline and tab) are removed; the result is
 * cut to {@link MAX_RAW_CHARS} with a trailing `…`.
 */
export function sanitizeRaw(text: string, secrets: readonly string[] = []): string {
  const out = redactCredentials(text, secrets);
  return out.length > MAX_RAW_CHARS ? `${out.slice(0, MAX_RAW_CHARS - 1)}…` : out;
}

/**
 * `text` with each of `secrets` (at least 4 characters long; a header value `Bearer abc` or
 * `Basic abc` also as its bare `abc`) and anything that looks like an authorization value, a
 * secret JSON field, a URL's userinfo (`https://user:pw@host` → `https://[redacted]@host`, a
 * password possibly with spaces) or the value of a URL query parameter named like a credential
 * (`?api_key=…`, `&access_token=…`, `&sig=…`: names containing key, token, secret, password,
 * passwd, pwd, credential, auth, session or signature) replaced by `[redacted]`, and terminal
 * escapes and control characters (except newline and tab) removed; not cut. Each secret is found
 * as it is, in any letter case, URL-encoded, base64-encoded (alone or inside longer base64 text) or JSON-escaped as `\/` or `\u002b` (the SDK's shared value redaction).
 * What {@link sanitizeRaw} does before cutting, and what error messages built from a remote's text
 * go through.
 */
export function redactCredentials(text: string, secrets: readonly string[] = []): string {
  const values: string[] = [];
  for (const secret of secrets) {
    if (secret.length < 4) continue;
    values.push(secret);
    // A header value such as "Bearer abc" is also redacted when echoed alone ("abc").
    const bare = /^(?:Bearer|Basic)\s+(\S{4,})$/i.exec(secret)?.[1];
    if (bare) values.push(bare);
  }
  // Longest first, so a value that contains another is replaced whole.
  const out = redactValues(
    text,
    values.sort((a, b) => b.length - a.length),
  )
    .replace(TERMINAL_ESCAPE, "")
    .replace(CONTROL, "")
    .replace(AUTH_VALUE, `$1 ${REDACTED}`)
    .replace(SECRET_FIELD, `$1"${REDACTED}"`);
  return redactUrlCredentials(out);
}
