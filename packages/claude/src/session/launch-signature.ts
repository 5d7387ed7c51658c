import { createHash } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { DriverRequest } from "@adaptor/driver";
import { mergeChildEnv } from "@adaptor/driver/process";
import { CLAUDE_INHERITED_ENV, type ClaudeConfig } from "../config.js";

/**
 * Hash of every spawn input of a turn except the session flags: command, config, cwd, the merged
 * environment, model, policy, MCP servers, skills and output schema. A parked process is reused
 * only for a turn with the same signature (a config change means a fresh process).
 */
export function launchSignature(config: ClaudeConfig, request: DriverRequest): string {
  const inputs = {
    config: { ...config, env: undefined },
    env: mergeChildEnv({ inheritEnv: config.inheritEnv, defaultInherit: CLAUDE_INHERITED_ENV, layers: [config.env, request.env] }),
    cwd: request.cwd ?? config.cwd ?? process.cwd(),
    model: request.model ?? config.model,
    policy: request.policy,
    mcpServers: request.mcpServers,
    // Skills are staged into a new folder every run: compare names and contents, not paths.
    skills: request.skills?.map((skill) => ({ name: skill.name, content: hashTree(skill.dir) })),
    outputSchema: request.outputSchema,
  };
  return createHash("sha256").update(stableJson(inputs)).digest("hex");
}

/** sha256 over the relative paths and bytes of every file under `dir`, in sorted order. */
function hashTree(dir: string): string {
  const hash = createHash("sha256");
  const visit = (relative: string): void => {
    for (const entry of readdirSync(join(dir, relative), { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
      const path = join(relative, entry.name);
      if (entry.isDirectory()) visit(path);
      else if (entry.isFile()) hash.update(path).update("\0").update(readFileSync(join(dir, path))).update("\0");
    }
  };
  try {
    visit("");
  } catch {
    hash.update(`unreadable:${dir}`);
  }
  return hash.digest("hex");
}

function stableJson(value: unknown): string {
  if (value === null || typeof value !== "object") return JSON.stringify(value) ?? "null";
  if (Array.isArray(value)) return `[${value.map(stableJson).join(",")}]`;
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, v]) => v !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : 1));
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${stableJson(v)}`).join(",")}}`;
}
