import type { Reply } from "./reply.js";
import type { RequestView } from "./request-view.js";
import { textMatches } from "../http/text-matches.js";

/**
 * One scripted behaviour of the Anthropic server. Rules are checked in order for every
 * `POST /v1/messages`; the first whose `when` returns true answers. Replies depend on the request,
 * never on a queue position, so extra helper calls by the CLI cannot put a script out of step.
 */
export interface ScriptRule {
  /** Name recorded in {@link LoggedRequest.rule}. Default: `rules[<index>]`. */
  readonly name?: string;
  /** Predicate on the request. A throw answers HTTP 500 `api_error` naming the rule. */
  readonly when: (view: RequestView) => boolean;
  /** The reply, or a function of the request that makes it (a throw answers HTTP 500 as above). */
  readonly reply: Reply | ((view: RequestView) => Reply);
}

/**
 * Matcher: the last user message's text ({@link RequestView.lastUserText}) contains `pattern`
 * (a substring) or matches it (a RegExp). Does not match follow-up requests that carry only a
 * tool result.
 */
export function whenUserSays(pattern: string | RegExp): (view: RequestView) => boolean {
  return (view) => textMatches(view.lastUserText, pattern);
}

/**
 * Matcher: the last message carries a tool result of the tool `toolName`, and (when given) its
 * content contains `pattern` (a substring) or matches it (a RegExp). Matches error results too;
 * check `view.lastToolResult.isError` in a custom matcher to tell them apart.
 */
export function whenToolResult(toolName: string, pattern?: string | RegExp): (view: RequestView) => boolean {
  return (view) =>
    view.lastToolResult !== undefined &&
    view.lastToolResult.toolName === toolName &&
    (pattern === undefined || textMatches(view.lastToolResult.content, pattern));
}
