import { DriverError, ErrCode } from "@adaptor/errors";
import { ErrProtocol } from "../errors/sentinels.js";

/**
 * Default of `A2AClientOptions.maxResponseBytes`: the largest answer body (a blocking `SendMessage`,
 * `GetTask`, `CancelTask`, an error body) the client reads, 16 MiB. A blocking answer carries the
 * whole task (history and artifacts), so it may be several times the largest stream event the SDK
 * accepts (4 MiB).
 */
export const DEFAULT_MAX_RESPONSE_BYTES = 16 * 1024 * 1024;

/** A body read up to a limit. */
export interface BoundedBody {
  /** What was read: the whole body, or its first bytes up to the limit. */
  readonly bytes: Uint8Array;
  /** False when the body was longer than the limit (or announced so): the rest was not read. */
  readonly complete: boolean;
}

/**
 * Reads `response`'s body up to `maxBytes`. Past the limit, or at once when its `Content-Length`
 * says it is longer, the body is cancelled (its connection dropped) and what was read so far is
 * returned with `complete: false`.
 */
export async function readBounded(response: Response, maxBytes: number): Promise<BoundedBody> {
  const body = response.body;
  if (Number(response.headers.get("content-length") ?? NaN) > maxBytes) {
    await body?.cancel().catch(() => undefined);
    return { bytes: new Uint8Array(), complete: false };
  }
  if (!body) return { bytes: new Uint8Array(), complete: true };
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let bytes = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return { bytes: Buffer.concat(chunks), complete: true };
    const room = maxBytes - bytes;
    if (value.byteLength > room) {
      chunks.push(value.subarray(0, room));
      await reader.cancel().catch(() => undefined);
      return { bytes: Buffer.concat(chunks), complete: false };
    }
    chunks.push(value);
    bytes += value.byteLength;
  }
}

/** Statuses whose responses have no body (a `Response` built with one throws). */
const NULL_BODY_STATUSES = new Set([101, 103, 204, 205, 304]);

/**
 * A `fetch` whose answers are read whole, up to `maxBytes`, before they are handed on: a longer
 * body (or a `Content-Length` over the limit) is dropped with its connection and the request
 * fails with a `DriverError` coded `RESOURCE_EXHAUSTED` that carries `ErrProtocol`. An event
 * stream asked for (`Accept: text/event-stream`) and answered as one passes through unread: the
 * SDK bounds each of its events.
 */
export function boundedFetch(base: typeof fetch, maxBytes: number): typeof fetch {
  const bounded = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const response = await base(input, init);
    const accept = new Headers(init?.headers ?? (input instanceof Request ? input.headers : undefined)).get("accept") ?? "";
    const type = response.headers.get("content-type") ?? "";
    if ((response.ok && accept.includes("text/event-stream") && type.startsWith("text/event-stream")) || response.body === null)
      return response;
    const { bytes, complete } = await readBounded(response, maxBytes);
    if (!complete) {
      const reason = `the response is larger than ${maxBytes} bytes`;
      throw new DriverError({ op: "response", device: "a2a", code: ErrCode.ResourceExhausted, cause: reason }, { sentinel: ErrProtocol });
    }
    return new Response(NULL_BODY_STATUSES.has(response.status) ? null : bytes, {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    });
  };
  return bounded as typeof fetch;
}
