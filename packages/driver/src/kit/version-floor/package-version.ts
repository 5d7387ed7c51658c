import { readFileSync, realpathSync, statSync } from "node:fs";
import { join, sep } from "node:path";

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

/** An npm package one of whose files is a CLI's executable (see {@link packageBinaryVersion}). */
export interface CliPackageBinary {
  /** The package's `name` as its `package.json` gives it, e.g. `"@anthropic-ai/claude-code"`. */
  readonly name: string;
  /** The executable's path inside the package folder, `/`-separated, e.g. `"bin/claude.exe"`. */
  readonly binary: string;
  /**
   * Smallest size of the file, in bytes, for it to be the package's binary (a placeholder the
   * package's install step replaces is smaller). Default: any size.
   */
  readonly minBytes?: number;
  /**
   * What the package's version carries after the CLI's own, removed (a platform package's
   * `"-linux-x64"`: `0.171.0-linux-x64` is codex 0.171.0, not a prerelease of it). Default: nothing.
   */
  readonly versionSuffix?: string;
}

/**
 * The `version` in the `package.json` of the npm package whose binary `executable` is, read anew
 * each call: when the executable's real path (symbolic links resolved, as a package manager's
 * `.bin` link or a global install's link on `PATH`) is the `binary` of one of `packages`, in a
 * folder whose `package.json` names that package. Undefined otherwise (another file, a version
 * manager's shim, a manifest that cannot be read): the caller asks the CLI.
 */
export function packageBinaryVersion(executable: string, packages: readonly CliPackageBinary[]): string | undefined {
  let real: string;
  try {
    real = realpathSync(executable);
  } catch {
    return undefined;
  }
  for (const pkg of packages) {
    const inside = pkg.binary.split("/").join(sep);
    if (!real.endsWith(sep + inside)) continue;
    const root = real.slice(0, real.length - inside.length - 1);
    try {
      const manifest = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { name?: unknown; version?: unknown };
      if (manifest.name !== pkg.name || typeof manifest.version !== "string") continue;
      if (pkg.minBytes !== undefined && statSync(real).size < pkg.minBytes) continue;
      const suffix = pkg.versionSuffix;
      return suffix !== undefined && manifest.version.endsWith(suffix) ? manifest.version.slice(0, -suffix.length) : manifest.version;
    } catch {
      continue;
    }
  }
  return undefined;
}
