import type { DriverRequest } from "@adaptor/driver";
import { InvalidOptionError } from "@adaptor/errors";
import type { CodexConfig } from "./config.js";

/**
 * Refuses a run's `effort` when the driver's `configOverrides` also sets codex's
 * `model_reasoning_effort`: one of the two would be dropped without a word.
 * @throws InvalidOptionError (subject `run`, field `effort`) naming both.
 */
export function checkCodexEffort(effort: string | undefined, config: CodexConfig): void {
  if (effort === undefined || config.configOverrides === undefined) return;
  if (!Object.hasOwn(config.configOverrides, "model_reasoning_effort")) return;
  throw new InvalidOptionError({
    subject: "run",
    field: "effort",
    reason: `is ${JSON.stringify(effort)} while codex({ configOverrides }) sets model_reasoning_effort: set one of them`,
  });
}

/** Why a `minimal` turn runs without web search: the enforcement detail and the notice say it. */
export const MINIMAL_EFFORT_NO_WEB_SEARCH = "the OpenAI API refuses the web_search tool with reasoning effort minimal";

/**
 * Makes a run with `effort: "minimal"` one the OpenAI API takes: it answers HTTP 400 to a request
 * offering the `web_search` tool at that effort, and codex offers it unless told otherwise. With
 * the policy's `webSearch` unset, the returned request's policy says `webSearch: "deny"` (web
 * search off for this turn only; the thread's next turn gets codex's own setting again) and
 * `webSearchOff` is true; any other request is returned as it is. The effort is the run's, else
 * `keptEffort`, the one a thread turn that names none runs with (its last committed turn's).
 * @throws InvalidOptionError (subject `run`, field `effort`) for `minimal` with `webSearch: "allow"`.
 */
export function minimalEffortRequest(request: DriverRequest, keptEffort?: string): { request: DriverRequest; webSearchOff: boolean } {
  if ((request.effort ?? keptEffort) !== "minimal") return { request, webSearchOff: false };
  const webSearch = request.policy?.webSearch;
  if (webSearch === "allow")
    throw new InvalidOptionError({
      subject: "run",
      field: "effort",
      reason: `is "minimal"${request.effort === undefined ? " (the thread's last effort)" : ""} while policy.webSearch is "allow": ${MINIMAL_EFFORT_NO_WEB_SEARCH}; use another effort or deny web search`,
    });
  if (webSearch !== undefined) return { request, webSearchOff: false };
  return { request: { ...request, policy: { ...request.policy, webSearch: "deny" } }, webSearchOff: true };
}
