import { REDACTED, redactUrlCredentials, redactValues, secretEnvValues } from "@adaptor/errors/internal";

export { secretEnvValues };

/** Longest error message a server puts on the wire ({@link publicMessage}), in characters. */
export const MAX_PUBLIC_MESSAGE_CHARS = 500;

let current: string[] | undefined;
const forget = (): void => {
  current = undefined;
};

/**
 * {@link secretEnvValues} of `process.env` as it is now, for a server redacting a failure or a
 * notice as it sends it: a variable set after the server was built (a vault loader, a key
 * rotation) is redacted too. Reading the environment costs a fraction of a millisecond, so the
 * values are read once per turn of the event loop: every call in one turn shares them, and a
 * change made in an earlier turn is always seen.
 */
export function currentSecretEnvValues(): readonly string[] {
  if (current === undefined) {
    current = secretEnvValues();
    setImmediate(forget).unref();
  }
  return current;
}

/** A name that says its value is a credential, as a key in `name=value`, `name: value` or JSON. */
const CREDENTIAL_NAME = String.raw`[A-Za-z0-9_-]*(?:key|token|secret|password|passwd|credential)[A-Za-z0-9_-]*`;

/** A JSON (or single-quoted) `"name": "value"` pair whose name says credential; the value is replaced. */
const JSON_CREDENTIAL_PAIR = new RegExp(
  String.raw`(["'])(${CREDENTIAL_NAME})\1([^\S\r\n]*:[^\S\r\n]*)(?:"(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*')`,
  "gi",
);

/** A `name=value` or `name: value` pair whose name says credential; the value is replaced. */
const CREDENTIAL_PAIR = new RegExp(String.raw`\b(${CREDENTIAL_NAME})([^\S\r\n]*[=:][^\S\r\n]*)("[^"\n]*"|'[^'\n]*'|[^\s,;)"'}]+)`, "gi");

/** Credential formats recognised by their shape alone, each replaced whole by `[redacted]`. */
const TOKEN_SHAPES: readonly RegExp[] = [
  // PEM private keys (to the block's end, else to the end of the text: its body may follow on later lines).
  /-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----[\s\S]*?(?:-----END [A-Z0-9 ]*PRIVATE KEY-----|$)/g,
  // JSON Web Tokens: base64url header `{"…` and payload, signature possibly empty.
  /\beyJ[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]*/g,
  // OpenAI / Anthropic style API keys.
  /\bsk-[A-Za-z0-9_-]{8,}/g,
  // GitHub personal, OAuth, user-to-server, server-to-server and refresh tokens; fine-grained PATs.
  /\bgh[pousr]_[A-Za-z0-9]{20,}/g,
  /\bgithub_pat_[A-Za-z0-9_]{20,}/g,
  // Slack bot, user, app, refresh and legacy tokens.
  /\bxox[abprs]-[A-Za-z0-9-]{8,}/g,
  // AWS access key ids (long-term and temporary).
  /\b(?:AKIA|ASIA)[A-Z0-9]{16}\b/g,
  // Google API keys.
  /\bAIza[A-Za-z0-9_-]{30,}/g,
];

/**
 * What a server may tell a remote client about a failure (the bridge's error events, the A2A
 * server's failed tasks): the message's first line that is not a stack frame, control characters
 * removed, with credential-looking text replaced by `[redacted]`, cut to
 * {@link MAX_PUBLIC_MESSAGE_CHARS} characters (the last one `…`). Redacted are: each of `secrets`;
 * `-----BEGIN … PRIVATE KEY-----` blocks; JSON Web Tokens; `sk-…` API keys; GitHub (`ghp_…`,
 * `gho_…`, `github_pat_…`), Slack (`xoxb-…`), AWS (`AKIA…`, `ASIA…`) and Google (`AIza…`) keys;
 * bearer/basic tokens; the value of a key/token/secret/password/credential-named pair, as
 * `NAME=value`, `name: value` or JSON `"name": "value"`; what follows a `Cookie:` or `Set-Cookie:`
 * header name, to the line's end; and the credentials of URLs: a URL's whole userinfo
 * (`scheme://user:pw@`, `scheme://token@`, `scheme://:pw@`, spaces allowed in a password) and the
 * value of a query parameter named like a credential (`?api_key=…`, `&access_token=…`, `&sig=…`:
 * names containing key, token, secret, password, passwd, pwd, credential, auth, session or
 * signature). Each secret is also found in another letter case, URL-encoded, base64-encoded (alone or inside longer base64 text) or JSON-escaped (`\/`, `\u002b`).
 * @param message the failure's message.
 * @param secrets literal values to redact, e.g. {@link secretEnvValues}; default none.
 */
export function publicMessage(message: string, secrets: readonly string[] = []): string {
  let text = message.split(/\r?\n/).find((line) => line.trim() !== "" && !/^\s+at\s/.test(line)) ?? "";
  text = redactValues(text, secrets);
  // eslint-disable-next-line no-control-regex -- removing control characters is the point
  text = text.replace(/[\u0000-\u001f\u007f-\u009f]/g, "");
  text = redactShapes(text).trim();
  return text.length > MAX_PUBLIC_MESSAGE_CHARS ? `${text.slice(0, MAX_PUBLIC_MESSAGE_CHARS - 1)}…` : text;
}

/**
 * `text` with the credential-looking parts {@link publicMessage} redacts replaced by `[redacted]`,
 * and nothing else changed (every line kept, no length cut): for what a server forwards as it is,
 * such as a run's notices (a CLI's stderr line, an SDK's log line) on the bridge.
 * @param text any text, possibly several lines.
 * @param secrets literal values to redact, e.g. {@link secretEnvValues}; default none.
 */
export function redactCredentials(text: string, secrets: readonly string[] = []): string {
  return redactShapes(redactValues(text, secrets));
}

/** The shape-based redaction of {@link publicMessage}; each rule stays within a line, except a PEM block. */
function redactShapes(text: string): string {
  let out = text;
  for (const shape of TOKEN_SHAPES) out = out.replace(shape, REDACTED);
  out = out
    .replace(/\b(Bearer|Basic|Token)[^\S\r\n]+[A-Za-z0-9._~+/=-]{8,}/gi, `$1 ${REDACTED}`)
    .replace(JSON_CREDENTIAL_PAIR, `$1$2$1$3"${REDACTED}"`)
    .replace(CREDENTIAL_PAIR, `$1$2${REDACTED}`)
    .replace(/\b((?:set-)?cookie)([^\S\r\n]*:[^\S\r\n]*)[^\r\n]+/gi, `$1$2${REDACTED}`);
  return redactUrlCredentials(out);
}
