import type { IncomingMessage, ServerResponse } from "node:http";
import { chooseReply, describe, loggedHeaders, readBody, startLoopbackServer, type LoopbackServer } from "../http/loopback-server.js";
import { geminiDirectiveReply } from "./directives.js";
import { googleStatusName, isGeminiErrorReply, type GeminiErrorReply, type GeminiReply } from "./reply.js";
import { buildGeminiRequestView, type GeminiRequestView } from "./request-view.js";
import type { GeminiScriptRule } from "./script-rule.js";

/** Options of {@link startGeminiServer}. */
export interface GeminiServerOptions {
  /**
   * Scripted rules, checked in order for each model request; the first match answers. Default:
   * none, so the built-in directives of {@link geminiDirectiveReply} answer everything.
   */
  readonly rules?: readonly GeminiScriptRule[];
}

/** One request the server received, as logged in {@link GeminiServer.requests}. */
export interface GeminiLoggedRequest {
  /** HTTP method, e.g. `"POST"`. */
  readonly method: string;
  /** URL path without the query, e.g. `"/v1beta/models/gemini-2.5-flash:streamGenerateContent"`. */
  readonly path: string;
  /** The query string with its `?` (`"?alt=sse"`); "" when none. */
  readonly query: string;
  /** Request headers, lower-case names; `x-goog-api-key`, `authorization`, `proxy-authorization` and `cookie` read `"<set>"`. */
  readonly headers: Readonly<Record<string, string>>;
  /** The parsed JSON body; `undefined` when empty, the raw text when it is not JSON. */
  readonly body: unknown;
  /** The request as rules see it. */
  readonly view: GeminiRequestView;
  /** The reply chosen for a model request; `undefined` for other paths. */
  readonly reply: GeminiReply | undefined;
  /** Which rule chose `reply`: its name, `rules[<i>]`, `"directive"`, or `undefined`. */
  readonly rule: string | undefined;
  /** Arrival time, ms since the epoch. */
  readonly time: number;
}

/** A running scripted Gemini API server on 127.0.0.1. Close it with {@link GeminiServer.close}. */
export interface GeminiServer extends AsyncDisposable {
  /** Origin with the ephemeral port, no trailing slash: gemini-cli's `GOOGLE_GEMINI_BASE_URL`. */
  readonly url: string;
  /** Every request received so far, in arrival order (a live array). */
  readonly requests: readonly GeminiLoggedRequest[];
  /** The logged `streamGenerateContent` requests only (the agent's turns, not its helper calls), in arrival order. */
  turns(): GeminiLoggedRequest[];
  /** Stops the server: cancels pending delays, closes every connection. Idempotent; no timer left. */
  close(): Promise<void>;
}

const SECRET_HEADERS = new Set(["x-goog-api-key", "authorization", "proxy-authorization", "cookie"]);
const MODEL_PATH = /^\/v1(?:beta|alpha)?\/models\/([^/:]+):(streamGenerateContent|generateContent|countTokens)$/;

type Part = Record<string, unknown>;

function chunks(text: string): string[] {
  if (text.length < 12) return [text];
  const third = Math.ceil(text.length / 3);
  return [text.slice(0, third), text.slice(third, 2 * third), text.slice(2 * third)];
}

/**
 * Starts a scripted Gemini API server on 127.0.0.1 with an ephemeral port (the model server
 * gemini-cli talks to when `GOOGLE_GEMINI_BASE_URL` points at it).
 *
 * Serves `POST /v1beta/models/<model>:streamGenerateContent?alt=sse` (SSE frames of
 * `GenerateContentResponse`), `:generateContent` (one JSON response; the CLI's model router and
 * title calls) and `:countTokens`. The reply comes from the first matching {@link GeminiScriptRule},
 * else from {@link geminiDirectiveReply}. Anything else is a 404 with a Google API error body.
 *
 * Rejects with the listen error if the socket cannot be bound.
 */
