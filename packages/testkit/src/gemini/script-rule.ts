import type { GeminiReply } from "./reply.js";
import type { GeminiRequestView } from "./request-view.js";
import { textMatches } from "../http/text-matches.js";

/**
 * One scripted behaviour of the Gemini API server. Rules are checked in order for every model
 * request; the first whose `when` returns true answers. Replies depend on the request, never on a
 * queue, so the CLI's helper calls (the model router, titles) cannot put a script out of step.
 */
export interface GeminiScriptRule {
  /** Name recorded in {@link GeminiLoggedRequest.rule}. Default: `rules[<index>]`. */
  readonly name?: string;
  /** Predicate on the request. A throw answers HTTP 500 naming the rule. */
  readonly when: (view: GeminiRequestView) => boolean;
  /** The reply, or a function of the request that makes it. */
  readonly reply: GeminiReply | ((view: GeminiRequestView) => GeminiReply);
}

/**
 * Matcher: a streamed turn whose last user prompt ({@link GeminiRequestView.lastUserText})
 * contains `pattern` or matches it. Helper calls (`generateContent`) and follow-ups after a
 * function response do not match.
 */
export function whenGeminiPromptSays(pattern: string | RegExp): (view: GeminiRequestView) => boolean {
  return (view) => view.method === "stream" && textMatches(view.lastUserText, pattern);
}

/** Matcher: the last content is the response of function `name`, and (when given) its output contains or matches `pattern`. */
export function whenFunctionResponse(name: string, pattern?: string | RegExp): (view: GeminiRequestView) => boolean {
  return (view) =>
    view.lastFunctionResponse !== undefined &&
    view.lastFunctionResponse.name === name &&
    (pattern === undefined || textMatches(view.lastFunctionResponse.output, pattern));
}
