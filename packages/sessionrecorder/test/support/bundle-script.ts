// Bundles a script for a test's child processes into one ES module (Node built-ins only, the
// workspace packages taken from their source through the `source` export condition, so no build
// is needed first), so each process starts in tens of milliseconds.
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

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
    // `@adaptor/sessionrecorder` and what it imports (`@adaptor/errors`) resolve to src/*.ts.
    conditions: ["source"],
  });
}
