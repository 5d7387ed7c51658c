/** Token usage reported for one scripted Gemini reply, in the API's `usageMetadata` names. */
export interface GeminiReplyUsage {
  /** Prompt tokens. Default 100. */
  readonly promptTokenCount: number;
  /** Completion tokens. Default 10. */
  readonly candidatesTokenCount: number;
}

/** Fields every {@link GeminiReply} variant may carry. */
export interface GeminiReplyTiming {
  /**
   * Delay in ms before the first byte of the response. Default 0. Cancelled when the client
   * disconnects or the server closes, so a slow turn can be interrupted.
   */
  readonly delayMs?: number;
  /** Usage to report. Default `{ promptTokenCount: 100, candidatesTokenCount: 10 }`. Ignored by errors. */
  readonly usage?: GeminiReplyUsage;
}

/** A final answer: optional thought text (a `thought: true` part), then the text, streamed in a few frames. */
export interface GeminiTextReply extends GeminiReplyTiming {
  /** The model's text. */
  readonly text: string;
  /** Optional reasoning, sent first as a part with `thought: true`. */
  readonly thinking?: string;
}

/** One `functionCall` part, e.g. gemini-cli's `write_file` with `{ file_path, content }`. */
export interface GeminiFunctionCallReply extends GeminiReplyTiming {
  /** The one function call of this reply. */
  readonly functionCall: {
    /** Tool name as offered in `tools[].functionDeclarations`, e.g. `"run_shell_command"`. */
    readonly name: string;
    /** The call's arguments. */
    readonly args: Readonly<Record<string, unknown>>;
  };
  /** Optional text sent before the call. */
  readonly text?: string;
}

/** An HTTP error with the Google API error body `{"error":{"code","message","status"}}`. */
export interface GeminiErrorReply extends GeminiReplyTiming {
  /** The HTTP error to answer with. */
  readonly error: {
    /** HTTP status, e.g. 400, 429, 500. */
    readonly status: number;
    /** Human-readable message. */
    readonly message: string;
    /** Google status name. Default: 400 `INVALID_ARGUMENT`, 401 `UNAUTHENTICATED`, 403 `PERMISSION_DENIED`, 404 `NOT_FOUND`, 429 `RESOURCE_EXHAUSTED`, 5xx `INTERNAL`. */
    readonly statusName?: string;
  };
}

/** What the scripted Gemini server answers to one `streamGenerateContent` or `generateContent` request. */
export type GeminiReply = GeminiTextReply | GeminiFunctionCallReply | GeminiErrorReply;

/** True when `reply` is a {@link GeminiErrorReply}. */
export function isGeminiErrorReply(reply: GeminiReply): reply is GeminiErrorReply {
  return "error" in reply && reply.error !== undefined;
}

/** Google API status name for an HTTP status. */
export function googleStatusName(status: number): string {
  if (status === 400) return "INVALID_ARGUMENT";
  if (status === 401) return "UNAUTHENTICATED";
  if (status === 403) return "PERMISSION_DENIED";
  if (status === 404) return "NOT_FOUND";
  if (status === 429) return "RESOURCE_EXHAUSTED";
  if (status >= 500) return "INTERNAL";
  return "FAILED_PRECONDITION";
}
