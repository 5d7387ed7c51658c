/**
 * How a CLI process ended, as reported once it exited and its stdio closed.
 * `code` is the exit code (null when killed by a signal), `signal` the terminating signal (null on a
 * normal exit), `forceKilled` true when a SIGTERM had to be escalated to SIGKILL.
 */
export interface ExitInfo {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly forceKilled: boolean;
}
