import { accessSync, constants, statSync } from "node:fs";
import { basename, delimiter, resolve } from "node:path";
import { DriverError, ErrCode } from "@adaptor/errors";
import { osError } from "./os-error.js";

/** Options of {@link resolveExecutable}. */
export interface ResolveExecutableOptions {
  /** Directory that relative paths and relative `PATH` entries resolve against. Default `process.cwd()`. */
  cwd?: string;
  /** The `PATH` to search for a bare name (entries split on `path.delimiter`; empty entries skipped). */
  path?: string;
  /** Name used in errors. Default: the basename of the command. */
  device?: string;
}

type Probe = { kind: "ok" } | { kind: "missing"; cause: unknown } | { kind: "directory" } | { kind: "denied"; cause: Error };

/**
 * Resolves `command` to the absolute path of an existing, executable regular file, the way `execvp`
 * would, without starting anything. A command containing a path separator is a path (resolved
 * against `cwd`); a bare name is searched for on `path`, first match wins.
 *
 * @returns the absolute path.
 * @throws DriverError (op `"spawn"`): `NOT_FOUND` when nothing matches (for a bare name the cause
 * reads `executable not found on PATH`, or `executable "<command>" not found on PATH` when the device
 * name differs from the command; for a path `executable not found at <path>`); `PERMISSION`
 * when a match exists but is not executable or cannot be inspected; `IS_DIRECTORY` when a path names
 * a directory; `INVALID` when `command` is empty. Except for `INVALID`, the cause is an `Error` with
 * the errno `code` execvp would give (`ENOENT`, `EACCES`, `EISDIR`), `syscall` `"spawn <command>"`
 * and `path`, whose own cause is the operating system's error when `stat` or `access` reported one.
 */
export async function resolveExecutable(command: string, options: ResolveExecutableOptions = {}): Promise<string> {
  const device = options.device ?? (basename(command) || command);
  const cwd = options.cwd ?? process.cwd();
  const fail = (code: ErrCode, cause: unknown): DriverError => new DriverError({ op: "spawn", device, code, cause });
  if (command === "") throw fail(ErrCode.Invalid, "empty command");
  const syscall = `spawn ${command}`;

  if (isPath(command)) {
    const full = resolve(cwd, command);
    const probe = probeExecutable(full);
    if (probe.kind === "ok") return full;
    if (probe.kind === "missing")
      throw fail(ErrCode.NotFound, osError(`executable not found at ${full}`, "ENOENT", { syscall, path: full, cause: probe.cause }));
    if (probe.kind === "directory") throw fail(ErrCode.IsDirectory, osError(`${full} is a directory`, "EISDIR", { syscall, path: full }));
    throw fail(ErrCode.Permission, probe.cause);
  }

  let denied: Error | undefined;
  for (const dir of (options.path ?? "").split(delimiter)) {
    if (dir === "") continue;
    const candidate = resolve(cwd, dir, command);
    const probe = probeExecutable(candidate);
    if (probe.kind === "ok") return candidate;
    if (probe.kind === "denied") denied ??= probe.cause;
  }
  if (denied !== undefined) throw fail(ErrCode.Permission, denied);
  // Name the command the caller gave when the device name alone would not show it (a typo).
  const message = device === command ? "executable not found on PATH" : `executable ${JSON.stringify(command)} not found on PATH`;
  throw fail(ErrCode.NotFound, osError(message, "ENOENT", { syscall, path: command }));
}

function isPath(command: string): boolean {
  return command.includes("/") || (process.platform === "win32" && command.includes("\\"));
}

/**
 * What `execve` would find at `file`. Synchronous: spawn() itself blocks on the child's exec of the
 * same file, so these calls add no new wait, and they save two round trips through the thread pool
 * (each a wake-up of a pool thread and of the event loop, waiting for a CPU on a busy host) before
 * every spawn.
 */
function probeExecutable(file: string): Probe {
  try {
    const info = statSync(file);
    if (info.isDirectory()) return { kind: "directory" };
    // execve answers EACCES for anything but a regular file
    if (!info.isFile())
      return { kind: "denied", cause: osError(`${file} is not a regular file`, "EACCES", { syscall: "spawn", path: file }) };
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === "EACCES" || code === "EPERM") return { kind: "denied", cause: err as Error };
    return { kind: "missing", cause: err }; // ENOENT, ENOTDIR, ELOOP, ENAMETOOLONG
  }
  try {
    accessSync(file, constants.X_OK);
    return { kind: "ok" };
  } catch (err) {
    return { kind: "denied", cause: osError(`${file} is not executable`, "EACCES", { syscall: "spawn", path: file, cause: err }) };
  }
}
