import { statSync } from "node:fs";
import { resolve } from "node:path";
import { DriverError, ErrCode } from "@adaptor/errors";
import { osError } from "./os-error.js";

/**
 * Checks that `cwd` names an existing directory before anything is spawned, so a bad working
 * directory is reported as itself and never as a missing executable.
 *
 * @param cwd - the directory (relative paths resolve against `process.cwd()`).
 * @param device - the CLI name, quoted in the cause.
 * @returns the absolute path of the directory.
 * @throws DriverError (op `"spawn"`, device = the absolute directory path): `NOT_FOUND` when
 * nothing exists there (`[NOT_FOUND] spawn: /abs/dir (working directory of claude does not exist)`)
 * or when it is not a directory (`... is not a directory`); `PERMISSION` when it cannot be inspected.
 * The cause is an `Error` with the errno `code` (`ENOENT`, `ENOTDIR`, `EACCES`), `syscall` `"chdir"`
 * and `path`, whose own cause is the operating system's error when `stat` reported one.
 */
export async function checkWorkingDirectory(cwd: string, device: string): Promise<string> {
  const dir = resolve(cwd);
  // The cause is an Error with the errno code (the operating system's own error as its cause, if any).
  const fail = (code: ErrCode, message: string, errno: string, cause?: unknown): DriverError =>
    new DriverError({ op: "spawn", device: dir, code, cause: osError(message, errno, { syscall: "chdir", path: dir, cause }) });
  let isDirectory: boolean;
  try {
    // Synchronous: spawn() itself blocks on the child's chdir and exec, so a stat of the same
    // directory adds no new wait, and saves a round trip through the thread pool (a wake-up of a
    // pool thread and of the event loop, each waiting for a CPU on a busy host) before every spawn.
    isDirectory = statSync(dir).isDirectory();
  } catch (err) {
    const errno = (err as NodeJS.ErrnoException).code;
    if (errno === "EACCES" || errno === "EPERM")
      throw fail(ErrCode.Permission, `working directory of ${device} cannot be inspected: ${errno}`, errno, err);
    if (errno === "ENOTDIR")
      throw fail(ErrCode.NotFound, `working directory of ${device} is not a directory (a parent is a file)`, errno, err);
    throw fail(ErrCode.NotFound, `working directory of ${device} does not exist`, errno ?? "ENOENT", err);
  }
  if (!isDirectory) throw fail(ErrCode.NotFound, `working directory of ${device} is not a directory`, "ENOTDIR");
  return dir;
}
