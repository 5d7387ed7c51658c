// Bundles a script for a test's child processes into one ES module (Node built-ins only, the
// package taken from its source), so each process starts in tens of milliseconds.
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const SOURCE = fileURLToPath(new URL("../../src/index.ts", import.meta.url));
const SUPPORT = fileURLToPath(new URL(".", import.meta.url));

/** Writes `outfile`, bundled from `script`: a file path, or inline source importing "@adaptor/sessionrecorder". */
export async function bundleScript(outfile: string, script: { readonly entry: string } | { readonly contents: string }): Promise<void> {
  await build({
    ...("entry" in script
      ? { entryPoints: [script.entry] }
      : { stdin: { contents: script.contents, resolveDir: SUPPORT, loader: "ts" as const } }),
    bundle: true,
    format: "esm",
    platform: "node",
    target: "node20",
    outfile,
    logLevel: "silent",
    alias: { "@adaptor/sessionrecorder": SOURCE },
  });
}
