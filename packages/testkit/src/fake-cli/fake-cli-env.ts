import type { FakeCliStep } from "./fake-cli-step.js";

/**
 * The environment entry that hands `steps` to the fake CLI: `{ ADAPTOR_FAKE_CLI_SCENARIO: <JSON> }`.
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
export function fakeCliEnv(steps: readonly FakeCliStep[]): Record<string, string> {
  return { ADAPTOR_FAKE_CLI_SCENARIO: JSON.stringify(steps) };
}
