// Builds every package under packages/ as it is published: `node scripts/build.mjs`, also `pnpm build`.
// 1. `tsc -b`: type-checks and writes the declarations (.d.ts + .d.ts.map) into each package's dist/.
// 2. esbuild: the JavaScript, bundled per package into dist/js/ with source maps into the shipped
//    src/ (see bundlePackage): a package with one public entry is that one module; a package with
//    several holds its code in one shared module (internal.js where it exports `./internal`), each
//    public entry re-exporting its names from there in one line, and the test helpers and what the
//    code imports dynamically are modules of their own (chunk-<hash>.js for the latter) importing
//    the shared code from it. Every bare import (dependencies, node built-ins and the OTHER
//    workspace packages) stays external, so a class or sentinel another package owns stays one
//    object across packages, as with one module per file; except the few small dependencies in
//    INLINED, copied into the bundle (see there). An import of another workspace package's entry
//    is bundled as an import of that package's internal.js, so a cold start loads one module of it.
// The modules sit two folders below the package root, as a source file under
// src/<folder>/ does: code that finds a shipped file relative to its own module
// (`new URL("../../…", import.meta.url)`) finds the same file from source, from a test and from
// the bundle.
// Loading an installed package this way reads a few ES modules instead of one per source file (each
// costs about a millisecond of CPU to resolve, read, compile and link).
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
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
export const INLINED = new Set(["uuid", "p-queue", "eventemitter3", "p-timeout", "fastest-levenshtein", "shell-quote"]);

/** The package a bare specifier names: `@scope/name/sub` → `@scope/name`, `name/sub` → `name`. */
function packageNameOf(specifier) {
  const parts = specifier.split("/");
  return specifier.startsWith("@") ? `${parts[0]}/${parts[1]}` : parts[0];
}

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

/**
 * Public subpaths built as modules of their own instead of into the package's shared module: test
 * helpers (they import vitest), an optional back end with dependencies of its own
 * (`@adaptor/a2a/postgres` imports pg) and test fixtures. What they share with the rest of the
 * package they import from its shared module.
 */
export const SEPARATE = new Set(["./testing", "./postgres", "./fake-cli", "./mcp-fixtures"]);

/** Options every esbuild call here shares. */
const COMMON = {
  bundle: true,
  format: "esm",
  platform: "node",
  target: "node20",
  sourcemap: true,
  // The maps name the shipped src/ files instead of carrying a second copy of them.
  sourcesContent: false,
  // Class and function names as written: error classes report them (`err.name`), and a bundle
  // would otherwise rename one whose name another module of the package also declares.
  keepNames: true,
  logLevel: "warning",
  write: false,
  metafile: true,
};

/**
 * What the shared module (and a package's only module) is built with besides {@link COMMON}: its
 * whitespace and comments dropped and its syntax shortened, names kept as written. A cold start
 * compiles the modules it imports before running anything, and V8 scans every byte of them; the
 * source maps beside them point back into the shipped `src/`. The modules built apart are left as
 * they are: {@link linkToShared} rewrites their imports line for line, and they load only when used.
 */
const MINIFY = { minifyWhitespace: true, minifySyntax: true };

/** The external path a separate module's import of a file of the shared module gets while it is built. */
const SHARED_PREFIX = "shared-module:";

function readManifest(packageDir) {
  return JSON.parse(readFileSync(join(packageDir, "package.json"), "utf8"));
}

/** The public subpath exports built from a source file: `{ subpath, file, out }`. */
function entriesOf(packageDir) {
  return Object.entries(readManifest(packageDir).exports ?? {})
    .filter(([, conditions]) => typeof conditions === "object" && conditions.source)
    .map(([subpath, conditions]) => ({ subpath, file: join(packageDir, conditions.source), out: entryName(subpath) }));
}

/**
 * Which workspace packages hold their code in `dist/js/internal.js` (those with an `./internal`
 * export): package name → the subpaths whose exports internal.js carries too. Another package's
 * import of one of them is bundled as an import of `<name>/internal`, so a cold start loads that
 * one module of the package instead of an entry that re-exports from it.
 */
