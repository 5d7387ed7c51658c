/**
 * Token usage reported for one scripted reply, in Anthropic's field names.
 * Used as is in `message_start` / `message_delta` (streaming) or the message body (non-streaming).
 */
export interface ReplyUsage {
  /** Prompt tokens. Default: `100 + messageCount` of the request. */
  readonly input_tokens: number;
  /** Completion tokens. Default: a rough token count (characters / 4, at least 1) of the reply. */
  readonly output_tokens: number;
}

/** Fields every {@link Reply} variant may carry. */
export interface ReplyTiming {
  /**
   * Delay in ms before the first byte of the response (status line included). Default 0.
   * This is how a test makes a slow turn to interrupt; the delay is cancelled when the client
   * disconnects or the server closes.
   */
  readonly delayMs?: number;
  /** Usage to report. Default: see {@link ReplyUsage}. Ignored by {@link ErrorReply}. */
  readonly usage?: ReplyUsage;
}

/** A final assistant message: an optional thinking block, then one text block; `stop_reason: "end_turn"`. */
export interface TextReply extends ReplyTiming {
  /** The assistant's text. Streamed as a few `text_delta` chunks. */
  readonly text: string;
  /** Optional thinking text, sent first as a `thinking` block with a fake signature. */
  readonly thinking?: string;
}

/** A tool call: optional text block, then one `tool_use` block; `stop_reason: "tool_use"`. */
export interface ToolUseReply extends ReplyTiming {
  /** The one tool call of this reply. */
  readonly toolUse: {
    /** Tool name as the CLI offers it, e.g. `"Write"`, `"Bash"`. */
    readonly name: string;
    /** Tool input; streamed as a few `input_json_delta` chunks of its JSON. */
    readonly input: unknown;
    /** tool_use id. Default: one from the server's `nextToolUseId` (unique across servers). */
    readonly id?: string;
  };
  /** Optional text sent before the tool_use block. */
  readonly text?: string;
}

/**
 * An HTTP error: status `status` with the body
 * `{"type":"error","error":{"type":type,"message":message}}`.
 * Note that the claude CLI answers a 4xx by re-sending the request up to ~6 times with fewer
 * beta headers / tools before it gives up, so a matching rule sees all of those requests.
 */
export interface ErrorReply extends ReplyTiming {
  /** The HTTP error to answer with. */
  readonly error: {
    /** HTTP status, e.g. 400, 429, 529. */
    readonly status: number;
    /**
     * Anthropic error type. Default: derived from the status
     * (400 `invalid_request_error`, 429 `rate_limit_error`, 529 `overloaded_error`, other 5xx `api_error`, ...).
     */
    readonly type?: string;
    /** Human-readable message. */
    readonly message: string;
  };
}

/** What the scripted server answers to one `POST /v1/messages`. */
export type Reply = TextReply | ToolUseReply | ErrorReply;

/** True when `reply` is an {@link ErrorReply}. */
export function isErrorReply(reply: Reply): reply is ErrorReply {
  return "error" in reply && reply.error !== undefined;
}

/** True when `reply` is a {@link ToolUseReply}. */
export function isToolUseReply(reply: Reply): reply is ToolUseReply {
  return "toolUse" in reply && reply.toolUse !== undefined;
}

/** Anthropic error type for an HTTP status, as the real API names them. */
export function errorTypeForStatus(status: number): string {
  switch (status) {
    case 400:
      return "invalid_request_error";
    case 401:
      return "authentication_error";
    case 403:
      return "permission_error";
    case 404:
      return "not_found_error";
    case 413:
      return "request_too_large";
    case 429:
      return "rate_limit_error";
    case 529:
      return "overloaded_error";
    default:
      return status >= 500 ? "api_error" : "invalid_request_error";
  }
}
