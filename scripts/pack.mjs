// Builds every package under packages/ and packs it into an installable tarball:
// `node scripts/pack.mjs [destination]` (default `.packs/`), also `pnpm pack:all`.
// Steps: remove build output whose source file is gone (so a tarball never ships a module that no
// longer exists), `tsc -b` (ESM + .d.ts into each package's dist/), then `pnpm pack` per package,
// which rewrites `workspace:*` and `catalog:` versions into plain ones. Prints the tarball paths,
// one per line, last.
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, rmSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const destination = resolve(process.argv[2] ?? join(root, ".packs"));
const PNPM = ["-y", "pnpm@12.21.0"];

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

/** The source file a dist file was built from (`dist/a/b.js` → `src/a/b.ts`). */
function sourceOf(packageDir, distFile) {
  const rel = relative(join(packageDir, "dist"), distFile).replace(/(\.d)?\.(js|ts)(\.map)?$/, "");
  return join(packageDir, "src", `${rel}.ts`);
}

function pruneStaleBuildOutput() {
  const removed = [];
  for (const name of readdirSync(join(root, "packages"))) {
    const packageDir = join(root, "packages", name);
    const dist = join(packageDir, "dist");
    if (!existsSync(dist) || !statSync(dist).isDirectory()) continue;
    for (const file of walk(dist)) {
      if (!/\.(js|d\.ts)(\.map)?$/.test(file)) continue;
      if (!existsSync(sourceOf(packageDir, file))) {
        rmSync(file);
        removed.push(relative(root, file));
      }
    }
  }
  return removed;
}

const removed = pruneStaleBuildOutput();
if (removed.length > 0) console.error(`removed ${removed.length} stale build file(s), e.g. ${removed[0]}`);
execFileSync(process.execPath, [join(root, "node_modules", "typescript", "bin", "tsc"), "-b"], { cwd: root, stdio: "inherit" });
mkdirSync(destination, { recursive: true });
for (const old of readdirSync(destination)) if (old.endsWith(".tgz")) rmSync(join(destination, old));
execFileSync("npx", [...PNPM, "--recursive", "--filter", "./packages/*", "pack", "--pack-destination", destination], {
  cwd: root,
  stdio: ["ignore", "ignore", "inherit"],
});
const tarballs = readdirSync(destination)
  .filter((file) => file.endsWith(".tgz"))
  .sort();
for (const file of tarballs) console.log(join(destination, file));
