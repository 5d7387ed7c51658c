import { existsSync, statSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { installedPackageVersion, type CliPackageBinary, type VersionFloor } from "@adaptor/driver/kit";

/** The `@anthropic-ai/claude-code` version this package pins and is tested against. */
export const PINNED_CLAUDE_VERSION = "2.1.332";

/**
 * The oldest `@anthropic-ai/claude-code` version this package's promises were shown on: a run on
 * an older claude is refused before it starts, with a FeatureUnsupportedError (feature
 * `"cliVersion"`). 2.1.212, for one, exits at once on a flag the driver passes
 * (`unknown option '--system-prompt-snapshot'`).
 */
export const MIN_CLAUDE_VERSION = "2.1.270";

/** The versions of claude this driver declares: refused below `minimum`. */
export const CLAUDE_VERSION_FLOOR: VersionFloor = Object.freeze({
  driver: "claude",
  cli: "claude",
  minimum: MIN_CLAUDE_VERSION,
  pinned: PINNED_CLAUDE_VERSION,
});

// The npm package's bin is a ~500-byte stub until its postinstall links the native binary over it.
const MIN_NATIVE_BYTES = 1024 * 1024;

/**
 * Where the claude npm packages hold the binary: a `command` that is one of these files (through
 * links too) has its package's version, read without starting it.
 */
export const CLAUDE_PACKAGE_BINARIES: readonly CliPackageBinary[] = Object.freeze([
  { name: "@anthropic-ai/claude-code", binary: "bin/claude.exe", minBytes: MIN_NATIVE_BYTES },
  { name: `@anthropic-ai/claude-code-${process.platform}-${process.arch}`, binary: "claude" },
]);

/**
 * The version of the `@anthropic-ai/claude-code` package {@link defaultClaudeCommand} takes its
 * binary from (its `package.json`), or undefined when that is `"claude"` on PATH or unreadable.
 */
export function defaultClaudeVersion(): string | undefined {
  if (defaultClaudeCommand() === "claude") return undefined;
  return installedPackageVersion("@anthropic-ai/claude-code", createRequire(import.meta.url).resolve);
}

/**
 * The default executable: the pinned binary installed with this package (its postinstall-linked
 * `bin/claude.exe`, else the platform package's native `claude`), else `"claude"` on PATH.
 */
export function defaultClaudeCommand(): string {
  if (packageRoot === undefined) packageRoot = resolvedDir(createRequire(import.meta.url), "@anthropic-ai/claude-code/package.json");
  const root = packageRoot;
  if (root === null) return "claude";
  const linked = join(root, "bin", "claude.exe");
  if (existsSync(linked) && statSync(linked).size > MIN_NATIVE_BYTES) return linked;
  const platformPackage = `@anthropic-ai/claude-code-${process.platform}-${process.arch}/package.json`;
  if (platformRoot === undefined) platformRoot = resolvedDir(createRequire(join(root, "package.json")), platformPackage);
  const nativeRoot = platformRoot;
  if (nativeRoot !== null && existsSync(join(nativeRoot, "claude"))) return join(nativeRoot, "claude");
  return "claude";
}

/**
 * The folders the claude package and its platform package resolve to (null: they do not), resolved
 * on the first call: every run asks {@link defaultClaudeCommand}, and a module resolution (a failed
 * one walks every `node_modules` folder up to the root) costs far more than the existence checks,
 * which are made at each call (a binary linked by a later postinstall is still seen). A package
 * installed after the first call is not looked for again, as a module the host imported is not.
 */
let packageRoot: string | null | undefined;
let platformRoot: string | null | undefined;

/** The folder `specifier` resolves to from `require`; null when it does not resolve. */
function resolvedDir(require: NodeJS.Require, specifier: string): string | null {
  try {
    return dirname(require.resolve(specifier));
  } catch {
    return null;
  }
}
