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
