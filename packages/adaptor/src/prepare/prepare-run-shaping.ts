import { FeatureUnsupportedError, type HookPoint, type SubagentDefinition, type SystemPrompt } from "@adaptor/driver";
import type { Preparation } from "./preparation.js";
import { readImages } from "../prompt/read-images.js";
import { hookName, hookPoints, OBSERVABLE_HOOK_POINTS, toolHookMatchers } from "../hooks/hook-runner.js";

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

/**
 * Pre-invocation step: hands the run's `allowedTools` / `disallowedTools` (as `toolRules`) and
 * `additionalDirectories` to a driver whose descriptor declares `toolRules` /
 * `additionalDirectories`, and `planMode` to one that declares `planMode`. Nothing to do without
 * the options or with empty lists.
 * @throws FeatureUnsupportedError (feature `allowedTools`, `disallowedTools`,
 * `additionalDirectories` or `planMode`) for any other driver; the driver is never started.
 */
export function prepareToolAccess(prep: Preparation): void {
  const { allowedTools = [], disallowedTools = [], additionalDirectories = [] } = prep.options;
  const { type, capabilities } = prep.driver.descriptor;
  for (const [feature, list] of [
    ["allowedTools", allowedTools],
    ["disallowedTools", disallowedTools],
  ] as const) {
    if (list.length > 0 && capabilities.toolRules !== true)
      throw new FeatureUnsupportedError(type, feature, "its agent takes no permission rules from the host");
  }
  if (additionalDirectories.length > 0 && capabilities.additionalDirectories !== true)
    throw new FeatureUnsupportedError(type, "additionalDirectories", "its agent's file tools cannot be given further directories");
  if (allowedTools.length > 0 || disallowedTools.length > 0)
    prep.request = {
      ...prep.request,
      toolRules: {
        ...(allowedTools.length > 0 ? { allow: [...allowedTools] } : {}),
        ...(disallowedTools.length > 0 ? { deny: [...disallowedTools] } : {}),
      },
    };
  if (additionalDirectories.length > 0) prep.request = { ...prep.request, additionalDirectories: [...additionalDirectories] };
  if (prep.options.planMode === true) {
    if (capabilities.planMode !== true)
      throw new FeatureUnsupportedError(type, "planMode", "its CLI has no plan mode whose exit it asks the host about (a plan_review)");
    prep.request = { ...prep.request, planMode: true };
  }
}

/**
 * Pre-invocation step: hands the run's `effort` to a driver whose descriptor lists the level.
 * Nothing to do without the option.
 * @throws FeatureUnsupportedError (feature `effort`) for any other driver; the driver is never started.
 */
export function prepareEffort(prep: Preparation): void {
  const effort = prep.options.effort;
  if (effort === undefined) return;
  const { type, capabilities } = prep.driver.descriptor;
  if (!(capabilities.effort ?? []).includes(effort)) {
    const levels = capabilities.effort?.length
      ? `it carries only ${capabilities.effort.join(", ")}`
      : "its agent takes no reasoning effort";
    throw new FeatureUnsupportedError(type, "effort", `cannot set the reasoning effort to ${effort} (${levels})`);
  }
  prep.request = { ...prep.request, effort };
}

/**
 * Pre-invocation step: checks the run's `budget` against what the driver reports (model responses
 * for `maxTurns`, cost for `maxCostUsd`; tool calls are counted for every driver) and hands it to
 * the driver, which may enforce it natively too. Nothing to do without the option.
 * @throws FeatureUnsupportedError (feature `budget.maxTurns` or `budget.maxCostUsd`); the driver is never started.
 */
export function prepareBudget(prep: Preparation): void {
  const budget = prep.options.budget;
  if (budget === undefined) return;
  const { type, capabilities } = prep.driver.descriptor;
  if (budget.maxTurns !== undefined && capabilities.budgets?.turns !== true)
    throw new FeatureUnsupportedError(type, "budget.maxTurns", "it does not report its model responses");
  if (budget.maxCostUsd !== undefined && capabilities.budgets?.costUsd !== true)
    throw new FeatureUnsupportedError(type, "budget.maxCostUsd", "it does not report the run's cost");
  prep.request = { ...prep.request, budget: { ...budget } };
}

/**
 * Pre-invocation step: reads the prompt's images (files, data URLs, bytes), checks their type and
 * size, and hands them to a driver whose descriptor declares `images`. Nothing to do for a prompt
 * without images.
 * @throws FeatureUnsupportedError (feature `images`) for any other driver, before anything is read;
 * InvalidOptionError (field `prompt[i]`) for an image that cannot be read, is not a PNG, JPEG, GIF
 * or WebP, does not match its declared type, or is too large. The driver is never started.
 */
export async function prepareImages(prep: Preparation): Promise<void> {
  if (prep.images.length === 0) return;
  const { type, capabilities } = prep.driver.descriptor;
  if (capabilities.images !== true) throw new FeatureUnsupportedError(type, "images", "it cannot give its model images");
  prep.request = { ...prep.request, images: await readImages(prep.images, prep.signal) };
}

/**
 * Pre-invocation step: hands the driver the hook points of the run's `hooks` that its agent waits
 * for (`DriverCapabilities.hooks`); the SDK observes the others from the run. Nothing to do without
 * the option.
 * @throws FeatureUnsupportedError (feature `hooks.beforeToolCall`) when the agent cannot wait for a
 * `beforeToolCall` hook (a hook that only observed a call after the fact could not deny or edit it),
 * feature `hooks.<name>` for a hook of the agent's life (`onSessionStart` to `onSubagentStop`) the
 * agent does not call, or for a hook at a point the descriptor lists in `refusedHooks`; the driver
 * is never started. A tool hook's matcher goes to a driver that hands it to its agent
 * (`DriverCapabilities.hookMatchers`).
 */
export function prepareHooks(prep: Preparation): void {
  const hooks = prep.options.hooks;
  if (hooks === undefined) return;
  const { type, capabilities } = prep.driver.descriptor;
  const carried = capabilities.hooks ?? [];
  const points = hookPoints(hooks);
  if (points.includes("beforeToolCall") && !carried.includes("beforeToolCall"))
    throw new FeatureUnsupportedError(type, "hooks.beforeToolCall", "its agent does not wait for the host before a tool call runs");
  const uncalled = points.find((point) => !carried.includes(point) && !OBSERVABLE_HOOK_POINTS.includes(point));
  if (uncalled !== undefined)
    throw new FeatureUnsupportedError(type, `hooks.${hookName(uncalled)}`, "its agent does not call the host at this point of its life");
  const refused = points.find((point) => !carried.includes(point) && capabilities.refusedHooks?.includes(point));
  if (refused !== undefined)
    throw new FeatureUnsupportedError(
      type,
      `hooks.${hookName(refused)}`,
      "its agent does not wait for this hook, and observed after the work it ran its verdict could not be carried",
    );
  const native = points.filter((point) => carried.includes(point));
  if (native.length === 0) return;
  const matchers = Object.entries(toolHookMatchers(hooks)).filter(([point]) => native.includes(point as HookPoint));
  prep.request = {
    ...prep.request,
    hooks: native,
    ...(capabilities.hookMatchers === true && matchers.length > 0 ? { hookMatchers: Object.fromEntries(matchers) } : {}),
  };
}
