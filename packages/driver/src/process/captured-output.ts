/**
 * The output a CLI process wrote during one window (from spawn, or from the previous
 * `CliProcess.takeOutput()`, to this one): the last bytes of each stream, decoded as UTF-8, and the
 * number of bytes each stream really carried. A stream longer than the bound (`maxRawBytes`,
 * default 1 MiB) keeps only its tail and says so with `...Truncated: true`.
 */
export interface CapturedOutput {
  /** The last `maxRawBytes` bytes of stdout in the window (a character cut by the bound is dropped). */
  readonly stdout: string;
  /** The last `maxRawBytes` bytes of stderr in the window. */
  readonly stderr: string;
  /** Bytes written to stdout in the window, kept or not. */
  readonly stdoutBytes: number;
  /** Bytes written to stderr in the window, kept or not. */
  readonly stderrBytes: number;
  /** True when `stdout` is only the tail: `stdoutBytes` exceeded the bound. */
  readonly stdoutTruncated: boolean;
  /** True when `stderr` is only the tail: `stderrBytes` exceeded the bound. */
  readonly stderrTruncated: boolean;
}
