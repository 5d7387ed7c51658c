import { readdirSync, readFileSync, existsSync } from "node:fs";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

// Tests run from `src`: every workspace package name (and subpath export) is aliased to the file
// its `source` export condition names, so no build is needed before `vitest run`.
function sourceAliases(): { find: string; replacement: string }[] {
  const aliases: { find: string; replacement: string }[] = [];
  for (const group of ["packages", "examples"]) {
    for (const folder of readdirSync(group)) {
      const manifest = join(group, folder, "package.json");
      if (!existsSync(manifest)) continue;
      const pkg = JSON.parse(readFileSync(manifest, "utf8")) as {
        name: string;
        exports?: Record<string, { source?: string }>;
      };
      for (const [subpath, target] of Object.entries(pkg.exports ?? {})) {
        if (!target.source) continue;
        aliases.push({ find: pkg.name + subpath.slice(1), replacement: resolve(group, folder, target.source) });
      }
    }
  }
  // Longest first, so "@adaptor/driver/process" wins over "@adaptor/driver".
  return aliases.sort((a, b) => b.find.length - a.find.length);
}

export default defineConfig({
  resolve: { alias: sourceAliases().map(({ find, replacement }) => ({ find: new RegExp(`^${find}$`), replacement })) },
  test: {
    include: ["packages/*/src/**/*.test.ts", "packages/*/test/**/*.test.ts", "examples/*/test/**/*.test.ts", "test/**/*.test.ts"],
    // Safety nets, not assertions: real CLIs on a busy 2-core machine can take tens of seconds to
    // start, and no test may fail because the machine is slow.
    testTimeout: 120_000,
    hookTimeout: 120_000,
    pool: "forks",
    maxWorkers: 2,
    // Fails the run when a process a test started outlives the last test file (and kills it).
    globalSetup: [fileURLToPath(new URL("test/support/leftover-processes.ts", import.meta.url))],
  },
});
