import { realpathSync } from "node:fs";
import { basename, dirname, resolve, sep } from "node:path";

/**
 * `path` (absolute) with every symbolic link resolved, read synchronously (a run's few directories,
 * before launch): its real path, or for a path that does not
 * exist (yet), the real path of its nearest existing ancestor followed by the rest of it.
 */
export function realDirectory(path: string): string {
  const normalized = resolve(path);
  try {
    return realpathSync.native(normalized);
  } catch {
    const parent = dirname(normalized);
    return parent === normalized ? normalized : resolve(realDirectory(parent), basename(normalized));
  }
}

/** True when `directory` is `inner` or one of its ancestors (both resolved, absolute). */
export function containsPath(directory: string, inner: string): boolean {
  return inner === directory || inner.startsWith(directory.endsWith(sep) ? directory : directory + sep);
}
