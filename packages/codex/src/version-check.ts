import type { DriverSink } from "@adaptor/driver";
import { requireCliVersion } from "@adaptor/driver/kit";
import { CODEX_VERSION_FLOOR, defaultCodexCommand, defaultCodexVersion } from "./command.js";
import type { CodexConfig } from "./config.js";
import { codexEnv } from "./process-helpers.js";

/**
 * Refuses a codex older than `MIN_CODEX_VERSION` before anything of a run (or a pre-warm) is
 * written or started, on both transports: codex tells a client its version only once it acts
 * (app-server's answer to `initialize`, with the thread request already on its way). The default
 * executable's version (also when `command` names its path) is its npm package's
 * (`defaultCodexVersion`: no process); another executable is asked `codex --version` once per binary and process.
 *
 * @throws FeatureUnsupportedError (feature `"cliVersion"`) for an older codex; DriverError (op
 * `"spawn"`) when the executable cannot be started; `signal.reason` when aborted.
 */
export async function requireCodexVersion(
  command: string,
  config: CodexConfig,
  run: { readonly env?: Readonly<Record<string, string>> | undefined; readonly cwd?: string | undefined },
  sink: DriverSink,
  signal: AbortSignal,
): Promise<void> {
  // A `command` naming the default executable's own path is that package's binary too.
  const installed = command === defaultCodexCommand() ? defaultCodexVersion() : undefined;
  const cwd = run.cwd ?? config.cwd;
  await requireCliVersion(
    CODEX_VERSION_FLOOR,
    {
      command,
      args: ["--version"],
      env: installed === undefined ? codexEnv(config, run.env) : {},
      ...(cwd !== undefined ? { cwd } : {}),
      device: "codex",
      installed,
    },
    sink,
    signal,
  );
}
