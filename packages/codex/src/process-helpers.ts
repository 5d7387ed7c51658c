import { mergeChildEnv, type CliProcess, type ExitInfo } from "@adaptor/driver/process";
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

/** Resolves true when `promise` settled within `ms`; the timer never holds Node open. */
export function within(promise: Promise<unknown>, ms: number): Promise<boolean> {
  return new Promise<boolean>((resolve) => {
    const timer = setTimeout(() => resolve(false), ms);
    timer.unref();
    void promise.then(
      () => {
        clearTimeout(timer);
        resolve(true);
      },
      () => {
        clearTimeout(timer);
        resolve(true);
      },
    );
  });
}

/** Waits up to `graceMs` for the process to exit on its own (stdin closed), then terminates it (SIGTERM → SIGKILL). */
export async function exitOrTerminate(proc: CliProcess, graceMs: number): Promise<ExitInfo> {
  if (await within(proc.exited, graceMs)) return proc.exited;
  return proc.terminate();
}
