import type { DriverRequest } from "@adaptor/driver";
import { launchSignature, skillsDigest } from "@adaptor/driver/kit";
import { mergeChildEnv } from "@adaptor/driver/process";
import { CLAUDE_INHERITED_ENV, type ClaudeConfig } from "../config.js";

/**
 * The kit's launch signature of a claude turn: the config, the merged environment, cwd, model,
 * policy, MCP servers, output schema, the skills (by name and content), the reasoning effort and the CLI's own limits. A parked process is
 * reused only for a turn with the same signature (a config change means a fresh process).
 */
export function claudeLaunchSignature(config: ClaudeConfig, request: DriverRequest): string {
  return launchSignature({
    config,
    env: mergeChildEnv({ inheritEnv: config.inheritEnv, defaultInherit: CLAUDE_INHERITED_ENV, layers: [config.env, request.env] }),
    request,
    // Skills are staged into a new folder every run: compare names and contents, not paths.
    extra: {
      skills: skillsDigest(request.skills),
      // --max-turns and --max-budget-usd are launch flags; a tool-call limit registers the every-tool
      // hook with the process's initialize request.
      budget: request.budget && {
        maxTurns: request.budget.maxTurns,
        maxCostUsd: request.budget.maxCostUsd,
        holdToolCalls: request.budget.maxToolCalls !== undefined,
      },
      // Hooks are registered by the process's initialize request.
      hooks: request.hooks?.length ? [...request.hooks].sort() : undefined,
      hookMatchers: request.hookMatchers,
      // Permission rules are launch flags and settings.
      toolRules: request.toolRules,
      // --permission-mode plan is a launch flag.
      planMode: request.planMode,
      // --effort is a launch flag.
      effort: request.effort,
    },
  });
}