export function workspaceLayout() {
  const layout = new Map();
  for (const dir of packageDirs()) {
    const manifest = readManifest(dir);
    if (manifest.exports?.["./internal"]?.import !== "./dist/js/internal.js") continue;
    layout.set(
      manifest.name,
      new Set(
        entriesOf(dir)
          .map((entry) => entry.subpath)
          .filter((subpath) => !SEPARATE.has(subpath)),
      ),
    );
  }
  return layout;
}

/**
 * esbuild plugin: every bare import external (as `packages: "external"`) except {@link INLINED}'s;
 * an import of another workspace package's entry that its internal.js carries imports internal.js.
 */
function externals(layout) {
  return {
    name: "externals",
    setup(build) {
      build.onResolve({ filter: /^[^./]/ }, (args) => {
        if (args.kind === "entry-point" || isAbsolute(args.path) || INLINED.has(packageNameOf(args.path))) return undefined;
        const name = packageNameOf(args.path);
        if (layout.get(name)?.has(`.${args.path.slice(name.length)}`)) return { path: `${name}/internal`, external: true };
        return { path: args.path, external: true };
      });
    },
  };
}

/** A chunk's file name (without `.js`) for a package-relative key: `chunk-` and 8 hex digits. */
function chunkName(packageDir, key) {
  const hash = createHash("sha256")
    .update(`${relative(packageDir, key).replaceAll("\\", "/")}`)
    .digest("hex");
  return `chunk-${hash.slice(0, 8).toUpperCase()}`;
}

/** The name the shared module exports a separate module's import under: `name` of `file`. */
function sharedName(packageDir, file, name) {
  return `${name}$${createHash("sha256").update(relative(packageDir, file).replaceAll("\\", "/")).digest("hex").slice(0, 6)}`;
}

/**
 * esbuild plugin: a dynamic import of a package file stays a dynamic import, of a module of its own
 * (`./chunk-<hash>.js`, built apart), loaded when first needed. Adds each such file to `found`.
 */
function lazyModules(packageDir, found) {
  return {
    name: "lazy-modules",
    setup(build) {
      build.onResolve({ filter: /^\./ }, async (args) => {
        if (args.kind !== "dynamic-import") return undefined;
        const resolved = await build.resolve(args.path, {
          kind: "import-statement",
          resolveDir: args.resolveDir,
          pluginData: { plain: true },
        });
        if (resolved.errors.length > 0) return { errors: resolved.errors };
        found.add(resolved.path);
        return { path: `./${chunkName(packageDir, resolved.path)}.js`, external: true };
      });
    },
  };
}

/** esbuild plugin: a static import of a file the shared module holds is external (`shared-module:<file>`). */
function fromShared(sharedFiles) {
  return {
    name: "from-shared",
    setup(build) {
      build.onResolve({ filter: /^\./ }, async (args) => {
        if (args.kind !== "import-statement" || args.pluginData?.plain) return undefined;
        const resolved = await build.resolve(args.path, { kind: args.kind, resolveDir: args.resolveDir, pluginData: { plain: true } });
        if (resolved.errors.length > 0) return { errors: resolved.errors };
        return sharedFiles.has(resolved.path) ? { path: `${SHARED_PREFIX}${resolved.path}`, external: true } : undefined;
      });
    },
  };
}

/**
 * Rewrites a separate module's imports of `shared-module:<file>` into imports of the shared module's
 * names for them (line for line, so the source map still holds). Returns the text and, per file,
 * the names it imports.
 */
