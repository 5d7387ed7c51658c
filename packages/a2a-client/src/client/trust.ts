import { AdaptorError } from "@adaptor/errors";
import { ErrUnauthorized, ErrUntrustedOrigin } from "../errors/sentinels.js";
import { readBounded } from "./bounded-body.js";

/** Redirects a request may follow before it fails. */
export const DEFAULT_MAX_REDIRECTS = 5;

/** How much of a 401/403 body is read, in bytes. */
const MAX_REFUSAL_BODY_BYTES = 64 * 1024;

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

/** What a failed HTTP exchange left behind, for the operation that turns it into a `ProtocolError`. */
export class HttpFailure extends AdaptorError {
  static override readonly brand: symbol = Symbol.for("adaptor.error.a2a.HttpFailure");
  readonly status: number | undefined;
  readonly raw: string | undefined;
  constructor(message: string, init: { sentinel?: typeof ErrUnauthorized; status?: number; raw?: string; cause?: unknown }) {
    super(message, {
      ...(init.sentinel ? { sentinel: init.sentinel } : {}),
      ...(init.cause !== undefined ? { cause: init.cause } : {}),
    });
    this.status = init.status;
    this.raw = init.raw;
  }
}

/** The origin of `url` (`scheme://host:port`), or a TypeError for a string that is not an absolute URL. */
export function originOf(url: string | URL): string {
  return (typeof url === "string" ? new URL(url) : url).origin;
}

/**
 * A `fetch` that sends credentials only where the client options allow: each request (and each
 * redirect hop, followed by hand) goes to a trusted origin, or, when credentials are configured,
 * fails with `ErrUntrustedOrigin` before anything is sent. HTTP 401 and 403 become
 * `ErrUnauthorized`.
 */
export function guardedFetch(settings: {
  readonly base: typeof fetch;
  readonly credentials: Readonly<Record<string, string>>;
  readonly trusted: ReadonlySet<string>;
  readonly maxRedirects: number;
}): typeof fetch {
  const { base, credentials, trusted, maxRedirects } = settings;
  const hasCredentials = Object.keys(credentials).length > 0;
  const guarded = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    let url = new URL(input instanceof Request ? input.url : String(input));
    let method = init?.method ?? (input instanceof Request ? input.method : "GET");
    let body = init?.body;
    for (let hop = 0; ; hop++) {
      const isTrusted = trusted.has(url.origin);
      if (hasCredentials && !isTrusted) {
        throw new AdaptorError(
          hop === 0
            ? `refusing to send credentials to ${url.origin}: not a trusted origin`
            : `refusing to follow a redirect to ${url.origin} with credentials: not a trusted origin`,
          { sentinel: ErrUntrustedOrigin },
        );
      }
      const headers = new Headers(init?.headers ?? (input instanceof Request ? input.headers : undefined));
      if (isTrusted) for (const [name, value] of Object.entries(credentials)) headers.set(name, value);
      const response = await base(url, { ...init, method, headers, ...(body !== undefined ? { body } : {}), redirect: "manual" });
      const location = response.headers.get("location");
      if (REDIRECTS.has(response.status) && location) {
        await response.body?.cancel().catch(() => undefined);
        if (hop >= maxRedirects) throw new HttpFailure(`more than ${maxRedirects} redirects`, { status: response.status });
        url = new URL(location, url);
        if (response.status === 303 || ((response.status === 301 || response.status === 302) && method === "POST")) {
          method = "GET";
          body = undefined;
        }
        continue;
      }
      if (response.status === 401 || response.status === 403) {
        // Only the start of the body is kept (`raw` is cut to 2048 characters): a remote cannot make it large.
        const raw = await readBounded(response, MAX_REFUSAL_BODY_BYTES).then(
          ({ bytes }) => new TextDecoder().decode(bytes),
          () => "",
        );
        throw new HttpFailure(`HTTP ${response.status}`, { sentinel: ErrUnauthorized, status: response.status, raw });
      }
      return response;
    }
  };
  return guarded as typeof fetch;
}
