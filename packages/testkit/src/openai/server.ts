import type { IncomingMessage, ServerResponse } from "node:http";
import { chooseReply, describe, loggedHeaders, readBody, startLoopbackServer, type LoopbackServer } from "../http/loopback-server.js";
import { uniqueCallId } from "../http/call-id.js";
import { responsesDirectiveReply } from "./directives.js";
import { isResponsesErrorReply, openAIErrorType, type ResponsesErrorReply, type ResponsesReply } from "./reply.js";
import { buildResponsesRequestView, type ResponsesRequestView } from "./request-view.js";
import type { ResponsesScriptRule } from "./script-rule.js";
import { responseToSse, responseUsage, type ResponseObject, type ResponseOutputItem } from "./sse.js";

/** Options of {@link startOpenAIServer}. */
export interface OpenAIServerOptions {
  /**
   * Scripted rules, checked in order for each `POST /v1/responses`; the first match answers.
   * Default: none, so the built-in directives of {@link responsesDirectiveReply} answer everything.
   */
  readonly rules?: readonly ResponsesScriptRule[];
  /**
   * Makes the `call_id` of a function or custom tool call whose reply gives none (`callId`),
   * called once per such call. Default: `call_` and a random UUID's hex digits, unique across
   * servers. Give one to pin the ids a test asserts, e.g. a counter making `call_1`, `call_2`, ….
   */
  readonly nextCallId?: () => string;
}

/** One request the server received, as logged in {@link OpenAIServer.requests}. */
export interface ResponsesLoggedRequest {
  /** HTTP method, e.g. `"POST"`. */
  readonly method: string;
  /** URL path without the query, e.g. `"/v1/responses"`. */
  readonly path: string;
  /** The query string with its `?`; "" when none. */
  readonly query: string;
  /** Request headers, lower-case names; `authorization`, `api-key`, `proxy-authorization` and `cookie` read `"<set>"`. */
  readonly headers: Readonly<Record<string, string>>;
  /** The parsed JSON body; `undefined` when empty, the raw text when it is not JSON. */
  readonly body: unknown;
  /** The request as rules see it (an empty view for other paths). */
  readonly view: ResponsesRequestView;
  /** The reply chosen for a `POST /v1/responses`; `undefined` for other paths. */
  readonly reply: ResponsesReply | undefined;
  /** Which rule chose `reply`: its name, `rules[<i>]`, `"directive"`, or `undefined`. */
  readonly rule: string | undefined;
  /** Arrival time, ms since the epoch. */
  readonly time: number;
}

/** A running scripted OpenAI Responses API server on 127.0.0.1. Close it with {@link OpenAIServer.close}. */
export interface OpenAIServer extends AsyncDisposable {
  /** Origin with the ephemeral port, no trailing slash, e.g. `http://127.0.0.1:41234`. */
  readonly url: string;
  /** `url + "/v1"`: the `base_url` of a codex model provider. */
  readonly baseUrl: string;
  /** Every request received so far, in arrival order (a live array). */
  readonly requests: readonly ResponsesLoggedRequest[];
  /** The logged `POST /v1/responses` requests only, in arrival order (a new array). */
  responses(): ResponsesLoggedRequest[];
  /**
   * Stops the server: cancels pending delays, closes every connection and resolves when the
   * listener is gone. Idempotent; leaves no timer behind.
   */
  close(): Promise<void>;
}

const SECRET_HEADERS = new Set(["authorization", "api-key", "proxy-authorization", "cookie"]);

function errorBody(type: string, message: string, code: string | null = null): unknown {
  return { error: { message, type, param: null, code } };
}

/**
 * Starts a scripted OpenAI Responses API server on 127.0.0.1 with an ephemeral port (the model
 * server codex talks to, docs/protocols.md).
 *
 * Serves `POST /v1/responses`: the reply comes from the first matching {@link ResponsesScriptRule},
 * else from the built-in directives ({@link responsesDirectiveReply}); it is streamed as SSE when
 * the request has `"stream": true`, else sent as one response JSON. Item ids are unique per server:
 * `resp_<n>`, `msg_<n>`, `rs_<n>`, `fc_<n>`, `ctc_<n>`; call ids are unique across servers
 * (`call_<uuid hex>`, see {@link OpenAIServerOptions.nextCallId}). Anything else is a 404
 * with an OpenAI-style error body.
 *
 * Rejects with the listen error (e.g. `EADDRINUSE`) if the socket cannot be bound.
 */
