import { FeatureUnsupportedError, type SubagentDefinition, type SystemPrompt } from "@adaptor/driver";
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

/**
 * Pre-invocation step: hands the run's `agents` (subagent definitions) to a driver whose
 * descriptor declares `subagents`. Nothing to do without the option or with an empty record.
 * @throws FeatureUnsupportedError (feature `agents`) for any other driver; the driver is never started.
 */
export function prepareSubagents(prep: Preparation): void {
  const agents = prep.options.agents;
  if (agents === undefined || Object.keys(agents).length === 0) return;
  const { type, capabilities } = prep.driver.descriptor;
  if (capabilities.subagents !== true) throw new FeatureUnsupportedError(type, "agents", "its agent takes no subagent definitions");
  const copied: Record<string, SubagentDefinition> = {};
  for (const [name, definition] of Object.entries(agents)) {
    copied[name] = {
      description: definition.description,
      prompt: definition.prompt,
      ...(definition.tools !== undefined ? { tools: [...definition.tools] } : {}),
      ...(definition.model !== undefined ? { model: definition.model } : {}),
    };
  }
  prep.request = { ...prep.request, agents: copied };
}
