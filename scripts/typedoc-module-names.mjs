// TypeDoc plugin: names each entry-point module after its import specifier (`@adaptor/driver/process`)
// instead of its path (`driver/src/process`), from the `exports` of the package that owns the file.
import { readFileSync, readdirSync } from "node:fs";
import { join, resolve } from "node:path";
import { Converter, ReflectionKind } from "typedoc";

/** Absolute source path → import specifier, for every `exports` entry with a `source` condition. */
function specifiers(root) {
  const map = new Map();
  for (const folder of readdirSync(join(root, "packages"))) {
    const dir = join(root, "packages", folder);
    const manifest = JSON.parse(readFileSync(join(dir, "package.json"), "utf8"));
    for (const [subpath, target] of Object.entries(manifest.exports ?? {})) {
      if (target.source) map.set(resolve(dir, target.source), manifest.name + subpath.slice(1));
    }
  }
  return map;
}

/** @param {import("typedoc").Application} app */
export function load(app) {
  app.converter.on(Converter.EVENT_RESOLVE_BEGIN, (context) => {
    const names = specifiers(process.cwd());
    for (const module of context.project.getReflectionsByKind(ReflectionKind.Module)) {
      const file = module.sources?.[0]?.fullFileName;
      const name = file === undefined ? undefined : names.get(resolve(file));
      if (name !== undefined) module.name = name;
    }
  });
}
