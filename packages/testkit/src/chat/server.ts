import type { IncomingMessage, ServerResponse } from "node:http";
import { uniqueCallId } from "../http/call-id.js";
import { loggedHeaders, readBody, startLoopbackServer } from "../http/loopback-server.js";
import { textMatches } from "../http/text-matches.js";

/** A chat-completions request as rules see it. */
export interface ChatRequestView {
  /** `model` of the request. */
  readonly model: string;
  /** True for a streamed request (`stream: true`). */
  readonly stream: boolean;
  /** Text of the last `user` message (string content, or its text parts joined). */
  readonly lastUserText: string;
  /** The last message when it is a tool result: the tool call's name (from the assistant message that made it) and content. */
  readonly lastToolResult?: { readonly toolCallId: string; readonly toolName: string; readonly content: string };
  /** Names of the tools the CLI offered. */
  readonly toolNames: readonly string[];
  /** Number of messages. */
  readonly messageCount: number;
  /** The parsed body. */
  readonly raw: Record<string, unknown>;
}

/**
 * What a rule answers: final text, or one tool call (`arguments` as an object; `id` its tool call
 * id, default one from the server's `nextCallId`). Either may wait `delayMs` first.
 */
export type ChatReply =
  | { readonly text: string; readonly delayMs?: number }
  | {
      readonly toolCall: { readonly name: string; readonly arguments: Record<string, unknown>; readonly id?: string };
      readonly delayMs?: number;
    }
  | { readonly error: { readonly status: number; readonly message: string } };

/** A scripted answer: the first rule whose `when` matches a request answers it. */
export interface ChatScriptRule {
  readonly name?: string;
  readonly when: (view: ChatRequestView) => boolean;
  readonly reply: ChatReply | ((view: ChatRequestView) => ChatReply);
}

/** One logged request. */
export interface ChatLoggedRequest {
  readonly method: string;
  readonly path: string;
  readonly headers: Record<string, string>;
  readonly body: unknown;
  readonly view?: ChatRequestView;
  readonly rule?: string;
}

/** A scripted OpenAI chat-completions server on 127.0.0.1 (see {@link startChatCompletionsServer}). */
export interface ChatCompletionsServer extends AsyncDisposable {
  /** `http://127.0.0.1:<port>`; the API base is `${url}/v1`. */
  readonly url: string;
  /** Every request, in arrival order. */
  readonly requests: ChatLoggedRequest[];
  /** The chat-completions requests only. */
  turns(): ChatRequestView[];
  close(): Promise<void>;
}

/** Matches a request whose last user text contains `pattern` (string or RegExp). */
export function whenChatUserSays(pattern: string | RegExp): (view: ChatRequestView) => boolean {
  return (view) => view.lastToolResult === undefined && textMatches(view.lastUserText, pattern);
}

/** Matches a request whose last message is the result of tool `name` (optionally containing `pattern`). */
export function whenChatToolResult(name: string, pattern?: string | RegExp): (view: ChatRequestView) => boolean {
  return (view) => view.lastToolResult?.toolName === name && (pattern === undefined || textMatches(view.lastToolResult.content, pattern));
}

function textOf(content: unknown): string {
  if (typeof content === "string") return content;
  if (Array.isArray(content))
    return content
      .map((part) =>
        typeof part === "object" && part !== null && typeof (part as { text?: unknown }).text === "string"
          ? (part as { text: string }).text
          : "",
      )
      .join("");
  return "";
}

function viewOf(body: Record<string, unknown>): ChatRequestView {
  const messages = (Array.isArray(body["messages"]) ? body["messages"] : []) as Record<string, unknown>[];
  const last = messages.at(-1);
  const users = messages.filter((m) => m["role"] === "user");
  let lastToolResult: ChatRequestView["lastToolResult"];
  if (last?.["role"] === "tool") {
    const id = String(last["tool_call_id"] ?? "");
    let name = "";
    for (const m of messages)
      for (const call of (Array.isArray(m["tool_calls"]) ? m["tool_calls"] : []) as Record<string, unknown>[])
        if (call["id"] === id) name = String((call["function"] as Record<string, unknown> | undefined)?.["name"] ?? "");
    lastToolResult = { toolCallId: id, toolName: name, content: textOf(last["content"]) };
  }
  const tools = (Array.isArray(body["tools"]) ? body["tools"] : []) as Record<string, unknown>[];
  return {
    model: String(body["model"] ?? ""),
    stream: body["stream"] === true,
    lastUserText: textOf(users.at(-1)?.["content"]),
    ...(lastToolResult ? { lastToolResult } : {}),
    toolNames: tools.map((t) => String((t["function"] as Record<string, unknown> | undefined)?.["name"] ?? "")),
    messageCount: messages.length,
    raw: body,
  };
}

/** Built-in answers when no rule matches: a tool result → `Done: <first 200 chars>`; else a fake reply naming the prompt. */
function directive(view: ChatRequestView): ChatReply {
  if (view.lastToolResult) return { text: `Done: ${view.lastToolResult.content.slice(0, 200)}` };
  const slow = /SLOW_MS (\d+)/.exec(view.lastUserText);
  return { text: `Fake reply. I saw ${view.messageCount} message(s).`, ...(slow ? { delayMs: Number(slow[1]) } : {}) };
}

