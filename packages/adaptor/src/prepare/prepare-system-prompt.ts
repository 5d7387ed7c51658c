import { FeatureUnsupportedError, type SystemPrompt } from "@adaptor/driver";
import type { Preparation } from "./preparation.js";

/**
 * Pre-invocation step: hands the run's `systemPrompt` option to the driver as
 * `{ mode: "replace", text }` (a string) or `{ mode: "append", text }` (`{ append }`), when the
 * driver's descriptor lists that mode. Nothing to do without the option.
 * @throws FeatureUnsupportedError (feature `systemPrompt`) when the driver cannot deliver the mode;
 * the driver is never started.
 */
export function prepareSystemPrompt(prep: Preparation): void {
  const option = prep.options.systemPrompt;
  if (option === undefined) return;
  const systemPrompt: SystemPrompt =
    typeof option === "string" ? { mode: "replace", text: option } : { mode: "append", text: option.append };
  const { type, capabilities } = prep.driver.descriptor;
  if (!(capabilities.systemPrompt ?? []).includes(systemPrompt.mode)) {
    const modes = capabilities.systemPrompt?.length ? `it can only ${capabilities.systemPrompt.join(" or ")} it` : "its agent takes none";
    throw new FeatureUnsupportedError(type, "systemPrompt", `cannot ${systemPrompt.mode} the system prompt (${modes})`);
  }
  prep.request = { ...prep.request, systemPrompt };
}
