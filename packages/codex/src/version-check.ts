import type { DriverSink } from "@adaptor/driver";
import { requireCliVersion, type CliVersionCheck } from "@adaptor/driver/kit";
import { CODEX_PACKAGE_BINARIES, CODEX_VERSION_FLOOR, defaultCodexCommand, defaultCodexVersion } from "./command.js";
import type { CodexConfig } from "./config.js";
import { codexEnv } from "./process-helpers.js";

/**
 * Refuses a codex older than `MIN_CODEX_VERSION` before anything of a run (or a pre-warm) is
 * written or started, on both transports. The default executable's version (also when `command`
 * names its path) is its npm package's (`defaultCodexVersion`: no process), as is that of a
 * `command` that is the native binary of a codex package (a link to it, another install); another executable is
 * asked `codex --version` once per binary and process (a refusal is not remembered). That answer
 * may be stale behind a version manager's shim: app-server names its version in its answer to
 * `initialize`, which the driver then reads before it opens the thread and confirms the returned
 * check with (`confirmStartedVersion`); `codex exec` reports none before its turn (the
 * prompt is part of its launch), so there the remembered answer stands.
 *
 * @returns what the run was let through on, to confirm with app-server's `initialize` answer.
 * @throws FeatureUnsupportedError (feature `"cliVersion"`) for an older codex; DriverError (op
 * `"spawn"`) when the executable cannot be started; `signal.reason` when aborted (at once, the
 * `--version` process ended).
 */
export async function requireCodexVersion(
  command: string,
  config: CodexConfig,
  run: { readonly env?: Readonly<Record<string, string>> | undefined; readonly cwd?: string | undefined },
  sink: DriverSink,
  signal: AbortSignal,
): Promise<CliVersionCheck> {
  // A `command` naming the default executable's own path is that package's binary too.
  const installed = command === defaultCodexCommand() ? defaultCodexVersion() : undefined;
  const cwd = run.cwd ?? config.cwd;
  return await requireCliVersion(
    CODEX_VERSION_FLOOR,
    {
      command,
      args: ["--version"],
      env: installed === undefined ? codexEnv(config, run.env) : {},
      ...(cwd !== undefined ? { cwd } : {}),
      device: "codex",
      installed,
      packages: CODEX_PACKAGE_BINARIES,
    },
    sink,
    signal,
  );
}
