import { REDACTED } from "./redact-values.js";

/** A URL parameter name that says its value is a credential: `api_key`, `access_token`, `X-Amz-Signature`, `sig`. */
const CREDENTIAL_PARAM = String.raw`[\w.-]*(?:key|token|secret|passw(?:or)?d|pwd|credential|auth|session|signature)[\w.-]*|sig`;
const CREDENTIAL_PARAM_NAME = new RegExp(`^(?:${CREDENTIAL_PARAM})$`, "i");
/** A query (or fragment) parameter whose name says credential, e.g. `?api_key=…`, `&access_token=…`. */
const QUERY_CREDENTIAL = new RegExp(String.raw`([?&#;](?:${CREDENTIAL_PARAM})=)[^&#\s"'<>]+`, "gi");
/**
 * The userinfo of a URL, all of it (it may all be a credential): `scheme://user:password@`,
 * `scheme://token@`, or `scheme://user:pass word@` (a password may hold spaces; its group 2).
 */
const URL_USERINFO = /(\b[a-z][a-z0-9+.-]*:\/\/)(?:[^/?#\s@]+|[^/\s:@]*:([^/@\n]*))@/gi;

/**
 * Whether a URL query parameter named `name` carries a credential, by the names
 * {@link redactUrlCredentials} redacts: names containing key, token, secret, password, passwd,
 * pwd, credential, auth, session or signature (any case), and `sig`.
 */
export function isCredentialParam(name: string): boolean {
  return CREDENTIAL_PARAM_NAME.test(name);
}

/**
 * `text` with the credentials of the URLs in it replaced by `marker`: a URL's whole userinfo
 * (`https://user:pw@host`, `https://token@host`, `https://:pw@host` → `https://[redacted]@host`;
 * a password may hold spaces) and the value of each query or fragment parameter named like a
 * credential ({@link isCredentialParam}: `?api_key=…`, `&access_token=…`, `#token=…`, `&sig=…`).
 * A `scheme://host:port` followed by prose and a later `@` (`http://h:80 or mail me@x`) is left
 * alone: what looks like a password there is a port. Nothing else changes.
 * @param text any text, possibly several lines.
 * @param marker what replaces each credential; default {@link REDACTED}.
 */
export function redactUrlCredentials(text: string, marker = REDACTED): string {
  return text
    .replace(URL_USERINFO, (match: string, scheme: string, password: string | undefined) =>
      password !== undefined && /^\d*\s/.test(password) ? match : `${scheme}${marker}@`,
    )
    .replace(QUERY_CREDENTIAL, (_match: string, name: string) => `${name}${marker}`);
}
