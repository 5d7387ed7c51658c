/**
 * How a CLI process ended, as reported once it exited and its stdio closed.
 * `code` is the exit code (null when killed by a signal), `signal` the terminating signal (null on a
 * normal exit), `forceKilled` true when a SIGTERM had to be escalated to SIGKILL.
 */
export interface ExitInfo {
  /** Exit code, or null when a signal ended the process. */
  readonly code: number | null;
  /** The signal that ended the process, or null. */
  readonly signal: NodeJS.Signals | null;
  /** True when SIGTERM was not enough and the process group got SIGKILL. */
  readonly forceKilled: boolean;
  /**
   * True when the SDK ended the process (`terminate()` sent SIGTERM, perhaps SIGKILL) before it
   * exited by itself: its `code` (143 for a CLI that handles SIGTERM) then says nothing about its turn.
   */
  readonly terminated?: boolean;
}
