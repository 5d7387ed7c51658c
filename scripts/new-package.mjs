// One-off scaffolder kept for later issues: `node scripts/new-package.mjs <folder> <npm-name> [dep...]`.
import { mkdirSync, writeFileSync, existsSync } from "node:fs";
import { join } from "node:path";

const [folder, name, ...deps] = process.argv.slice(2);
if (!folder || !name) throw new Error("usage: new-package.mjs <folder> <npm-name> [dep...]");
const dir = join(process.cwd(), folder);
mkdirSync(join(dir, "src"), { recursive: true });
const pkg = {
  name,
  version: "0.1.0",
  type: "module",
  sideEffects: false,
  license: "Apache-2.0",
  exports: {
    ".": { types: "./dist/index.d.ts", source: "./src/index.ts", import: "./dist/js/index.js" },
  },
  files: ["dist", "src"],
  scripts: {},
  dependencies: Object.fromEntries(deps.map((d) => [d, "workspace:*"])),
};
if (!existsSync(join(dir, "package.json"))) writeFileSync(join(dir, "package.json"), JSON.stringify(pkg, null, 2) + "\n");
const rel = folder
  .split("/")
  .map(() => "..")
  .join("/");
const tsconfig = {
  extends: `${rel}/tsconfig.base.json`,
  compilerOptions: { rootDir: "src", outDir: "dist", emitDeclarationOnly: true },
  include: ["src"],
  exclude: ["src/**/*.test.ts", "src/**/*.test-d.ts"],
  references: deps.map((d) => ({ path: `${rel}/packages/${d.replace("@adaptor/", "")}` })),
};
writeFileSync(join(dir, "tsconfig.json"), JSON.stringify(tsconfig, null, 2) + "\n");
