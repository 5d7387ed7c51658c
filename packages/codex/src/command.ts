import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { installedPackageVersion, type CliPackageBinary, type VersionFloor } from "@adaptor/driver/kit";

/** The `@openai/codex` version this package pins and is tested against. */
export const PINNED_CODEX_VERSION = "0.171.0";

/**
 * The oldest `@openai/codex` version this package's promises were shown on (both transports): a
 * run on an older codex is refused before its thread starts, with a FeatureUnsupportedError
 * (feature `"cliVersion"`). Older versions broke them: 0.166.0 rejects an MCP tool call under
 * permission `ask` without asking the host; 0.147.0 cannot resume a thread; 0.124.0 marks the
 * workspace trusted in the user's `config.toml`.
 */
export const MIN_CODEX_VERSION = "0.169.1";

/** The versions of codex this driver declares: refused below `minimum`. */
export const CODEX_VERSION_FLOOR: VersionFloor = Object.freeze({
  driver: "codex",
  cli: "codex",
  minimum: MIN_CODEX_VERSION,
  pinned: PINNED_CODEX_VERSION,
});

const TARGETS: Readonly<Record<string, { pkg: string; triple: string }>> = {
  "linux-x64": { pkg: "@openai/codex-linux-x64", triple: "x86_64-unknown-linux-musl" },
  "linux-arm64": { pkg: "@openai/codex-linux-arm64", triple: "aarch64-unknown-linux-musl" },
  "darwin-x64": { pkg: "@openai/codex-darwin-x64", triple: "x86_64-apple-darwin" },
  "darwin-arm64": { pkg: "@openai/codex-darwin-arm64", triple: "aarch64-apple-darwin" },
};

/**
 * Where codex's npm packages hold this platform's native binary (the platform package is published
 * as `@openai/codex` with the platform after its version, `0.171.0-linux-x64`): a `command` that is
 * that file (through links too) has its package's version, read without starting it.
 */
export const CODEX_PACKAGE_BINARIES: readonly CliPackageBinary[] = Object.freeze(
  TARGETS[`${process.platform}-${process.arch}`] === undefined
    ? []
    : [
        {
          name: "@openai/codex",
          binary: `vendor/${TARGETS[`${process.platform}-${process.arch}`]!.triple}/bin/codex`,
          versionSuffix: `-${process.platform}-${process.arch}`,
        },
      ],
);

/**
 * The default executable: the pinned native binary installed with this package
 * (`@openai/codex`'s platform package, `vendor/<triple>/bin/codex`), else `"codex"` on PATH.
 * The native binary is used rather than the npm launcher `bin/codex.js` because on Node 20 the
 * launcher stays alive as a second process between us and codex (it only `execve`s on Node ≥ 22.15).
 */
/**
 * The version of the `@openai/codex` package {@link defaultCodexCommand} takes its binary from (its
 * `package.json`; the platform package's own version carries a platform suffix), or undefined when
 * that is `"codex"` on PATH or unreadable.
 */
export function defaultCodexVersion(): string | undefined {
  if (defaultCodexCommand() === "codex") return undefined;
  return installedPackageVersion("@openai/codex", createRequire(import.meta.url).resolve);
}

export function defaultCodexCommand(): string {
  const target = TARGETS[`${process.platform}-${process.arch}`];
  if (!target) return "codex";
  try {
    const require = createRequire(import.meta.url);
    const launcher = require.resolve("@openai/codex/package.json");
    const platform = createRequire(launcher).resolve(`${target.pkg}/package.json`);
    const native = join(dirname(platform), "vendor", target.triple, "bin", "codex");
    if (existsSync(native)) return native;
  } catch {
    // fall through to PATH
  }
  return "codex";
}
