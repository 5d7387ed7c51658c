import type { FakeCliStep } from "./fake-cli-step.js";

/**
 * The environment entry that hands `steps` to the fake CLI: `{ ADAPTOR_FAKE_CLI_SCENARIO: <JSON> }`
 * (and `ADAPTOR_FAKE_CLI_VERSION` for `options.version`).
 * Merge it into the child's full environment (`{ ...process.env, ...fakeCliEnv(steps) }`), which must
 * keep a `PATH` that finds `node`. One environment string is limited to 128 KiB on Linux; for larger
 * scenarios write the JSON array to a file and pass `ADAPTOR_FAKE_CLI_SCENARIO_FILE=<path>` instead.
 *
 * @example
 * ```ts
 * const proc = await spawnCli({
 *   command: fakeCliPath,
 *   args: [],
 *   env: { ...process.env, ...fakeCliEnv([{ write: '{"type":"ready"}\n' }, { exit: 0 }]) },
 * });
 * ```
 */
export function fakeCliEnv(steps: readonly FakeCliStep[], options: FakeCliOptions = {}): Record<string, string> {
  return {
    ADAPTOR_FAKE_CLI_SCENARIO: JSON.stringify(steps),
    ...(options.version !== undefined ? { ADAPTOR_FAKE_CLI_VERSION: options.version } : {}),
  };
}

/** Options of {@link fakeCliEnv}. */
export interface FakeCliOptions {
  /**
   * What the fake prints, and exits 0, when run with `--version` alone (a driver's version probe),
   * e.g. `"codex-cli 0.160.0"`. Default `"fake-cli"`: no version a driver can read.
   */
  readonly version?: string;
}
