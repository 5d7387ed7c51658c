/** What {@link osError} records besides the message and the code. */
export interface OsErrorInit {
  /** The system call that failed or would fail (`"spawn claude"`, `"chdir"`), as Node's own errors name it. */
  readonly syscall: string;
  /** The file or directory concerned. */
  readonly path: string;
  /** The error the operating system reported, when there was one (a `stat` or `access` failure). */
  readonly cause?: unknown;
}

/**
 * An `Error` shaped like Node's own system errors (`code` such as `"ENOENT"`, `syscall`, `path`),
 * carrying `message` and, as its `cause`, the operating system's error when one was reported. A
 * check made before spawning (a missing executable, a bad working directory) fails with it, so the
 * `DriverError` keeps a real error, with the errno code a caller matches on, in its cause chain.
 */
export function osError(message: string, code: string, init: OsErrorInit): NodeJS.ErrnoException {
  const error: NodeJS.ErrnoException = new Error(message, init.cause === undefined ? undefined : { cause: init.cause });
  error.code = code;
  error.syscall = init.syscall;
  error.path = init.path;
  return error;
}
