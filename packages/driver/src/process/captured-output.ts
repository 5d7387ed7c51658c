import { redactWindowText } from "./redact-output.js";
import type { RawStreams } from "../spi/response.js";
import type { KeptOutput } from "./output-tail.js";

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

/**
 * The kept output behind each `stdout` / `stderr` getter a window hands out: the getter itself
 * travels with the streams ({@link rawStreams}, a Result's `raw()`), so the output is found from it.
 */
const keptBehind = new WeakMap<object, KeptOutput>();

/** One stream of a finished window, as `OutputTail.takeKept()` gives it. */
interface KeptStream {
  readonly output: KeptOutput;
  readonly bytes: number;
  readonly truncated: boolean;
}

/**
 * A window's output whose `stdout` and `stderr` getters decode the kept bytes when first read,
 * with each of `redact` replaced by `[redacted]` (see `redactWindowText`: also the end of one the
 * bound cut at the window's start). Only the redacted text is kept after that first read.
 */
export function keptOutput(stdout: KeptStream, stderr: KeptStream, redact: readonly string[] = []): CapturedOutput {
  if (redact.length > 0) {
    for (const stream of [stdout, stderr]) stream.output.transformText((text, cut) => redactWindowText(text, redact, cut));
  }
  const output: CapturedOutput = {
    get stdout() {
      return stdout.output.text;
    },
    get stderr() {
      return stderr.output.text;
    },
    stdoutBytes: stdout.bytes,
    stderrBytes: stderr.bytes,
    stdoutTruncated: stdout.truncated,
    stderrTruncated: stderr.truncated,
  };
  keptBehind.set(Object.getOwnPropertyDescriptor(output, "stdout")!.get!, stdout.output);
  keptBehind.set(Object.getOwnPropertyDescriptor(output, "stderr")!.get!, stderr.output);
  return output;
}

/** The kept outputs behind `raw`'s getters that still hold a spill file. */
function heldFiles(raw: object): KeptOutput[] {
  const held: KeptOutput[] = [];
  for (const key of ["stdout", "stderr"]) {
    const get = Object.getOwnPropertyDescriptor(raw, key)?.get;
    const kept = get === undefined ? undefined : keptBehind.get(get);
    if (kept?.holdsFile) held.push(kept);
  }
  return held;
}

/**
 * Whether the text of `raw`'s `stdout` or `stderr` still waits, undecoded, in a spill file: a
 * `CliProcess.takeOutput()` window (as is, through {@link rawStreams} or a Result's `raw()`) that
 * spilled and was not read yet. Such a stream holds one open file descriptor until it is read.
 */
export function rawHoldsFiles(raw: object): boolean {
  return heldFiles(raw).length > 0;
}

/**
 * Decodes now, into memory, the text of `raw`'s streams that waits in a spill file, and closes the
 * file: later reads give the same text from memory (at most `maxRawBytes` per stream). Streams
 * held in memory or already read are left as they are. `agent.close()` does this for the Results
 * of its runs that are still unread, so a closed Agent holds no descriptor.
 */
export function loadRawFiles(raw: object): void {
  for (const kept of heldFiles(raw)) void kept.text;
}
