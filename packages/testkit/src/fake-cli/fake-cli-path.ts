import { fileURLToPath } from "node:url";

/**
 * Absolute path of the fault-injecting fake CLI (`bin/fake-cli.mjs`), an executable Node script with
 * a `#!/usr/bin/env node` shebang: spawn it directly (the child's `PATH` must find `node`) or as
 * `process.execPath` with this path as first argument. It ignores its argv and replays the scenario
 * given by {@link fakeCliEnv}. Resolved from this module's URL, so it works from `src` and `dist`.
 */
export const fakeCliPath: string = fileURLToPath(new URL("../../bin/fake-cli.mjs", import.meta.url));
