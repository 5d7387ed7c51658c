import { lstatSync, readlinkSync, realpathSync } from "node:fs";
import { basename, dirname, resolve, sep } from "node:path";

/** How many links {@link realDirectory} follows by hand before it stops (the kernel's own limit). */
const MAX_LINK_HOPS = 40;

/**
 * `path` (absolute, or resolved against the process's working directory) with every symbolic link
 * resolved, read synchronously (a run's few paths, before launch or at an approval): its real path,
 * or for a path that does not exist (yet), the real path of its nearest existing ancestor followed
 * by the rest of it. A link whose target does not exist yet is followed to where a write through it
 * would land, as the kernel would (at most 40 links).
 */
export function realDirectory(path: string): string {
  return followLinks(resolve(path), 0);
}

function followLinks(normalized: string, hops: number): string {
  try {
    return realpathSync.native(normalized);
  } catch {
    const target = linkTarget(normalized);
    if (target !== undefined && hops < MAX_LINK_HOPS) return followLinks(resolve(dirname(normalized), target), hops + 1);
    const parent = dirname(normalized);
    return parent === normalized ? normalized : resolve(followLinks(parent, hops), basename(normalized));
  }
}

/** The target `path` names when it is a symbolic link, else undefined. */
function linkTarget(path: string): string | undefined {
  try {
    return lstatSync(path).isSymbolicLink() ? readlinkSync(path) : undefined;
  } catch {
    return undefined;
  }
}

/** True when `directory` is `inner` or one of its ancestors (both resolved, absolute). */
export function containsPath(directory: string, inner: string): boolean {
  return inner === directory || inner.startsWith(directory.endsWith(sep) ? directory : directory + sep);
}
