import type { IncomingMessage } from "node:http";

/** Cross-origin access, off unless configured. */
export interface CorsOptions {
  /**
   * Origins allowed to call the bridge from a browser, each as a browser sends it in `Origin`
   * (`scheme://host[:port]`, lowercase, no path, no default port: `"https://app.example"`,
   * `"http://localhost:5173"`), or `"*"` for any. An entry that could never equal an `Origin`
   * header (a trailing slash or path, a wildcard, upper case, a default port) and `"null"` (what
   * every sandboxed iframe and `file:` page sends) are refused by `new Bridge`.
   */
  readonly origins: readonly string[] | "*";
  /** Allow cookies and HTTP authentication on cross-origin requests (`Access-Control-Allow-Credentials`). Default false; refused with `"*"`. */
  readonly credentials?: boolean;
  /** How long a browser may cache a preflight answer, seconds. Default 600. */
  readonly maxAgeSeconds?: number;
}

/**
 * Why `entry` of `cors.origins` is not an origin the bridge can match, or undefined when it is
 * one: it must be exactly what a browser sends in `Origin`, `scheme://host[:port]` with no path,
 * query, credentials or wildcard, in the serialisation of the URL standard (lowercase, the
 * scheme's default port left out), and not the opaque origin `"null"`.
 */
export function corsOriginFlaw(entry: string): string | undefined {
  const notAnOrigin = 'is not an origin (scheme://host[:port], e.g. "https://app.example")';
  if (entry === "null") return "is the origin every sandboxed iframe and file: page sends, whichever site made it: list real origins";
  if (entry.includes("*")) return "has a wildcard, which origins do not support: list each origin (scheme://host[:port])";
  let url: URL;
  try {
    url = new URL(entry);
  } catch {
    return notAnOrigin;
  }
  if (url.host === "" || url.username !== "" || url.password !== "" || url.search !== "" || url.hash !== "") return notAnOrigin;
  const origin = `${url.protocol}//${url.host}`;
  if (origin === entry) return undefined;
  return `is not an origin as a browser sends it (no path, lowercase, no default port); did you mean ${JSON.stringify(origin)}?`;
}

/** The CORS response headers for `req`, empty when CORS is off or the origin is not allowed. */
export function corsHeaders(cors: CorsOptions | undefined, req: IncomingMessage, preflight: boolean): Record<string, string> {
  const origin = req.headers.origin;
  if (!cors || origin === undefined) return {};
  const allowed = cors.origins === "*" || cors.origins.includes(origin);
  if (!allowed) return {};
  const headers: Record<string, string> = {
    "access-control-allow-origin": cors.origins === "*" ? "*" : origin,
    "access-control-expose-headers": "x-adaptor-run-id",
  };
  if (cors.origins !== "*") headers["vary"] = "Origin";
  if (cors.credentials) headers["access-control-allow-credentials"] = "true";
  if (preflight) {
    headers["access-control-allow-methods"] = "GET, POST, OPTIONS";
    headers["access-control-allow-headers"] = "content-type, accept, last-event-id, authorization";
    headers["access-control-max-age"] = String(cors.maxAgeSeconds ?? 600);
  }
  return headers;
}

/**
 * Whether a request may act on the bridge: one without an `Origin` header (not a browser, or a
 * same-origin GET), one from the bridge's own origin (the `Origin` host is the `Host` header), or
 * one from an origin `cors` allows. A browser sends "simple" cross-origin POSTs without a
 * preflight, so this check (with the JSON content type) is what keeps other sites' pages out.
 */
export function originAllowed(cors: CorsOptions | undefined, req: IncomingMessage): boolean {
  const origin = req.headers.origin;
  if (origin === undefined) return true;
  if (cors && (cors.origins === "*" || cors.origins.includes(origin))) return true;
  const host = req.headers.host;
  if (host === undefined || origin === "null") return false;
  try {
    const url = new URL(origin);
    return (url.protocol === "http:" || url.protocol === "https:") && url.host === host.toLowerCase();
  } catch {
    return false;
  }
}
