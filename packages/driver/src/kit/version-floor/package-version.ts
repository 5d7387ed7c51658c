import { readFileSync } from "node:fs";

/**
 * The `version` of the npm package whose `package.json` `resolve` finds (e.g.
 * `createRequire(import.meta.url).resolve`, so the package is looked up from the caller's own
 * package), read anew each call (not through `require`'s cache: a package updated under a running
 * host counts); undefined when it cannot be found or read.
 */
export function installedPackageVersion(name: string, resolve: (specifier: string) => string): string | undefined {
  try {
    const manifest = JSON.parse(readFileSync(resolve(`${name}/package.json`), "utf8")) as { version?: unknown };
    return typeof manifest.version === "string" ? manifest.version : undefined;
  } catch {
    return undefined;
  }
}
