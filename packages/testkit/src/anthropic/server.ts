import type { IncomingMessage, ServerResponse } from "node:http";
import { chooseReply, describe, loggedHeaders, readBody, startLoopbackServer, type LoopbackServer } from "../http/loopback-server.js";
import { uniqueCallId } from "../http/call-id.js";
import { directiveReply } from "./directives.js";
import { renderMessage } from "./message.js";
import { errorTypeForStatus, isErrorReply, type ErrorReply, type Reply } from "./reply.js";
import { buildRequestView, type RequestView } from "./request-view.js";
import type { ScriptRule } from "./script-rule.js";
import { messageToSse } from "./sse.js";

/** Options of {@link startAnthropicServer}. */
export interface AnthropicServerOptions {
  /**
   * Scripted rules, checked in order for each `POST /v1/messages`; the first match answers.
   * Default: none, so the built-in directives of {@link directiveReply} answer everything.
   */
  readonly rules?: readonly ScriptRule[];
  /**
   * Makes the id of a `tool_use` block whose reply gives none (`toolUse.id`), called once per such
   * block. Default: `toolu_` and a random UUID's hex digits, unique across servers. Give one to pin
   * the ids a test asserts, e.g. a counter making `toolu_1`, `toolu_2`, ….
   */
  readonly nextToolUseId?: () => string;
}

/** One request the server received, as logged in {@link AnthropicServer.requests}. */
export interface LoggedRequest {
  /** HTTP method, e.g. `"POST"`. */
  readonly method: string;
  /** URL path without the query, e.g. `"/v1/messages"`. */
  readonly path: string;
  /** The query string with its `?`, e.g. `"?beta=true"`; "" when none. */
  readonly query: string;
  /**
   * Request headers, lower-case names. Secrets are not kept: `x-api-key`, `authorization`,
   * `proxy-authorization` and `cookie` read `"<set>"` when they were sent.
   */
  readonly headers: Readonly<Record<string, string>>;
  /** The parsed JSON body; `undefined` when empty, the raw text when it is not JSON. */
  readonly body: unknown;
  /** The request as rules see it (an empty view for bodies that are not Messages requests). */
  readonly view: RequestView;
  /** The reply chosen for a `POST /v1/messages`; `undefined` for other paths. */
  readonly reply: Reply | undefined;
  /** Which rule chose `reply`: its name, `rules[<i>]`, `"directive"` (built-in fallback), or `undefined`. */
  readonly rule: string | undefined;
  /** Arrival time, ms since the epoch. */
  readonly time: number;
}

/** A running scripted Anthropic Messages API server on 127.0.0.1. Close it with {@link AnthropicServer.close}. */
export interface AnthropicServer extends AsyncDisposable {
  /** Base URL with the ephemeral port, no trailing slash, e.g. `http://127.0.0.1:41234` (an `ANTHROPIC_BASE_URL`). */
  readonly url: string;
  /** Every request received so far, in arrival order (a live array). */
  readonly requests: readonly LoggedRequest[];
  /**
   * Stops the server: cancels pending delays, closes every connection (keep-alive ones too) and
   * resolves when the listener is gone. Idempotent; leaves no timer behind.
   */
  close(): Promise<void>;
}

const SECRET_HEADERS = new Set(["x-api-key", "authorization", "proxy-authorization", "cookie"]);

function errorBody(type: string, message: string): unknown {
  return { type: "error", error: { type, message } };
}

/**
 * Starts a scripted Anthropic Messages API server on 127.0.0.1 with an ephemeral port.
 *
 * Serves `POST /v1/messages` (any query, e.g. `?beta=true`): the reply comes from the first
 * matching {@link ScriptRule}, else from the built-in directives ({@link directiveReply}); it is
 * sent as SSE when the request has `"stream": true`, else as one JSON message. Message ids are
 * `msg_fake_<n>`, unique per server; tool_use ids are unique across servers (`toolu_<uuid hex>`,
 * see {@link AnthropicServerOptions.nextToolUseId}). `POST /v1/messages/count_tokens`
 * answers `{ input_tokens }` (characters / 4 of the body); anything else is a 404 with an
 * Anthropic-style error body. Error statuses are only sent when a rule or `HTTP_ERROR` asks
 * (or the body of a Messages request is not JSON: 400).
 *
 * Rejects with the listen error (e.g. `EADDRINUSE`) if the socket cannot be bound.
 */
