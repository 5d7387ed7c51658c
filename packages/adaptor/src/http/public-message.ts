/** Longest error message a server puts on the wire ({@link publicMessage}), in characters. */
export const MAX_PUBLIC_MESSAGE_CHARS = 500;

const SECRET_NAME = /(KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL|AUTH)/i;

/**
 * The values of `env`'s variables whose names look like credentials (`KEY`, `TOKEN`, `SECRET`,
 * `PASSWORD`, `PASSWD`, `CREDENTIAL`, `AUTH`) and that are at least 8 characters long, longest
 * first: what {@link publicMessage} replaces wherever it finds them.
 * @param env the environment to read; default `process.env`.
 */
export function secretEnvValues(env: NodeJS.ProcessEnv = process.env): string[] {
  const values = new Set<string>();
  for (const [name, value] of Object.entries(env)) {
    if (value !== undefined && value.length >= 8 && SECRET_NAME.test(name)) values.add(value);
  }
  // Longest first, so a value that contains another is replaced whole.
  return [...values].sort((a, b) => b.length - a.length);
}

/**
 * What a server may tell a remote client about a failure (the bridge's error events, the A2A
 * server's failed tasks): the message's first line that is not a stack frame, control characters
 * removed, with credential-looking text (`sk-…` API keys, bearer/basic tokens, `NAME_KEY=value`
 * and `password: value` pairs, URL passwords, and each of `secrets`) replaced by `[redacted]`,
 * cut to {@link MAX_PUBLIC_MESSAGE_CHARS} characters (the last one `…`).
 * @param message the failure's message.
 * @param secrets literal values to redact, e.g. {@link secretEnvValues}; default none.
 */
export function publicMessage(message: string, secrets: readonly string[] = []): string {
  let text = message.split(/\r?\n/).find((line) => line.trim() !== "" && !/^\s+at\s/.test(line)) ?? "";
  for (const secret of secrets) text = text.split(secret).join("[redacted]");
  text = text
    // eslint-disable-next-line no-control-regex -- removing control characters is the point
    .replace(/[\u0000-\u001f\u007f-\u009f]/g, "")
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