export async function startOpenAIServer(options: OpenAIServerOptions = {}): Promise<OpenAIServer> {
  const rules = [...(options.rules ?? [])];
  const requests: ResponsesLoggedRequest[] = [];
  let seq = 0;
  const next = (prefix: string): string => `${prefix}_${++seq}`;
  const nextCallId = options.nextCallId ?? (() => uniqueCallId("call"));

  function choose(view: ResponsesRequestView): { reply: ResponsesReply; rule: string } {
    return chooseReply(rules, view, responsesDirectiveReply, (message) => ({ error: { status: 500, type: "server_error", message } }));
  }

  function render(reply: Exclude<ResponsesReply, ResponsesErrorReply>, model: string): ResponseObject {
    const output: ResponseOutputItem[] = [];
    if ("functionCall" in reply) {
      if (reply.text !== undefined) output.push(message(reply.text));
      const args = reply.functionCall.arguments;
      output.push({
        type: "function_call",
        id: next("fc"),
        call_id: reply.functionCall.callId ?? nextCallId(),
        name: reply.functionCall.name,
        ...(reply.functionCall.namespace !== undefined ? { namespace: reply.functionCall.namespace } : {}),
        arguments: typeof args === "string" ? args : JSON.stringify(args ?? {}),
        status: "completed",
      });
    } else if ("customToolCall" in reply) {
      output.push({
        type: "custom_tool_call",
        id: next("ctc"),
        call_id: reply.customToolCall.callId ?? nextCallId(),
        name: reply.customToolCall.name,
        input: reply.customToolCall.input,
        status: "completed",
      });
    } else {
      if (reply.reasoning !== undefined) {
        output.push({ type: "reasoning", id: next("rs"), summary: [{ type: "summary_text", text: reply.reasoning }] });
      }
      output.push(message(reply.text));
    }
    return {
      id: next("resp"),
      object: "response",
      created_at: Math.floor(Date.now() / 1000),
      status: "completed",
      model,
      output,
      usage: responseUsage(reply.usage ?? { input_tokens: 100, output_tokens: 10 }),
    };
  }

  function message(text: string): ResponseOutputItem {
    return {
      type: "message",
      id: next("msg"),
      status: "completed",
      role: "assistant",
      content: [{ type: "output_text", text, annotations: [] }],
    };
  }

  function send(res: ServerResponse, status: number, body: unknown, requestId: string): void {
    res.writeHead(status, { "content-type": "application/json", "x-request-id": requestId });
    res.end(JSON.stringify(body));
  }

  function sendError(res: ServerResponse, reply: ResponsesErrorReply, requestId: string): void {
    const { status, type, message, code } = reply.error;
    send(res, status, errorBody(type ?? openAIErrorType(status), message, code ?? null), requestId);
  }

  async function handle(req: IncomingMessage, res: ServerResponse, server: LoopbackServer): Promise<void> {
    const time = Date.now();
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    const requestId = `req_fake_${++seq}`;
    const body = await readBody(req);
    const method = req.method ?? "";
    const headers = loggedHeaders(req, SECRET_HEADERS);
    const isResponses = method === "POST" && url.pathname === "/v1/responses";
    const view = buildResponsesRequestView(isResponses ? body : undefined);
    const log = (reply: ResponsesReply | undefined, rule: string | undefined): void => {
      requests.push({ method, path: url.pathname, query: url.search, headers, body, view, reply, rule, time });
    };

    if (!isResponses) {
      log(undefined, undefined);
      send(res, 404, errorBody("not_found_error", `Not found: ${method} ${url.pathname}`), requestId);
      return;
    }
    if (typeof body !== "object" || body === null) {
      const reply: ResponsesErrorReply = { error: { status: 400, message: "request body is not a JSON object" } };
      log(reply, undefined);
      sendError(res, reply, requestId);
      return;
    }
    const { reply, rule } = choose(view);
    log(reply, rule);
    if (!(await server.wait(reply.delayMs ?? 0, res))) return;
    if (isResponsesErrorReply(reply)) {
      sendError(res, reply, requestId);
      return;
    }
    const response = render(reply, view.model);
    if (!view.stream) {
      send(res, 200, response, requestId);
      return;
    }
    res.writeHead(200, { "content-type": "text/event-stream; charset=utf-8", "cache-control": "no-cache", "x-request-id": requestId });
    for (const frame of responseToSse(response)) res.write(frame);
    res.end();
  }

  const server = await startLoopbackServer(handle, (res, err) =>
    send(res, 500, errorBody("server_error", `fake OpenAI server failed: ${describe(err)}`), "req_fake_error"),
  );
  const close = (): Promise<void> => server.close();

  return {
    url: server.url,
    baseUrl: `${server.url}/v1`,
    requests,
    responses: () => requests.filter((r) => r.path === "/v1/responses" && r.method === "POST"),
    close,
    [Symbol.asyncDispose]: close,
  };
}
