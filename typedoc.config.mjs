// The API reference: `pnpm docs` writes it to docs/api/ (not checked in; `pnpm test` builds it with
// warnings as errors). One module per public entry point, i.e. per `exports` subpath of each package
// under packages/ (internal subpaths excluded), named after its import specifier.
import { readFileSync, readdirSync } from "node:fs";
import { join, resolve } from "node:path";

const entryPoints = [];
// Imports between workspace packages resolve to source (not to the `types` in dist/), so a link
// from one package to another's symbol lands on the documented declaration.
const paths = {};
for (const folder of readdirSync("packages")) {
  const manifest = JSON.parse(readFileSync(join("packages", folder, "package.json"), "utf8"));
  for (const [subpath, target] of Object.entries(manifest.exports ?? {})) {
    if (!target.source) continue;
    paths[manifest.name + subpath.slice(1)] = [resolve("packages", folder, target.source)];
    if (!subpath.endsWith("/internal")) entryPoints.push(join("packages", folder, target.source));
  }
}

/** @type {Partial<import("typedoc").TypeDocOptions>} */
export default {
  name: "adaptor",
  entryPoints,
  entryPointStrategy: "resolve",
  tsconfig: "tsconfig.docs.json",
  compilerOptions: { paths },
  out: "docs/api",
  plugin: ["./scripts/typedoc-module-names.mjs"],
  readme: "none",
  excludePrivate: true,
  excludeInternal: true,
  treatWarningsAsErrors: true,
  sort: ["kind", "instance-first", "alphabetical-ignoring-documents"],
  validation: { notExported: true, invalidLink: true, rewrittenLink: true, notDocumented: false, unusedMergeModuleWith: true },
  projectDocuments: ["docs/*.md"],
  highlightLanguages: [
    "bash",
    "sh",
    "console",
    "css",
    "html",
    "javascript",
    "js",
    "json",
    "jsonc",
    "ts",
    "tsx",
    "typescript",
    "toml",
    "yaml",
  ],
  // No "defined in" source links: they need a hosted git remote, and a clone (CI's, a user's)
  // has none, which typedoc reports as a warning.
  disableSources: true,
};
