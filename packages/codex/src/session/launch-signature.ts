import { createHash } from "node:crypto";
import type { DriverRequest } from "@adaptor/driver";
import type { CodexConfig } from "../config.js";
import { codexEnv } from "../process-helpers.js";

/**
 * Hash of every spawn input of an app-server turn except the thread to open: the executable, the
 * config, the merged child environment, cwd, model, policy, MCP servers and output schema. A parked
 * process is reused only for a turn with the same signature (anything else means a fresh process).
 */
export function launchSignature(command: string, config: CodexConfig, request: DriverRequest): string {
  const inputs = {
    command,
    config: { ...config, env: undefined },
    env: codexEnv(config, request.env),
    cwd: request.cwd ?? config.cwd ?? process.cwd(),
    model: request.model ?? config.model,
    policy: request.policy,
    mcpServers: request.mcpServers,
    outputSchema: request.outputSchema,
  };
  return createHash("sha256").update(stableJson(inputs)).digest("hex");
}

/** JSON with object keys sorted and `undefined` members left out, so equal inputs hash equally. */
function stableJson(value: unknown): string {
  if (value === null || typeof value !== "object") return JSON.stringify(value) ?? "null";
  if (Array.isArray(value)) return `[${value.map(stableJson).join(",")}]`;
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, v]) => v !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : 1));
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${stableJson(v)}`).join(",")}}`;
}
