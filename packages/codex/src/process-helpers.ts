import { mergeChildEnv } from "@adaptor/driver/process";
import { CODEX_INHERITED_ENV, configOverrideArgs, type CodexConfig } from "./config.js";

/**
 * The child environment: the inherited host variables (`inheritEnv`, default
 * {@link CODEX_INHERITED_ENV}), then `config.env`, `CODEX_HOME`, then the run's `env`.
 */
export function codexEnv(config: CodexConfig, runEnv: Readonly<Record<string, string>> | undefined): Record<string, string | undefined> {
  return mergeChildEnv({
    inheritEnv: config.inheritEnv,
    defaultInherit: CODEX_INHERITED_ENV,
    layers: [config.env, config.codexHome ? { CODEX_HOME: config.codexHome } : undefined, runEnv],
  });
}

/** `-c` overrides of the config plus its extra args, placed after the subcommand. */
export function commonArgs(config: CodexConfig): string[] {
  return [...configOverrideArgs(config.configOverrides), ...(config.extraArgs ?? [])];
}
