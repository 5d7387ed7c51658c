import type { IncomingMessage } from "node:http";

/** Cross-origin access, off unless configured. */
export interface CorsOptions {
  /** Origins allowed to call the bridge from a browser (`"https://app.example"`), or `"*"` for any. */
  readonly origins: readonly string[] | "*";
  /** Allow cookies and HTTP authentication on cross-origin requests (`Access-Control-Allow-Credentials`). Default false; refused with `"*"`. */
  readonly credentials?: boolean;
  /** How long a browser may cache a preflight answer, seconds. Default 600. */
  readonly maxAgeSeconds?: number;
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
