// Builds every package under packages/ and packs it into an installable tarball:
// `node scripts/pack.mjs [destination]` (default `.packs/`), also `pnpm pack:all`.
// Steps: `scripts/build.mjs` (declarations from `tsc -b`, the JavaScript bundled per public subpath
// export, stale build output removed, so a tarball never ships a module that no longer exists),
// then `pnpm pack` per package, which rewrites `workspace:*` and `catalog:` versions into plain
// ones. Prints the tarball paths, one per line, last.
import { execFileSync } from "node:child_process";
import { mkdirSync, readdirSync, rmSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { buildAll } from "./build.mjs";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const destination = resolve(process.argv[2] ?? join(root, ".packs"));
const PNPM = ["-y", "pnpm@12.21.0"];

await buildAll();
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
