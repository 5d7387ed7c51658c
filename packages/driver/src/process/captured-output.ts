import type { RawStreams } from "../spi/response.js";

/**
 * The output a CLI process wrote during one window (from spawn, or from the previous
 * `CliProcess.takeOutput()`, to this one): the last bytes of each stream, decoded as UTF-8, and the
 * number of bytes each stream really carried. A stream longer than the bound (`maxRawBytes`,
 * default 1 MiB) keeps only its tail and says so with `...Truncated: true`.
 *
 * `stdout` and `stderr` may be getters that decode the kept bytes when first read (a
 * `CliProcess.takeOutput()` result's are): spreading the object reads them. Use
 * {@link rawStreams} to pass it on as a run's `raw` without reading them.
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

/**
 * `output` as a run's {@link RawStreams} (plus `terminal`, the official terminal line, when given)
 * without reading its text: its `stdout` and `stderr` getters are carried over as they are, so the
 * text is decoded only if someone reads it (`result.raw()`).
 */
export function rawStreams(output: CapturedOutput, terminal?: { readonly event: string; readonly json: string }): RawStreams {
  const raw = Object.defineProperties({}, Object.getOwnPropertyDescriptors(output)) as RawStreams;
  return terminal ? Object.defineProperty(raw, "terminal", { value: terminal, enumerable: true }) : raw;
}