export async function startAnthropicServer(options: AnthropicServerOptions = {}): Promise<AnthropicServer> {
  const rules = [...(options.rules ?? [])];
  const requests: LoggedRequest[] = [];
  let messageSeq = 0;
  const nextToolUseId = options.nextToolUseId ?? (() => uniqueCallId("toolu"));
  let requestSeq = 0;

  function choose(view: RequestView): { reply: Reply; rule: string } {
    return chooseReply(rules, view, directiveReply, (message) => ({ error: { status: 500, type: "api_error", message } }));
  }

  function send(res: ServerResponse, status: number, body: unknown, requestId: string): void {
    res.writeHead(status, { "content-type": "application/json", "request-id": requestId });
    res.end(JSON.stringify(body));
  }

  function sendError(res: ServerResponse, reply: ErrorReply, requestId: string): void {
    const { status, type, message } = reply.error;
    send(res, status, errorBody(type ?? errorTypeForStatus(status), message), requestId);
  }

  async function handle(req: IncomingMessage, res: ServerResponse, server: LoopbackServer): Promise<void> {
    const time = Date.now();
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    const requestId = `req_fake_${++requestSeq}`;
    const body = await readBody(req);
    const view = buildRequestView(body);
    const method = req.method ?? "";
    const headers = loggedHeaders(req, SECRET_HEADERS);
    const log = (reply: Reply | undefined, rule: string | undefined): void => {
      requests.push({ method, path: url.pathname, query: url.search, headers, body, view, reply, rule, time });
    };
    const isPost = method === "POST";

    if (isPost && url.pathname === "/v1/messages") {
      if (typeof body !== "object" || body === null) {
        const reply: ErrorReply = { error: { status: 400, message: "request body is not a JSON object" } };
        log(reply, undefined);
        sendError(res, reply, requestId);
        return;
      }
      const { reply, rule } = choose(view);
      log(reply, rule);
      if (!(await server.wait(reply.delayMs ?? 0, res))) return;
      if (isErrorReply(reply)) {
        sendError(res, reply, requestId);
        return;
      }
      const message = renderMessage(reply, {
        id: `msg_fake_${++messageSeq}`,
        model: view.model,
        messageCount: view.messageCount,
        nextToolUseId,
      });
      if (!view.stream) {
        send(res, 200, message, requestId);
        return;
      }
      res.writeHead(200, {
        "content-type": "text/event-stream; charset=utf-8",
        "cache-control": "no-cache",
        "request-id": requestId,
      });
      for (const frame of messageToSse(message)) res.write(frame);
      res.end();
      return;
    }

    log(undefined, undefined);
    if (isPost && url.pathname === "/v1/messages/count_tokens") {
      const counted = typeof body === "object" && body !== null ? body : {};
      const { messages, system, tools } = counted as Record<string, unknown>;
      const input_tokens = Math.max(1, Math.ceil(JSON.stringify([system, messages, tools]).length / 4));
      send(res, 200, { input_tokens }, requestId);
      return;
    }
    send(res, 404, errorBody("not_found_error", `Not found: ${method} ${url.pathname}`), requestId);
  }

  const server = await startLoopbackServer(handle, (res, err) =>
    send(res, 500, errorBody("api_error", `fake Anthropic server failed: ${describe(err)}`), "req_fake_error"),
  );
  const close = (): Promise<void> => server.close();

  return {
    url: server.url,
    requests,
    close,
    [Symbol.asyncDispose]: close,
  };
}
