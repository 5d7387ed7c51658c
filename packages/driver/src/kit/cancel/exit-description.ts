/** How a CLI process ended, as {@link describeExit} words it. */
export interface ExitCause {
  /** Exit code, or null when a signal ended the process. */
  readonly exitCode: number | null;
  /** The signal that ended the process, or null. */
  readonly exitSignal: string | null;
  /**
   * The SDK sent the signal (`ExitInfo.terminated`): the CLI's stdout had ended, or its work was
   * done, and it did not exit within the kill grace.
   */
  readonly endedBySdk?: boolean;
}

/**
 * The words a failure message uses for how a CLI ended without its turn's terminal line:
 * `code 3`; `ended by the SDK with SIGTERM: its stdout had ended and it did not exit within the
 * kill grace` (`with exit code 143` for a CLI that handles the SIGTERM); or, for a signal the SDK
 * did not send (the OOM killer, an operator), `killed by SIGKILL, a signal the SDK did not send`.
 */
export function describeExit(end: ExitCause): string {
  if (end.endedBySdk) {
    const how = end.exitSignal ? end.exitSignal : `exit code ${String(end.exitCode)}`;
    return `ended by the SDK with ${how}: its stdout had ended and it did not exit within the kill grace`;
  }
  return end.exitSignal ? `killed by ${end.exitSignal}, a signal the SDK did not send` : `code ${String(end.exitCode)}`;
}