function linkToShared(text, packageDir, sharedFile, label) {
  const needs = new Map();
  const linked = text.replace(
    /\b(import|export)(\s*)([^;"]*?)(from\s*)?"shared-module:([^"]+)"/g,
    (_, keyword, space, clause, from, file) => {
      const trimmed = clause.trim();
      if (trimmed === "" && from === undefined) return `${keyword}${space}"./${sharedFile}"`;
      if (!trimmed.startsWith("{") || !trimmed.endsWith("}"))
        throw new Error(`${label}: only named imports of the shared module are linked, not: ${keyword} ${trimmed} from ${file}`);
      const names = needs.get(file) ?? new Set();
      needs.set(file, names);
      const specifiers = clause.replace(
        /\{([^}]*)\}/,
        (__, list) =>
          `{${list
            .split(",")
            .map((specifier) =>
              specifier.replace(/^(\s*)(\S+)(?:\s+as\s+(\S+))?(\s*)$/, (whole, lead, name, alias, trail) => {
                if (!name) return whole;
                names.add(name);
                return `${lead}${sharedName(packageDir, file, name)} as ${alias ?? name}${trail}`;
              }),
            )
            .join(",")}}`,
      );
      return `${keyword}${space}${specifiers}${from ?? "from "}"./${sharedFile}"`;
    },
  );
  return { text: linked, needs };
}

/** The JavaScript and map of a write:false build with one output file, its inputs and the names its entry exports. */
function outputOf(result) {
  const js = result.outputFiles.find((file) => file.path.endsWith(".js"));
  const map = result.outputFiles.find((file) => file.path.endsWith(".js.map"));
  const inputs = new Set(
    Object.keys(Object.values(result.metafile.outputs).find((output) => output.entryPoint !== undefined)?.inputs ?? {})
      .filter((input) => input !== "<stdin>")
      .map((input) => resolve(input)),
  );
  const exports = new Set(Object.values(result.metafile.outputs).find((output) => output.entryPoint !== undefined)?.exports ?? []);
  return { js, map, inputs, exports };
}

/**
 * Bundles one package's public subpath exports into its dist/js/ (emptied first).
 *
 * A package with one public entry and nothing built apart is that one module. Otherwise the
 * package's code is one shared module: `internal.js` where the package exports `./internal`, else
 * `chunk-<hash>.js`. It holds every entry but {@link SEPARATE}'s and exports each one's names (and,
 * under `<name>$<hash>`, what the separate modules import of it); the other entries are one line
 * each re-exporting their names from it. The {@link SEPARATE} entries and each dynamically imported
 * file are modules of their own that import the shared code from it, so a class or sentinel stays
 * one object, and a cold start loads one or two modules of the package instead of an entry and the
 * chunks a code-splitting bundler cuts from what its entries share.
 */
export async function bundlePackage(packageDir, layout = workspaceLayout()) {
  const entries = entriesOf(packageDir);
  const outdir = join(packageDir, "dist", "js");
  rmSync(outdir, { recursive: true, force: true });
  if (entries.length === 0) return;
  const label = readManifest(packageDir).name;
  const merged = entries.filter((entry) => !SEPARATE.has(entry.subpath));
  const separate = entries.filter((entry) => SEPARATE.has(entry.subpath));
  const internal = merged.find((entry) => entry.subpath === "./internal");
  let alone = internal === undefined && merged.length === 1 && separate.length === 0;
  const needs = new Map();
  for (let round = 1; ; round++) {
    if (round > 8) throw new Error(`${label}: the shared module's exports did not settle`);
    const sharedFile = `${internal?.out ?? (alone ? merged[0].out : chunkName(packageDir, packageDir))}.js`;
    const lazy = new Set();
    const lines = merged.map((entry) => `export * from ${JSON.stringify(entry.file)};`);
    for (const [file, names] of needs) {
      lines.push(
        `export { ${[...names].map((name) => `${name} as ${sharedName(packageDir, file, name)}`).join(", ")} } from ${JSON.stringify(file)};`,
      );
    }
    const shared = outputOf(
      await build({
        ...COMMON,
        ...MINIFY,
        stdin: { contents: lines.join("\n"), resolveDir: packageDir, sourcefile: "shared.js", loader: "js" },
        outfile: join(outdir, sharedFile),
        plugins: [externals(layout), lazyModules(packageDir, lazy)],
      }),
    );
    if (alone && lazy.size > 0) {
      alone = false;
      continue;
    }
    // The separate modules, and the files any module here imports dynamically, each built apart.
    const apart = [
      ...separate.map((entry) => ({ file: entry.file, out: entry.out })),
      ...[...lazy].map((file) => ({ file, out: chunkName(packageDir, file) })),
    ];
    const built = [];
    let settled = true;
    for (let i = 0; i < apart.length; i++) {
      const { file, out } = apart[i];
      if (shared.inputs.has(file)) throw new Error(`${label}: ${relative(packageDir, file)} is imported both statically and dynamically`);
      const found = new Set();
      const output = outputOf(
        await build({
          ...COMMON,
          entryPoints: [file],
          outfile: join(outdir, `${out}.js`),
          plugins: [externals(layout), lazyModules(packageDir, found), fromShared(shared.inputs)],
        }),
      );
      for (const next of found) if (!apart.some((item) => item.file === next)) apart.push({ file: next, out: chunkName(packageDir, next) });
      const linked = linkToShared(output.js.text, packageDir, sharedFile, `${label} ${relative(packageDir, file)}`);
      for (const [needed, names] of linked.needs) {
        const known = needs.get(needed) ?? new Set();
        for (const name of names) {
          if (known.has(name)) continue;
          settled = false;
          known.add(name);
        }
        needs.set(needed, known);
      }
      built.push({ ...output, text: linked.text });
    }
    if (!settled) continue;
    // A file two separate modules both bundle would be two copies, two objects.
    for (let a = 0; a < built.length; a++) {
      for (let b = a + 1; b < built.length; b++) {
        const twice = [...built[a].inputs].filter((input) => built[b].inputs.has(input));
        if (twice.length > 0) throw new Error(`${label}: ${relative(packageDir, twice[0])} would be bundled into two modules`);
      }
    }
    // Every entry's names, as the entry alone exports them, must be the shared module's, and so must
    // what the separate modules import (an export * that two entries both fill differently is dropped).
    const exported = shared.exports;
    const stubs = [];
    for (const entry of merged) {
      const probe = await build({
        ...COMMON,
        entryPoints: [entry.file],
        outfile: join(outdir, "probe.js"),
        plugins: [externals(layout), lazyModules(packageDir, new Set())],
      });
      const names = Object.values(probe.metafile.outputs).find((output) => output.entryPoint !== undefined).exports;
      const missing = names.filter((name) => !exported.has(name));
      if (missing.length > 0) throw new Error(`${label}: the shared module does not export ${entry.subpath}'s ${missing.join(", ")}`);
      if (`${entry.out}.js` !== sharedFile) stubs.push({ out: entry.out, names });
    }
    for (const [file, names] of needs) {
      for (const name of names) {
        if (!exported.has(sharedName(packageDir, file, name)))
          throw new Error(`${label}: the shared module does not export ${name} of ${relative(packageDir, file)}`);
      }
    }
    mkdirSync(outdir, { recursive: true });
    writeFileSync(shared.js.path, shared.js.text);
    writeFileSync(shared.map.path, shared.map.text);
    for (const { js, map, text } of built) {
      writeFileSync(js.path, text);
      writeFileSync(map.path, map.text);
    }
    for (const { out, names } of stubs) {
      writeFileSync(
        join(outdir, `${out}.js`),
        `export { ${names.join(", ")} } from "./${sharedFile}";\n//# sourceMappingURL=${out}.js.map\n`,
      );
      writeFileSync(join(outdir, `${out}.js.map`), `${JSON.stringify({ version: 3, sources: [], names: [], mappings: "" })}\n`);
    }
    return;
  }
}

/** tsc -b, then every package's bundles. */
export async function buildAll() {
  const removed = pruneStaleBuildOutput();
  if (removed.length > 0) console.error(`removed ${removed.length} stale build file(s), e.g. ${removed[0]}`);
  execFileSync(process.execPath, [join(root, "node_modules", "typescript", "bin", "tsc"), "-b"], { cwd: root, stdio: "inherit" });
  const layout = workspaceLayout();
  await Promise.all(packageDirs().map((dir) => bundlePackage(dir, layout)));
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await buildAll();
