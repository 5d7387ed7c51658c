import type { CapturedOutput } from "./captured-output.js";
import type { ExitInfo } from "./exit-info.js";
import type { OutputLine } from "./output-line.js";

/**
 * A running CLI child started by {@link spawnCli}: the leader of its own process group, with stdio
 * pipes. Closing it (`close()`, `await using`) terminates the group if still alive and releases
 * everything; nothing is left running, nothing keeps Node alive.
 */
export interface CliProcess extends AsyncDisposable {
  /** OS process id of the child, also the id of its process group. */
  readonly pid: number;
  /** Name used in errors. */
  readonly device: string;
  /**
   * stdout framed as JSON Lines ({@link JsonLinesDecoder}), in order, from the first line. Ends when
   * stdout ends. Single consumer: a second call throws a DriverError `INVALID` (op `"read"`).
   * Breaking out of the loop is clean: no error, later lines are dropped (stdout keeps draining).
   * Lines are queued in memory until read. Once 8,192 lines wait unread, stdout is paused until
   * they all were (the child then waits on its writes): a consumer that falls behind a flooding
   * child holds a bounded queue. A child that exited is read to the end whatever waits.
   *
   * @throws DriverError `RESOURCE_EXHAUSTED` (op `"read"`) from the iterator when a line exceeds
   * `maxLineBytes`, after every line before it was delivered.
   */
  lines(): AsyncIterable<OutputLine>;
  /**
   * The same lines as {@link lines}, in order, handed over in batches: each step yields every line
   * decoded since the previous one (at least one). For a consumer that dispatches each line
   * synchronously (a JSON-RPC pump): one settled promise per stdout chunk instead of one per line.
   * stdout has a single consumer: calling this after {@link lines} (or twice) throws a DriverError
   * `INVALID` (op `"read"`). Breaking out of the loop is clean, as with {@link lines}.
   *
   * @throws DriverError `RESOURCE_EXHAUSTED` (op `"read"`) from the iterator when a line exceeds
   * `maxLineBytes`, after every line before it was delivered.
   */
  lineBatches(): AsyncIterable<readonly OutputLine[]>;
  /**
   * The same lines as {@link lineBatches}, unparsed: each step yields the text of every line framed
   * since the previous one (at least one; terminator stripped, blank lines skipped, as
   * {@link lines} frames them). For a consumer that parses by itself and can read its most
   * frequent line without building the parsed value. stdout has a single consumer: calling this
   * after {@link lines} or {@link lineBatches} (or twice) throws a DriverError `INVALID`
   * (op `"read"`). Breaking out of the loop is clean, as with {@link lines}.
   *
   * @throws DriverError `RESOURCE_EXHAUSTED` (op `"read"`) from the iterator when a line exceeds
   * `maxLineBytes`, after every line before it was delivered.
   */
  textBatches(): AsyncIterable<readonly string[]>;
  /**
   * Writes `JSON.stringify(value) + "\n"` to stdin; resolves once the bytes were handed to the OS
   * (backpressure is the caller's await).
   *
   * @throws (rejects) DriverError `BROKEN_PIPE` (op `"write"`) when stdin was closed by either side or
   * the child exited; `INTERNAL` when `value` is not JSON-serializable.
   */
  writeJson(value: unknown): Promise<void>;
  /**
   * Writes `text` to stdin exactly as given (UTF-8, no newline added), e.g. a prompt for a CLI that
   * reads it to EOF. Rejects like {@link writeJson} with `BROKEN_PIPE`.
   */
  writeText(text: string): Promise<void>;
  /** Ends stdin (EOF for the child). Idempotent: `stdin.end()` runs at most once. */
  closeStdin(): void;
  /**
   * The raw output of the current window, then starts a new, empty one. The first window opens at
   * spawn; each call closes the current window and opens the next. A driver serving several turns on
   * one process calls it when a turn starts (dropping what came between turns) and when it ends (the
   * turn's own output), so a long-lived process holds nothing from earlier turns. Each stream keeps
   * at most `maxRawBytes` (default 1 MiB) per window, its tail; byte counts cover everything.
   */
  takeOutput(): CapturedOutput;
  /**
   * {@link takeOutput} once the output that had reached the host when it was called is counted:
   * stdout and stderr are separate pipes, read in turn, so a line the CLI wrote to stderr just
   * before the stdout line that ends its turn can still wait to be read when that stdout line is
   * handled. Waits for the reads already due (the rest of one pass of the event loop), never for
   * output still to come. A driver ending a turn on a stdout message calls this.
   */
  takeSettledOutput(): Promise<CapturedOutput>;
  /**
   * Bytes the child wrote to stdout and stderr since spawn, across windows (a count only, nothing
   * is kept for it): a stall watchdog reads it to see whether the CLI is still producing output.
   */
  readonly outputBytes: number;
  /**
   * True while stdout is not read because the lines read wait unconsumed (a consumer that fell
   * behind): the child blocks on its writes then, so a stall watchdog does not count it as silence.
   */
  readonly outputHeld: boolean;
  /**
   * The last `maxBytes` bytes of stderr since spawn, across windows (never cut inside a character),
   * without terminal escape codes (as `stripTerminalEscapes` does), trimmed; for error messages.
   *
   * @param maxBytes - default 4096, at most 65,536 (the process keeps no more stderr for messages).
   */
  stderrTail(maxBytes?: number): string;
  /**
   * Pids of the live processes the CLI started (its process tree, every process carrying its
   * process tag, and every process in a session or process group one of those was seen in, the
   * host's own excepted), from a fresh `/proc` scan: what ending the CLI would end now. Undefined where they
   * cannot be found (not Linux). Synchronous; never throws.
   */
  liveDescendants(): number[] | undefined;
  /**
   * What {@link liveDescendants} gives, read right after the current turn of the event loop
   * together with the other CLIs' asked for in that turn (one read of where their orphans can be
   * serves them all: with many CLIs at once, this process's list of children holds each of them).
   * Resolves undefined where they cannot be found (not Linux). Never rejects.
   *
   * Optional, so an implementation written before it existed still fits: the kit treats a missing
   * method as "nothing known" (resolving undefined), as on a host where descendants cannot be found,
   * so what a turn leaves running is not ended per turn and a pre-warmed process is not handed back.
   * Every process {@link spawnCli} starts has it.
   */
  listDescendants?(): Promise<number[] | undefined>;
  /** Settles once the child exited AND its stdout/stderr closed (it was reaped). Never rejects. */
  readonly exited: Promise<ExitInfo>;
  /**
   * SIGTERM to the whole process group, then SIGKILL to the group after `killGraceMs` if it has not
   * gone (then `forceKilled: true`), and ends what the CLI left running. Holds the host (even an
   * {@link unref}'d process) until it settles. Idempotent: every call returns the same promise. Never rejects.
   */
  terminate(): Promise<ExitInfo>;
  /**
   * Terminates the group if alive, waits for it to be reaped, ends what it left running (its
   * descendants), releases the pipes. Holds the host until it settles, also after the child was
   * reaped. Idempotent; never rejects.
   */
  close(): Promise<void>;
  /**
   * Lets the host exit while the child and its pipes are idle, as Node's `ChildProcess.unref()`
   * and `Socket.unref()` do: for a process parked between turns. Output is still read while the host
   * runs; a host that exits still ends the child (the exit hook). {@link terminate} and
   * {@link close} hold the host again until they settle. Idempotent.
   */
  unref(): void;
  /** Undoes {@link unref}: the child and its pipes keep the host alive again (the default). Idempotent. */
  ref(): void;
}
