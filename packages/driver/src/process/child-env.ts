/**
 * Which host environment variables a child inherits: `true` every one of them, `false` none, or an
 * allowlist of names, where a name ending in `*` matches every variable with that prefix
 * (`"LC_*"`, `"ANTHROPIC_*"`). Names are matched case-sensitively.
 */
export type InheritEnv = boolean | readonly string[];

/**
 * The variables every CLI child inherits by default, and the base a stdio MCP server gets besides
 * its declared `env`: what a program needs to find binaries, its home, temp space, locale,
 * terminal, proxies and trusted certificates, and nothing that usually holds a secret. Drivers add
 * the prefixes of their own CLI (e.g. `ANTHROPIC_*`, `CLAUDE_*`).
 */
export const SAFE_ENV_BASE: readonly string[] = Object.freeze([
  "PATH",
  "HOME",
  "USER",
  "LOGNAME",
  "SHELL",
  "LANG",
  "LANGUAGE",
  "LC_*",
  "TZ",
  "TERM",
  "TMPDIR",
  "TMP",
  "TEMP",
  "XDG_CONFIG_HOME",
  "XDG_CACHE_HOME",
  "XDG_DATA_HOME",
  "XDG_STATE_HOME",
  "XDG_RUNTIME_DIR",
  "HTTP_PROXY",
  "HTTPS_PROXY",
  "NO_PROXY",
  "http_proxy",
  "https_proxy",
  "no_proxy",
  "NODE_EXTRA_CA_CERTS",
  "SSL_CERT_FILE",
  "SSL_CERT_DIR",
]);

const ENV_PATTERN = /^[A-Za-z_][A-Za-z0-9_]*\*?$|^\*$/;

/**
 * Why `value` is not a valid {@link InheritEnv}, or `undefined` when it is: a boolean, or an array
 * of variable names (letters, digits, `_`, not starting with a digit), each optionally ending in `*`.
 */
export function inheritEnvProblem(value: unknown): string | undefined {
  if (value === undefined || typeof value === "boolean") return undefined;
  if (!Array.isArray(value)) return `must be true, false or an array of variable names, got ${typeof value}`;
  for (const entry of value as unknown[]) {
    if (typeof entry !== "string") return `entries must be strings, got ${typeof entry}`;
    if (!ENV_PATTERN.test(entry))
      return `entry ${JSON.stringify(entry)} is not a variable name (letters, digits, _; an optional trailing *)`;
  }
  return undefined;
}

/** True when `name` matches one of `patterns` (exact, or a prefix pattern ending in `*`). */
export function envNameMatches(name: string, patterns: readonly string[]): boolean {
  return nameMatcher(patterns).matches(name);
}

/** An allowlist taken apart once: its exact names and its prefixes (a pattern's text before `*`). */
class NameMatcher {
  /** The entries it was made from, copied: an allowlist changed in place is taken apart again. */
  readonly source: readonly string[];
  readonly #exact = new Set<string>();
  readonly #prefixes: string[] = [];

  constructor(patterns: readonly string[]) {
    this.source = [...patterns];
    for (const pattern of patterns) {
      if (pattern.endsWith("*")) this.#prefixes.push(pattern.slice(0, -1));
      else this.#exact.add(pattern);
    }
  }

  matches(name: string): boolean {
    if (this.#exact.has(name)) return true;
    for (const prefix of this.#prefixes) if (name.startsWith(prefix)) return true;
    return false;
  }
}

/** Matchers of the allowlists seen, by array: every launch matches each host variable against one. */
const matchers = new WeakMap<readonly string[], NameMatcher>();

/** The matcher of `patterns`, made again when the array's entries changed since it was made. */
function nameMatcher(patterns: readonly string[]): NameMatcher {
  const known = matchers.get(patterns);
  if (known && known.source.length === patterns.length && known.source.every((entry, i) => entry === patterns[i])) return known;
  const made = new NameMatcher(patterns);
  matchers.set(patterns, made);
  return made;
}

/** Options of {@link mergeChildEnv}. */
export interface MergeChildEnvOptions {
  /** The host's choice; `undefined` means `defaultInherit`. */
  readonly inheritEnv?: InheritEnv | undefined;
  /** The allowlist used when `inheritEnv` is unset, e.g. `[...SAFE_ENV_BASE, "ANTHROPIC_*"]`. */
  readonly defaultInherit: readonly string[];
  /**
   * Entries merged over the inherited ones, in order (later wins); an entry whose value is
   * `undefined` removes the variable. `undefined` layers are skipped.
   */
  readonly layers?: readonly (Readonly<Record<string, string | undefined>> | undefined)[];
  /** The environment inherited from. Default `process.env`. */
  readonly hostEnv?: Readonly<Record<string, string | undefined>>;
}

/**
 * The environment of a CLI child: the inherited part of the host environment (all of it for
 * `inheritEnv: true`, none for `false`, the matching names for an allowlist, `defaultInherit` when
 * unset), then each layer over it. The one merge every driver uses, so the launch and the launch
 * signature of a process always agree.
 *
 * @returns a fresh object; keys whose value is `undefined` are removed variables (`spawnCli` omits them).
 */
export function mergeChildEnv(options: MergeChildEnvOptions): Record<string, string | undefined> {
  const host = options.hostEnv ?? process.env;
  const inherit = options.inheritEnv ?? options.defaultInherit;
  const env: Record<string, string | undefined> = {};
  if (inherit !== false) {
    // Only the values of the names inherited are read: each read of `process.env` asks the C
    // library, and an allowlist inherits a few of the host's variables (this runs for every launch).
    const matcher = inherit === true ? undefined : nameMatcher(inherit);
    for (const name of Object.keys(host)) {
      if (matcher && !matcher.matches(name)) continue;
      const value = host[name];
      if (value !== undefined) env[name] = value;
    }
  }
  for (const layer of options.layers ?? []) if (layer) Object.assign(env, layer);
  return env;
}
