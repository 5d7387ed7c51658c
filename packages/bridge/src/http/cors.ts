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
