// Builds a genuinely separate second copy of the public packages (the "two copies of a package in
// one process" case of DESIGN.md "Errors in TypeScript"): esbuild bundles `adaptor` and every leaf
// package from their `src` into one ESM file, which is then imported beside the original modules.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { build, type Plugin } from "esbuild";
import { PACKAGE_OF, type Surface } from "./surface.js";

const REPO_ROOT = fileURLToPath(new URL("../../../../", import.meta.url));

/** `"<package name><subpath>"` → the file its `source` export condition names, for every workspace package. */
function workspaceSources(): Map<string, string> {
  const sources = new Map<string, string>();
  const packagesDir = join(REPO_ROOT, "packages");
  for (const folder of readdirSync(packagesDir)) {
    const manifest = join(packagesDir, folder, "package.json");
    if (!existsSync(manifest)) continue;
    const pkg = JSON.parse(readFileSync(manifest, "utf8")) as {
      name: string;
      exports?: Record<string, { source?: string }>;
    };
    for (const [subpath, target] of Object.entries(pkg.exports ?? {})) {
      if (target.source) sources.set(pkg.name + subpath.slice(1), resolve(packagesDir, folder, target.source));
    }
  }
  return sources;
}

/** Resolves `adaptor` and `@adaptor/*` to their sources, so the bundle never reads a stale `dist`. */
function workspaceSourcesPlugin(): Plugin {
  const sources = workspaceSources();
  return {
    name: "adaptor-workspace-sources",
    setup(pluginBuild) {
      pluginBuild.onResolve({ filter: /^(adaptor|@adaptor\/[^/]+)(\/.*)?$/ }, (args) => {
        const path = sources.get(args.path);
        return path ? { path } : { errors: [{ text: `no workspace source for ${args.path}` }] };
      });
    },
  };
}

/** A loaded second copy, and how to remove its files. */
export interface Copy {
  readonly surface: Surface;
  /** The bundle file the copy was imported from. */
  readonly file: string;
  dispose(): Promise<void>;
}

/**
 * Bundles every package of {@link Surface} (and `uuid`, so the file imports only Node built-ins)
 * into a temporary directory and imports it. Every class and function in it is a distinct object
 * from the original's; only `Symbol.for` keys and `globalThis` are shared.
 */
export async function loadSecondCopy(): Promise<Copy> {
  const dir = await mkdtemp(join(tmpdir(), "adaptor-second-copy-"));
  const file = join(dir, "adaptor-copy.mjs");
  const contents = Object.entries(PACKAGE_OF)
    .map(([key, name]) => `export * as ${key} from ${JSON.stringify(name)};`)
    .join("\n");
  await build({
    stdin: { contents, resolveDir: REPO_ROOT, sourcefile: "second-copy-entry.ts", loader: "ts" },
    bundle: true,
    format: "esm",
    platform: "node",
    target: "node20",
    outfile: file,
    logLevel: "silent",
    plugins: [workspaceSourcesPlugin()],
  });
  const surface = (await import(/* @vite-ignore */ pathToFileURL(file).href)) as Surface;
  return { surface, file, dispose: () => rm(dir, { recursive: true, force: true }) };
}
