import type { ResponsesReply } from "./reply.js";
import type { ResponsesRequestView } from "./request-view.js";
import { textMatches } from "../http/text-matches.js";

/**
 * One scripted behaviour of the OpenAI Responses server. Rules are checked in order for every
 * `POST /v1/responses`; the first whose `when` returns true answers. Replies depend on the request,
 * never on a queue position, so extra helper calls by the CLI cannot put a script out of step.
 */
export interface ResponsesScriptRule {
  /** Name recorded in {@link ResponsesLoggedRequest.rule}. Default: `rules[<index>]`. */
  readonly name?: string;
  /** Predicate on the request. A throw answers HTTP 500 naming the rule. */
  readonly when: (view: ResponsesRequestView) => boolean;
  /** The reply, or a function of the request that makes it (a throw answers HTTP 500 as above). */
  readonly reply: ResponsesReply | ((view: ResponsesRequestView) => ResponsesReply);
}

/**
 * Matcher: the last user prompt ({@link ResponsesRequestView.lastUserText}) contains `pattern` (a
 * substring) or matches it (a RegExp). Does not match follow-up requests after a tool output.
 */
export function whenPromptSays(pattern: string | RegExp): (view: ResponsesRequestView) => boolean {
  return (view) => textMatches(view.lastUserText, pattern);
}

/**
 * Matcher: the last input item is the output of the tool `toolName` (e.g. `"exec_command"`,
 * `"apply_patch"`), and (when given) the output contains `pattern` or matches it.
 */
export function whenToolOutput(toolName: string, pattern?: string | RegExp): (view: ResponsesRequestView) => boolean {
  return (view) =>
    view.lastToolOutput !== undefined &&
    view.lastToolOutput.toolName === toolName &&
    (pattern === undefined || textMatches(view.lastToolOutput.output, pattern));
}
