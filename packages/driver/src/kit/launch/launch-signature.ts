import { createHash } from "node:crypto";
import type { DriverRequest } from "../../spi/request.js";

/**
 * JSON with object keys sorted and `undefined` members left out (arrays keep their order), so two
 * values that are equal as data give the same text whatever order their keys were written in.
 */
export function stableJson(value: unknown): string {
  if (value === null || typeof value !== "object") return JSON.stringify(value) ?? "null";
  if (Array.isArray(value)) return `[${value.map(stableJson).join(",")}]`;
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, v]) => v !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : 1));
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${stableJson(v)}`).join(",")}}`;
}

/** What {@link launchSignature} hashes. */
export interface LaunchInputs {
  /** The driver's whole (validated) config; its `env` is left out, `env` below stands for it. */
  readonly config: { readonly cwd?: string | undefined; readonly model?: string | undefined; readonly env?: unknown };
  /** The merged child environment the process gets (e.g. from `mergeChildEnv`). */
  readonly env: Readonly<Record<string, string | undefined>>;
  /**
   * The run: its cwd, model, policy, MCP servers, output schema, system prompt, subagents and
   * additional directories count; prompt, run id and session do not.
   */
  readonly request: Pick<
    DriverRequest,
    "cwd" | "model" | "policy" | "mcpServers" | "outputSchema" | "systemPrompt" | "agents" | "additionalDirectories"
  >;
  /** Further spawn inputs of this driver (the resolved executable, a hash of staged skills...). */
  readonly extra?: Readonly<Record<string, unknown>>;
}

/**
 * A sha256 (hex) over every spawn input of a turn except which conversation it continues: the
 * config, the merged environment, cwd (the run's, else the config's, else `process.cwd()`), model
 * (the run's, else the config's), policy, MCP servers, output schema, system prompt, subagents,
 * additional directories and `extra`. Two turns with
 * the same signature would launch the CLI alike, so a parked or pre-warmed process may serve the
 * other; any difference means a fresh process ({@link ProcessPool}).
 */
export function launchSignature(inputs: LaunchInputs): string {
  const { config, request } = inputs;
  const hashed = {
    config: { ...config, env: undefined },
    env: inputs.env,
    cwd: request.cwd ?? config.cwd ?? process.cwd(),
    model: request.model ?? config.model,
    policy: request.policy,
    mcpServers: request.mcpServers,
    outputSchema: request.outputSchema,
    systemPrompt: request.systemPrompt,
    agents: request.agents,
    additionalDirectories: request.additionalDirectories,
    extra: inputs.extra,
  };
  return createHash("sha256").update(stableJson(hashed)).digest("hex");
}