export async function startGeminiServer(options: GeminiServerOptions = {}): Promise<GeminiServer> {
  const rules = [...(options.rules ?? [])];
  const requests: GeminiLoggedRequest[] = [];
  let seq = 0;

  function send(res: ServerResponse, status: number, body: unknown): void {
    res.writeHead(status, { "content-type": "application/json" });
    res.end(JSON.stringify(body));
  }

  function sendError(res: ServerResponse, reply: GeminiErrorReply): void {
    const { status, message, statusName } = reply.error;
    send(res, status, { error: { code: status, message, status: statusName ?? googleStatusName(status) } });
  }

  function frames(reply: Exclude<GeminiReply, GeminiErrorReply>): Part[][] {
    if ("functionCall" in reply) {
      const call = { functionCall: { name: reply.functionCall.name, args: reply.functionCall.args, id: `call_${++seq}` } };
      return reply.text === undefined ? [[call]] : [[{ text: reply.text }], [call]];
    }
    const out: Part[][] = [];
    if (reply.thinking !== undefined) out.push([{ text: reply.thinking, thought: true }]);
    for (const piece of chunks(reply.text)) out.push([{ text: piece }]);
    return out;
  }

  function response(parts: Part[], reply: Exclude<GeminiReply, GeminiErrorReply>, last: boolean, model: string): unknown {
    const usage = reply.usage ?? { promptTokenCount: 100, candidatesTokenCount: 10 };
    return {
      candidates: [{ content: { role: "model", parts }, index: 0, ...(last ? { finishReason: "STOP" } : {}) }],
      ...(last ? { usageMetadata: { ...usage, totalTokenCount: usage.promptTokenCount + usage.candidatesTokenCount } } : {}),
      modelVersion: model,
      responseId: `resp_${seq}`,
    };
  }

  async function handle(req: IncomingMessage, res: ServerResponse, server: LoopbackServer): Promise<void> {
    const time = Date.now();
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    const body = await readBody(req);
    const method = req.method ?? "";
    const headers = loggedHeaders(req, SECRET_HEADERS);
    const match = method === "POST" ? MODEL_PATH.exec(url.pathname) : null;
    const kind = match?.[2] === "streamGenerateContent" ? "stream" : "generate";
    const view = buildGeminiRequestView(match?.[1] ?? "", kind, body);
    const log = (reply: GeminiReply | undefined, rule: string | undefined): void => {
      requests.push({ method, path: url.pathname, query: url.search, headers, body, view, reply, rule, time });
    };
    if (!match || match[2] === "countTokens") {
      log(undefined, undefined);
      if (match) send(res, 200, { totalTokens: 100 });
      else send(res, 404, { error: { code: 404, message: `Not found: ${method} ${url.pathname}`, status: "NOT_FOUND" } });
      return;
    }
    const { reply, rule } = chooseReply(rules, view, geminiDirectiveReply, (message): GeminiReply => ({ error: { status: 500, message } }));
    log(reply, rule);
    if (!(await server.wait(reply.delayMs ?? 0, res))) return;
    if (isGeminiErrorReply(reply)) {
      sendError(res, reply);
      return;
    }
    const all = frames(reply);
    if (kind === "generate") {
      // One JSON response: the text in one part (a JSON helper answer must parse as a whole).
      const parts =
        "functionCall" in reply
          ? all.flat()
          : [...(reply.thinking !== undefined ? [{ text: reply.thinking, thought: true }] : []), { text: reply.text }];
      send(res, 200, response(parts, reply, true, view.model));
      return;
    }
    res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
    all.forEach((parts, i) => res.write(`data: ${JSON.stringify(response(parts, reply, i === all.length - 1, view.model))}\r\n\r\n`));
    res.end();
  }

  const server = await startLoopbackServer(handle, (res, err) =>
    send(res, 500, { error: { code: 500, message: `fake Gemini server failed: ${describe(err)}`, status: "INTERNAL" } }),
  );
  const close = (): Promise<void> => server.close();
  return {
    url: server.url,
    requests,
    turns: () => requests.filter((r) => r.view.method === "stream" && r.reply !== undefined),
    close,
    [Symbol.asyncDispose]: close,
  };
}
