import { checkDriverConfig } from "./check-driver-config.js";
import { checkPolicy } from "./check-policy.js";
import type { Preparation } from "./preparation.js";
import { prepareHostTools } from "./prepare-host-tools.js";
import { prepareMcpServers } from "./prepare-mcp-servers.js";
import { prepareSkills } from "./prepare-skills.js";
import { prepareStructuredOutput } from "./prepare-structured-output.js";
import {
  prepareBudget,
  prepareEffort,
  prepareHooks,
  prepareImages,
  prepareSubagents,
  prepareSystemPrompt,
  prepareToolAccess,
} from "./prepare-run-shaping.js";

/**
 * The pre-invocation steps, in order (docs/design.md "Pre-invocation order"; the policy check
 * itself reports an invalid value, then unsupported capability, then unsupported approval mode).
 */
export const PREPARATION_STEPS: readonly ((prep: Preparation) => void | Promise<void>)[] = [
  checkDriverConfig,
  checkPolicy,
  prepareSystemPrompt,
  prepareSubagents,
  prepareToolAccess,
  prepareEffort,
  prepareBudget,
  prepareHooks,
  prepareImages,
  prepareStructuredOutput,
  prepareMcpServers,
  prepareSkills,
  prepareHostTools,
];

/** Runs every step; on failure, cleans up what earlier steps staged and rethrows. */
export async function prepare(prep: Preparation): Promise<Preparation> {
  try {
    for (const step of PREPARATION_STEPS) {
      prep.signal.throwIfAborted();
      await step(prep);
    }
    return prep;
  } catch (error) {
    await prep.cleanup();
    throw error;
  }
}
