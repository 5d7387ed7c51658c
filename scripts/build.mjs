// Builds every package under packages/ as it is published: `node scripts/build.mjs`, also `pnpm build`.
// 1. `tsc -b`: type-checks and writes the declarations (.d.ts + .d.ts.map) into each package's dist/.
// 2. esbuild: the JavaScript, bundled per package into dist/js/: one ES module per public subpath
//    export (`.` → index.js, `./kit` → kit.js, …), the code the entries share and what they import
//    dynamically in chunks beside them (chunk-<hash>.js, the dynamic ones loaded on first use), with
//    source maps into the shipped src/. Every bare import (dependencies, node built-ins and the OTHER
//    workspace packages) stays external, so a class or sentinel another package owns stays one
//    object across packages, as with one module per file; except the few small dependencies in
//    INLINED, copied into the bundle (see there).
// The entries and chunks sit two folders below the package root, as a source file under
// src/<folder>/ does: code that finds a shipped file relative to its own module
// (`new URL("../../…", import.meta.url)`) finds the same file from source, from a test and from
// the bundle.
// Loading an installed package this way reads a few ES modules instead of one per source file (each
// costs about half a millisecond to resolve, read, compile and link).
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync, readdirSync, rmSync, statSync } from "node:fs";
import { dirname, isAbsolute, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");

/**
 * Dependencies copied into the bundles instead of imported: small, pure, and with nothing a host or
 * another package compares by identity (no class, error or symbol of theirs crosses a public
 * surface; their types appear in no declaration). Imported, they cost a cold start one ES module
 * each (uuid's ES build alone is 21, about 18 ms of CPU over empty node); copied, none. uuid's v7
 * keeps a counter per copy: only `adaptor` makes v7 ids, so its ids stay ordered. They stay
 * declared dependencies: the published `source` condition imports them from src/.
 */
export const INLINED = new Set(["uuid", "p-queue", "eventemitter3", "p-timeout", "fastest-levenshtein"]);

/** The package a bare specifier names: `@scope/name/sub` → `@scope/name`, `name/sub` → `name`. */
function packageNameOf(specifier) {
  const parts = specifier.split("/");
  return specifier.startsWith("@") ? `${parts[0]}/${parts[1]}` : parts[0];
}

/** esbuild plugin: every bare import external (as `packages: "external"`) except {@link INLINED}'s. */
const externalExceptInlined = {
  name: "external-except-inlined",
  setup(build) {
    build.onResolve({ filter: /^[^./]/ }, (args) => {
      if (args.kind === "entry-point" || isAbsolute(args.path) || INLINED.has(packageNameOf(args.path))) return undefined;
      return { path: args.path, external: true };
    });
  },
};

/** Every file under `dir`, recursively. */
function walk(dir) {
  const files = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) files.push(...walk(path));
    else files.push(path);
  }
  return files;
}

/** The package folders under packages/ that have a manifest. */
export function packageDirs() {
  return readdirSync(join(root, "packages"))
    .map((name) => join(root, "packages", name))
    .filter((dir) => existsSync(join(dir, "package.json")));
}

/** The bundle entry a public subpath export builds: `.` → `index`, `./kit` → `kit`, `./a/b` → `a-b`. */
export function entryName(subpath) {
  return subpath === "." ? "index" : subpath.slice(2).replaceAll("/", "-");
}

/**
 * Removes what is in dist/ that no source or build step produces any longer: JavaScript outside
 * dist/js/ (tsc writes declarations only) and declarations whose source file is gone. Returns the
 * removed paths, relative to the repository.
 */
export function pruneStaleBuildOutput() {
  const removed = [];
  for (const packageDir of packageDirs()) {
    const dist = join(packageDir, "dist");
    if (!existsSync(dist) || !statSync(dist).isDirectory()) continue;
    for (const file of walk(dist)) {
      const rel = relative(dist, file);
      if (rel.startsWith(`js${"/"}`)) continue;
      const isJs = /\.js(\.map)?$/.test(file);
      const source = join(packageDir, "src", `${rel.replace(/\.d\.ts(\.map)?$/, "")}.ts`);
      if (isJs || (/\.d\.ts(\.map)?$/.test(file) && !existsSync(source))) {
        rmSync(file);
        removed.push(relative(root, file));
      }
    }
  }
  return removed;
}

/** Bundles one package's public subpath exports into its dist/js/ (emptied first). */
export async function bundlePackage(packageDir) {
  const manifest = JSON.parse(readFileSync(join(packageDir, "package.json"), "utf8"));
  const entryPoints = Object.entries(manifest.exports ?? {})
    .filter(([, conditions]) => typeof conditions === "object" && conditions.source)
    .map(([subpath, conditions]) => ({ in: join(packageDir, conditions.source), out: entryName(subpath) }));
  const outdir = join(packageDir, "dist", "js");
  rmSync(outdir, { recursive: true, force: true });
  if (entryPoints.length === 0) return;
  await build({
    entryPoints,
    outdir,
    bundle: true,
    splitting: true,
    format: "esm",
    platform: "node",
    target: "node20",
    // Dependencies, node built-ins and the other workspace packages are imported, not copied
    // (but INLINED's).
    plugins: [externalExceptInlined],
    chunkNames: "chunk-[hash]",
    sourcemap: true,
    // The maps name the shipped src/ files instead of carrying a second copy of them.
    sourcesContent: false,
    // Class and function names as written: error classes report them (`err.name`), and a bundle
    // would otherwise rename one whose name another module of the package also declares.
    keepNames: true,
    logLevel: "warning",
  });
}

/** tsc -b, then every package's bundles. */
export async function buildAll() {
  const removed = pruneStaleBuildOutput();
  if (removed.length > 0) console.error(`removed ${removed.length} stale build file(s), e.g. ${removed[0]}`);
  execFileSync(process.execPath, [join(root, "node_modules", "typescript", "bin", "tsc"), "-b"], { cwd: root, stdio: "inherit" });
  await Promise.all(packageDirs().map((dir) => bundlePackage(dir)));
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await buildAll();
