/**
 * Token usage reported for one scripted reply, in the Responses API's field names
 * (`response.completed` → `response.usage`).
 */
export interface ResponsesReplyUsage {
  /** Prompt tokens. Default 100. */
  readonly input_tokens: number;
  /** Completion tokens. Default 10. */
  readonly output_tokens: number;
  /** Of the completion tokens, those spent reasoning (`output_tokens_details.reasoning_tokens`). Default 0. */
  readonly reasoning_tokens?: number;
}

/** Fields every {@link ResponsesReply} variant may carry. */
export interface ResponsesReplyTiming {
  /**
   * Delay in ms before the first byte of the response (status line included). Default 0. A slow
   * turn to interrupt is made this way; the delay is cancelled when the client disconnects or the
   * server closes.
   */
  readonly delayMs?: number;
  /** Usage to report. Default `{ input_tokens: 100, output_tokens: 10 }`. Ignored by errors. */
  readonly usage?: ResponsesReplyUsage;
}

/** A final assistant message: optional reasoning summary, then one `output_text` part. */
export interface ResponsesTextReply extends ResponsesReplyTiming {
  /** The assistant's text, streamed as a few `response.output_text.delta` events. */
  readonly text: string;
  /** Optional reasoning summary, sent first as a `reasoning` item (`response.reasoning_summary_text.delta`). */
  readonly reasoning?: string;
}

/** A `function_call` output item, e.g. codex's shell tool `exec_command` with `{ "cmd": "..." }`. */
export interface ResponsesFunctionCallReply extends ResponsesReplyTiming {
  /** An assistant message before the call (a preamble), streamed as its `output_text` deltas. Default none. */
  readonly text?: string;
  /** The one function call of this reply (e.g. `exec_command`). */
  readonly functionCall: {
    /** Tool name as offered in the request, e.g. `"exec_command"`. */
    readonly name: string;
    /** Arguments: an object (sent as its JSON) or a JSON string sent verbatim. */
    readonly arguments: unknown;
    /** `call_id`. Default: one from the server's `nextCallId` (unique across servers). */
    readonly callId?: string;
    /** The tool namespace the function belongs to, e.g. `"mcp__fixture"` for an MCP server's tool. Default none. */
    readonly namespace?: string;
  };
}

/** A `custom_tool_call` output item (freeform input), e.g. codex's `apply_patch`. */
export interface ResponsesCustomToolCallReply extends ResponsesReplyTiming {
  /** The one custom tool call of this reply (e.g. `apply_patch`). */
  readonly customToolCall: {
    /** Tool name, e.g. `"apply_patch"`. */
    readonly name: string;
    /** The freeform input text, e.g. a `*** Begin Patch` envelope. */
    readonly input: string;
    /** `call_id`. Default: one from the server's `nextCallId` (unique across servers). */
    readonly callId?: string;
  };
}

/**
 * An HTTP error: status `status` with the body
 * `{"error":{"message":message,"type":type,"code":code,"param":null}}` (the OpenAI error shape).
 */
export interface ResponsesErrorReply extends ResponsesReplyTiming {
  /** The HTTP error to answer with. */
  readonly error: {
    /** HTTP status, e.g. 400, 429, 500. */
    readonly status: number;
    /** Human-readable message. */
    readonly message: string;
    /** OpenAI error type. Default: 400 `invalid_request_error`, 401 `authentication_error`, 429 `rate_limit_exceeded`, 5xx `server_error`. */
    readonly type?: string;
    /** Error code. Default `null`. */
    readonly code?: string | null;
  };
}

/** What the scripted server answers to one `POST /v1/responses`. */
export type ResponsesReply = ResponsesTextReply | ResponsesFunctionCallReply | ResponsesCustomToolCallReply | ResponsesErrorReply;

/** True when `reply` is a {@link ResponsesErrorReply}. */
export function isResponsesErrorReply(reply: ResponsesReply): reply is ResponsesErrorReply {
  return "error" in reply && reply.error !== undefined;
}

/** OpenAI error type for an HTTP status. */
export function openAIErrorType(status: number): string {
  if (status === 401) return "authentication_error";
  if (status === 403) return "permission_error";
  if (status === 404) return "not_found_error";
  if (status === 429) return "rate_limit_exceeded";
  if (status >= 500) return "server_error";
  return "invalid_request_error";
}