let completionSeq = 0;

/** Options of {@link startChatCompletionsServer}. */
export interface ChatCompletionsServerOptions {
  /** Scripted rules, checked in order for each request; the first match answers. Default: none. */
  readonly rules?: readonly ChatScriptRule[];
  /**
   * Makes the id of a tool call whose reply gives none (`toolCall.id`), called once per such call.
   * Default: `call_` and a random UUID's hex digits, unique across servers. Give one to pin the ids
   * a test asserts, e.g. a counter making `call_1`, `call_2`, ….
   */
  readonly nextCallId?: () => string;
}

/**
 * Starts a scripted OpenAI chat-completions API on 127.0.0.1 (`POST /v1/chat/completions`, streamed
 * as SSE chunks or one JSON answer; `GET /v1/models`), for agents that speak it (Qwen Code,
 * OpenCode's OpenAI-compatible provider). Rules are checked in order for every request; without a
 * match, the built-in directives answer (a tool result → `Done: <output>`, `SLOW_MS <n>` delays).
 */
export async function startChatCompletionsServer(options: ChatCompletionsServerOptions = {}): Promise<ChatCompletionsServer> {
  const rules = options.rules ?? [];
  const nextCallId = options.nextCallId ?? (() => uniqueCallId("call"));
  const requests: ChatLoggedRequest[] = [];
  const loop = await startLoopbackServer(
    async (req: IncomingMessage, res: ServerResponse, server) => {
      const path = (req.url ?? "/").split("?")[0]!;
      const body = req.method === "POST" ? await readBody(req) : undefined;
      const headers = loggedHeaders(req, new Set(["authorization", "x-api-key", "cookie"]));
      if (!path.endsWith("/chat/completions")) {
        requests.push({ method: req.method ?? "GET", path, headers, body });
        res.writeHead(path.endsWith("/models") ? 200 : 404, { "content-type": "application/json" });
        res.end(JSON.stringify(path.endsWith("/models") ? { object: "list", data: [] } : { error: { message: "not found" } }));
        return;
      }
      const view = viewOf((typeof body === "object" && body !== null ? body : {}) as Record<string, unknown>);
      const index = rules.findIndex((rule) => rule.when(view));
      const rule = rules[index];
      const reply = rule ? (typeof rule.reply === "function" ? rule.reply(view) : rule.reply) : directive(view);
      requests.push({ method: "POST", path, headers, body, view, rule: rule ? (rule.name ?? `rules[${index}]`) : "directive" });
      if ("error" in reply) {
        res.writeHead(reply.error.status, { "content-type": "application/json" });
        res.end(JSON.stringify({ error: { message: reply.error.message, type: "invalid_request_error", code: null } }));
        return;
      }
      if (reply.delayMs && !(await server.wait(reply.delayMs, res))) return;
      const id = `chatcmpl-${++completionSeq}`;
      const created = Math.floor(Date.now() / 1000);
      const usage = { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 };
      const toolCall =
        "toolCall" in reply
          ? {
              index: 0,
              id: reply.toolCall.id ?? nextCallId(),
              type: "function",
              function: { name: reply.toolCall.name, arguments: JSON.stringify(reply.toolCall.arguments) },
            }
          : undefined;
      const finish = toolCall ? "tool_calls" : "stop";
      if (!view.stream) {
        res.writeHead(200, { "content-type": "application/json" });
        res.end(
          JSON.stringify({
            id,
            object: "chat.completion",
            created,
            model: view.model,
            choices: [
              {
                index: 0,
                finish_reason: finish,
                message: {
                  role: "assistant",
                  content: "text" in reply ? reply.text : null,
                  ...(toolCall ? { tool_calls: [toolCall] } : {}),
                },
              },
            ],
            usage,
          }),
        );
        return;
      }
      res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
      const chunk = (delta: Record<string, unknown>, finishReason: string | null, extra: Record<string, unknown> = {}): void => {
        res.write(
          `data: ${JSON.stringify({ id, object: "chat.completion.chunk", created, model: view.model, choices: [{ index: 0, delta, finish_reason: finishReason }], ...extra })}\n\n`,
        );
      };
      chunk({ role: "assistant", content: "" }, null);
      if ("text" in reply) chunk({ content: reply.text }, null);
      if (toolCall) chunk({ tool_calls: [toolCall] }, null);
      chunk({}, finish, { usage });
      res.end("data: [DONE]\n\n");
    },
    (res, err) => {
      res.writeHead(500, { "content-type": "application/json" });
      res.end(JSON.stringify({ error: { message: String(err) } }));
    },
  );
  return {
    url: loop.url,
    requests,
    turns: () => requests.flatMap((r) => (r.view ? [r.view] : [])),
    close: () => loop.close(),
    [Symbol.asyncDispose]: () => loop.close(),
  };
}
