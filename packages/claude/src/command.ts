import { existsSync, statSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { installedPackageVersion, type VersionFloor } from "@adaptor/driver/kit";

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
  const require = createRequire(import.meta.url);
  let root: string;
  try {
    root = dirname(require.resolve("@anthropic-ai/claude-code/package.json"));
  } catch {
    return "claude";
  }
  const linked = join(root, "bin", "claude.exe");
  if (existsSync(linked) && statSync(linked).size > MIN_NATIVE_BYTES) return linked;
  try {
    const platformPackage = `@anthropic-ai/claude-code-${process.platform}-${process.arch}/package.json`;
    const native = join(dirname(createRequire(join(root, "package.json")).resolve(platformPackage)), "claude");
    if (existsSync(native)) return native;
  } catch {
    // fall through to PATH
  }
  return "claude";
}
