import { constants, existsSync } from "node:fs";
import { open, type FileHandle } from "node:fs/promises";
import { relative, sep } from "node:path";
import { openRegularFile } from "./host-files.js";

let procFd: boolean | undefined;

/**
 * Whether files can be opened relative to an open directory: on Linux with `/proc` mounted, a
 * path `/proc/self/fd/<dirfd>/<name>` makes the kernel look `name` up inside the directory that
 * `dirfd` holds open (the semantics of `openat`), whatever has been renamed since it was opened.
 */
export function canOpenBeneath(): boolean {
  procFd ??= process.platform === "linux" && existsSync("/proc/self/fd");
  return procFd;
}

/** A directory on the way to the file was replaced while it was opened (by a symlink, a file or nothing). */
export class PathChangedError extends Error {
  override readonly name = "PathChangedError";
}

/**
 * Opens `target`, a real path inside `root` (no `..`, no symlink in it when it was checked), as a
 * regular file ({@link openRegularFile}) without following any symlink below `root`: `root` is
 * opened as a directory, then each directory of `target` below it is opened inside the previous one
 * with `O_DIRECTORY | O_NOFOLLOW`, and the file itself inside the last one with `O_NOFOLLOW`. A
 * directory swapped for a symlink (or anything else) after the check makes the open fail
 * ({@link PathChangedError}) instead of reaching outside `root`, and a file `flags` create
 * (`O_CREAT`) is created only in a directory so opened. Needs {@link canOpenBeneath}.
 * @throws PathChangedError a directory below `root` is a symlink, not a directory, or gone, or
 *   the file is a symlink; otherwise what {@link openRegularFile} throws.
 */
export async function openBeneath(
  method: string,
  path: string,
  root: string,
  target: string,
  flags: number,
): Promise<Awaited<ReturnType<typeof openRegularFile>>> {
  const below = relative(root, target);
  // The working directory itself: refused by openRegularFile as a directory.
  if (below === "") return openRegularFile(method, path, root, flags);
  const names = below.split(sep);
  const name = names.pop();
  if (name === undefined || name === "" || name === ".." || names.includes(".."))
    throw new PathChangedError(`${target} is not a file below ${root}`);
  let dir = await open(root, constants.O_RDONLY | constants.O_DIRECTORY);
  try {
    for (const part of names) {
      let next: FileHandle;
      try {
        next = await open(`/proc/self/fd/${dir.fd}/${part}`, constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW);
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        if (code === "ELOOP" || code === "ENOTDIR" || code === "ENOENT")
          throw Object.assign(new PathChangedError(`${part} on the way to ${target} is no longer a directory (${code})`), {
            cause: error,
          });
        throw error;
      }
      const previous = dir;
      dir = next;
      await previous.close();
    }
    try {
      return await openRegularFile(method, path, `/proc/self/fd/${dir.fd}/${name}`, flags | constants.O_NOFOLLOW);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ELOOP")
        throw Object.assign(new PathChangedError(`${target} is a symlink now`), { cause: error });
      throw error;
    }
  } finally {
    await dir.close();
  }
}
