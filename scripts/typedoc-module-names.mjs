// TypeDoc plugin: names each entry-point module after its import specifier (`@adaptor/driver/process`)
// instead of its path (`driver/src/process`), from the `exports` of the package that owns the file.
// Source links are off (see typedoc.config.mjs), so a module is recognised by the name TypeDoc
// derives from its entry file: the path below packages/ without `.ts` and a trailing `/index`.
import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { Converter, ReflectionKind } from "typedoc";

/** Module name TypeDoc derives (`adaptor/src`) → import specifier, for every `exports` entry with a `source` condition. */
function specifiers(root) {
  const map = new Map();
  for (const folder of readdirSync(join(root, "packages"))) {
    const dir = join(root, "packages", folder);
    const manifest = JSON.parse(readFileSync(join(dir, "package.json"), "utf8"));
    for (const [subpath, target] of Object.entries(manifest.exports ?? {})) {
      if (!target.source) continue;
      const derived = join(folder, target.source)
        .replace(/\.ts$/, "")
        .replace(/\/index$/, "");
      map.set(derived, manifest.name + subpath.slice(1));
    }
  }
  return map;
}

/** @param {import("typedoc").Application} app */
export function load(app) {
  app.converter.on(Converter.EVENT_RESOLVE_BEGIN, (context) => {
    const names = specifiers(process.cwd());
    for (const module of context.project.getReflectionsByKind(ReflectionKind.Module)) {
      const name = names.get(module.name);
      if (name !== undefined) module.name = name;
    }
  });
}
