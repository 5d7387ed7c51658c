/** Safe folder names: no separators, no leading dot, at most 128 characters. */
const SAFE = /^[A-Za-z0-9_][A-Za-z0-9._-]{0,127}$/;

/** True when `name` can be a skill folder name on every platform. */
export function isSafeRuntimeName(name: string): boolean {
  return SAFE.test(name);
}

/** The default runtime name of a key: characters outside `[A-Za-z0-9._-]` become `-`; never empty. */
export function runtimeNameOf(key: string): string {
  const name = key
    .trim()
    .replace(/[^A-Za-z0-9._-]+/g, "-")
    .replace(/^[.-]+/, "")
    .slice(0, 128);
  return name === "" ? "skill" : name;
}
