import { createHash } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { DriverRequest } from "@adaptor/driver";
import { launchSignature } from "@adaptor/driver/kit";
import { mergeChildEnv } from "@adaptor/driver/process";
import { CLAUDE_INHERITED_ENV, type ClaudeConfig } from "../config.js";

/**
 * The kit's launch signature of a claude turn: the config, the merged environment, cwd, model,
 * policy, MCP servers, output schema, the skills (by name and content) and the CLI's own limits. A parked process is
 * reused only for a turn with the same signature (a config change means a fresh process).
 */
export function claudeLaunchSignature(config: ClaudeConfig, request: DriverRequest): string {
  return launchSignature({
    config,
    env: mergeChildEnv({ inheritEnv: config.inheritEnv, defaultInherit: CLAUDE_INHERITED_ENV, layers: [config.env, request.env] }),
    request,
    // Skills are staged into a new folder every run: compare names and contents, not paths.
    extra: {
      skills: request.skills?.map((skill) => ({ name: skill.name, content: hashTree(skill.dir) })),
      // --max-turns and --max-budget-usd are launch flags.
      budget: request.budget && { maxTurns: request.budget.maxTurns, maxCostUsd: request.budget.maxCostUsd },
    },
  });
}

/** sha256 over the relative paths and bytes of every file under `dir`, in sorted order. */
function hashTree(dir: string): string {
  const hash = createHash("sha256");
  const visit = (relative: string): void => {
    for (const entry of readdirSync(join(dir, relative), { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
      const path = join(relative, entry.name);
      if (entry.isDirectory()) visit(path);
      else if (entry.isFile())
        hash
          .update(path)
          .update("\0")
          .update(readFileSync(join(dir, path)))
          .update("\0");
    }
  };
  try {
    visit("");
  } catch {
    hash.update(`unreadable:${dir}`);
  }
  return hash.digest("hex");
}
