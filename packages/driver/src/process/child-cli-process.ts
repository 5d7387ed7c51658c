import { procStatFields, redactCutAtStart, redactValues } from "@adaptor/errors/internal";
import type { ChildProcessWithoutNullStreams } from "node:child_process";
import { StringDecoder } from "node:string_decoder";
import { DriverError, ErrCode } from "@adaptor/errors";
import type { CliProcess } from "./cli-process.js";
import { keptOutput, type CapturedOutput } from "./captured-output.js";
import { DEFAULT_STDERR_TAIL_BYTES, MAX_STDERR_TAIL_BYTES } from "./constants.js";
import type { ExitInfo } from "./exit-info.js";
import { LineFramer, toOutputLine } from "./line-framer.js";
import {
  DescendantTracker,
  lastPid,
  readOrphansAhead,
  refreshDeepSoon,
  releaseDescendants,
  unwatchDescendants,
  watchDescendants,
} from "./descendants.js";
import { signalGroup } from "./kill.js";
import { endSweeping } from "./sweep.js";
import { holdHostWhile } from "./hold-host.js";
import { trackChild, untrackChild } from "./live-children.js";
import type { OutputLine } from "./output-line.js";
import { OutputTail } from "./output-tail.js";
import { HELD_LINE_FLUSH_MS, StreamRedactor } from "./redact-output.js";
import { utf8Tail } from "./stderr-tail.js";
import { stripTerminalEscapes } from "./strip-terminal-escapes.js";

/** Settings of a {@link ChildCliProcess}, defaults already applied. */
export interface ChildCliProcessInit {
  device: string;
  maxLineBytes: number;
  killGraceMs: number;
  onStderr?: ((text: string) => void) | undefined;
  /** Takes stdout raw, chunk by chunk: stdout is then not framed into lines. */
  onStdout?: ((chunk: Buffer) => void) | undefined;
  maxRawBytes: number;
  /**
   * Values replaced by `[redacted]` in the kept output's text, the stderr tail and the text handed
   * to `onStderr` (which then gets whole lines, see `StreamRedactor`); none: nothing changed.
   */
  redactRaw?: readonly string[] | undefined;
  /** The value of `ADAPTOR_PROCESS_TAG` in the child's environment. */
  processTag?: string | undefined;
  /** The stdout line parser (default `JSON.parse`). */
  parseLine?: ((text: string) => unknown) | undefined;
}

const EMPTY = Buffer.alloc(0);
const LINES_DONE: IteratorReturnResult<undefined> = Object.freeze({ done: true, value: undefined });
/** Taken slots at the front of the stdout queue from which it is compacted, when they are also at least half of it. */
const COMPACT_QUEUE_AT = 1024;
/** After SIGKILL, how long to wait for stdio to close before destroying our ends (a pipe held outside the group). */
const STDIO_RELEASE_MS = 1000;
/** Unread stdout lines from which stdout is paused until its consumer has read them all. */
const MAX_QUEUED_LINES = 8_192;

/**
 * {@link CliProcess} over a spawned `ChildProcess` (stdio pipes, `detached: true`, already past its
 * `'spawn'` event). Internal: build it through `spawnCli`.
 */
export class ChildCliProcess implements CliProcess {
  readonly pid: number;
  readonly device: string;
  readonly exited: Promise<ExitInfo>;

  readonly #child: ChildProcessWithoutNullStreams;
  readonly #killGraceMs: number;
  readonly #onStderr: ((text: string) => void) | undefined;
  readonly #onStdoutChunk: ((chunk: Buffer) => void) | undefined;
  #reaped = false;
  #forceKilled = false;
  #terminated = false;
  #outputBytes = 0;
  /** True while stdout is paused because {@link MAX_QUEUED_LINES} lines wait unread. */
  #stdoutPaused = false;
  #exitSeen = false;
  /** True once stdout's consumer started reading: only then is stdout paused for it. */
  #reading = false;
  #terminating: Promise<ExitInfo> | undefined;
  #closing: Promise<void> | undefined;
  readonly #descendants: DescendantTracker;
  #descendantsEnded: Promise<void> | undefined;
  readonly #timers = new Set<NodeJS.Timeout>();

  // stdout
  readonly #stdoutWindow: OutputTail;
  readonly #framer: LineFramer;
  readonly #parseLine: (text: string) => unknown;
  /**
   * Framed lines not yet taken: their texts until stdout is claimed, then parsed lines for
   * `lines()` / `lineBatches()` (each parsed as it is framed: one tight loop per chunk) or texts
   * for `textBatches()`.
   */
  #queue: (string | OutputLine)[] = [];
  /** True once `lines()` or `lineBatches()` claimed stdout: the queue holds parsed lines. */
  #parsing = false;
  #queueHead = 0;
  #readError: DriverError | undefined;
  #stdoutDone = false;
  #linesTaken = false;
  #consumerGone = false;
  #wake: (() => void) | undefined;
  #waiting: Promise<void> | undefined;

  /** Values the kept output and the stderr tail show as `[redacted]`. */
  readonly #redactRaw: readonly string[];

  // stderr
  readonly #stderrWindow: OutputTail;
  /** The latest stderr across windows, for {@link stderrTail}. */
  readonly #stderrRecent = new OutputTail(MAX_STDERR_TAIL_BYTES);
  readonly #stderrDecoder = new StringDecoder("utf8");
  /** Redacts the text handed to `onStderr`, line by line; undefined when nothing is redacted. */
  readonly #stderrRedactor: StreamRedactor | undefined;
  /** Hands on the redactor's unfinished line {@link HELD_LINE_FLUSH_MS} after it started to wait. */
  #stderrFlushTimer: NodeJS.Timeout | undefined;
  #stderrEnded = false;

  // stdin
  #stdinEnded = false;
  #stdinGone: unknown;
  readonly #pendingWrites = new Set<(cause: unknown) => void>();

  constructor(child: ChildProcessWithoutNullStreams, init: ChildCliProcessInit) {
    if (child.pid === undefined)
      throw new DriverError({ op: "spawn", device: init.device, code: ErrCode.Internal, cause: "child has no pid" });
    this.#child = child;
    this.pid = child.pid;
    this.device = init.device;
    this.#killGraceMs = init.killGraceMs;
    this.#onStderr = init.onStderr;
    this.#onStdoutChunk = init.onStdout;
    this.#redactRaw = init.redactRaw ?? [];
    this.#stderrRedactor = this.#redactRaw.length > 0 && init.onStderr ? new StreamRedactor(this.#redactRaw) : undefined;
    this.#stdoutWindow = new OutputTail(init.maxRawBytes);
    this.#stderrWindow = new OutputTail(init.maxRawBytes);
    this.#framer = new LineFramer(init.maxLineBytes, init.device);
    this.#parseLine = init.parseLine ?? JSON.parse;
    this.#descendants = new DescendantTracker(this.pid, init.processTag);
    watchDescendants(this.#descendants);
    trackChild(this.pid);

    // Late child errors (a signal that could not be delivered) must never go unhandled.
    child.on("error", () => {});
    // What the CLI started ends with it, at its exit: a child that inherited its stdio (a launcher
    // that runs the real binary) would otherwise keep the pipes open and serve on without it.
    child.once("exit", () => void this.#endDescendants());
    // A child that exited writes no more: what its pipe still holds is read whatever the queue holds.
    child.once("exit", () => {
      this.#exitSeen = true;
      this.#resumeStdout();
    });

    const { stdin, stdout, stderr } = child;
    stdin.on("error", (err) => this.#stdinClosed(err));
    stdin.on("close", () => this.#stdinClosed("stdin closed"));

    stdout.on("data", (chunk: Buffer) => this.#onStdout(chunk));
    stdout.on("end", () => this.#onStdoutEnd());
    stdout.on("close", () => this.#onStdoutEnd());
    stdout.on("error", (err) => {
      this.#readError ??= new DriverError({ op: "read", device: this.device, code: ErrCode.Internal, cause: err });
      this.#onStdoutEnd();
    });

    stderr.on("data", (chunk: Buffer) => {
      this.#outputBytes += chunk.length;
      this.#stderrWindow.push(chunk);
      this.#stderrRecent.push(chunk);
      this.#onStderrText(this.#stderrDecoder.write(chunk));
    });
    // At its end (or a close without one: a destroyed pipe), what the decoder and the redactor hold.
    stderr.on("end", () => this.#onStderrEnd());
    stderr.on("close", () => this.#onStderrEnd());
    stderr.on("error", () => {});

    this.exited = new Promise<ExitInfo>((resolve) => {
      child.once("close", (code: number | null, signal: NodeJS.Signals | null) => {
        this.#reaped = true;
        // Whatever the CLI left running (tools in their own session) ends with it.
        void this.#endDescendants();
        untrackChild(this.pid);
        for (const timer of this.#timers) clearTimeout(timer);
        this.#timers.clear();
        this.#stdinClosed("child exited");
        this.#onStdoutEnd();
        resolve({ code, signal, forceKilled: this.#forceKilled, ...(this.#terminated ? { terminated: true } : {}) });
      });
    });
  }

  get outputBytes(): number {
    return this.#outputBytes;
  }

  get outputHeld(): boolean {
    return this.#stdoutPaused;
  }

  takeOutput(): CapturedOutput {
    // Decoded when first read: until then the bytes stay in the tail's blocks or spill file.
    return keptOutput(this.#stdoutWindow.takeKept(), this.#stderrWindow.takeKept(), this.#redactRaw);
  }

  async takeSettledOutput(): Promise<CapturedOutput> {
    // Pipe reads ready in the event loop's pass that handled the turn's end are made before its
    // immediates run: the stderr the CLI wrote before that stdout line is counted by then.
    await new Promise<void>((resolve) => setImmediate(resolve));
    return this.takeOutput();
  }

  stderrTail(maxBytes: number = DEFAULT_STDERR_TAIL_BYTES): string {
    const { text, truncated } = this.#stderrRecent.peek();
    // The end of a value the bound cut is found before escape codes are stripped (they may follow it).
    const whole = truncated && this.#redactRaw.length > 0 ? redactCutAtStart(text, this.#redactRaw) : text;
    return utf8Tail(redactValues(stripTerminalEscapes(whole), this.#redactRaw), Math.min(maxBytes, MAX_STDERR_TAIL_BYTES));
  }

  lines(): AsyncIterable<OutputLine> {
    this.#claimStdout(true);
    return this.#iterate(() => this.#takeLine() as OutputLine);
  }

  lineBatches(): AsyncIterable<readonly OutputLine[]> {
    this.#claimStdout(true);
    return this.#iterate(() => this.#takeBatch() as OutputLine[]);
  }

  textBatches(): AsyncIterable<readonly string[]> {
    this.#claimStdout(false);
    return this.#iterate(() => this.#takeBatch() as string[]);
  }

  /** Claims stdout for its single consumer; `parsing`: lines are handed over parsed. */
  #claimStdout(parsing: boolean): void {
    const taken = this.#onStdoutChunk
      ? "stdout is taken raw by onStdout"
      : this.#linesTaken
        ? "stdout has a single consumer (lines(), lineBatches() or textBatches()) and was already taken"
        : undefined;
    if (taken !== undefined) throw new DriverError({ op: "read", device: this.device, code: ErrCode.Invalid, cause: taken });
    this.#linesTaken = true;
    if (!parsing) return;
    this.#parsing = true;
    const head = this.#queueHead;
    this.#queue = this.#queue.slice(head).map((text) => toOutputLine(text as string, this.#parseLine));
    this.#queueHead = 0;
  }

  writeJson(value: unknown): Promise<void> {
    let text: string | undefined;
    try {
      text = JSON.stringify(value);
    } catch (err) {
      return Promise.reject(new DriverError({ op: "write", device: this.device, code: ErrCode.Internal, cause: err }));
    }
    if (text === undefined) {
      return Promise.reject(
        new DriverError({ op: "write", device: this.device, code: ErrCode.Internal, cause: "value is not JSON-serializable" }),
      );
    }
    return this.writeText(`${text}\n`);
  }

  writeText(text: string): Promise<void> {
    const stdin = this.#child.stdin;
    if (this.#stdinEnded) return Promise.reject(this.#brokenPipe("stdin already closed"));
    if (this.#stdinGone !== undefined || stdin.destroyed || !stdin.writable) {
      return Promise.reject(this.#brokenPipe(this.#stdinGone ?? "stdin closed"));
    }
    return new Promise<void>((resolve, reject) => {
      const settle = (cause: unknown): void => {
        if (!this.#pendingWrites.delete(settle)) return;
        if (cause === undefined || cause === null) resolve();
        else reject(this.#brokenPipe(cause));
      };
      this.#pendingWrites.add(settle);
      stdin.write(text, (err) => settle(err));
    });
  }

  closeStdin(): void {
    if (this.#stdinEnded) return;
    this.#stdinEnded = true;
    const stdin = this.#child.stdin;
    if (stdin.destroyed || stdin.writableEnded) return;
    // Once the CLI has its EOF, and while it shuts down, where orphans are handed is read for the
    // sweep at its exit: that one then reads only what changed since.
    stdin.once("finish", () => {
      if (!this.#reaped) readOrphansAhead(this.#descendants);
    });
    stdin.end();
  }

  terminate(): Promise<ExitInfo> {
    // Held until the end: once the child is reaped only unref'd sweep timers are left while its
    // descendants are ended, and the caller still waits.
    this.#terminating ??= holdHostWhile(this.#runTerminate());
    return this.#terminating;
  }

  close(): Promise<void> {
    this.#closing ??= holdHostWhile(this.#runClose());
    return this.#closing;
  }

  unref(): void {
    this.#setRef(false);
  }

  ref(): void {
    this.#setRef(true);
  }

  /** Node's `ChildProcess` and its stdio sockets (net.Socket for pipes) each hold the event loop. */
  #setRef(ref: boolean): void {
    const { stdin, stdout, stderr } = this.#child;
    for (const handle of [this.#child, stdin, stdout, stderr] as { ref?(): unknown; unref?(): unknown }[]) {
      if (ref) handle.ref?.();
      else handle.unref?.();
    }
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }

  liveDescendants(): number[] | undefined {
    if (process.platform !== "linux") return undefined;
    this.#descendants.refreshDeep();
    return this.#liveOnes();
  }

  async listDescendants(): Promise<number[] | undefined> {
    if (process.platform !== "linux") return undefined;
    await this.#refreshCaughtUp();
    return this.#liveOnes();
  }

  /**
   * A deep refresh of the descendants, caught up with what started while it ran
   * ({@link DescendantTracker.catchUp}): a job that forks faster than `/proc` is read is found
   * under its newest pid.
   */
  async #refreshCaughtUp(): Promise<void> {
    await refreshDeepSoon(this.#descendants, lastPid());
  }

  /** The remembered descendants but zombies: a zombie has ended; only its parent's wait is left. */
  #liveOnes(): number[] {
    return this.#descendants.pids.filter((pid) => !isZombie(pid));
  }

  async #runTerminate(): Promise<ExitInfo> {
    this.ref(); // an unref'd process being ended still holds the host until it was reaped
    if (this.#reaped) {
      await this.#endDescendants();
      return this.exited;
    }
    // Scan while the CLI is alive: its tools are still its children and can be found.
    this.#descendants.refreshDeep();
    this.#terminated = true;
    signalGroup(this.pid, "SIGTERM");
    this.#descendants.signalAll("SIGTERM");
    if (await this.#exitedWithin(this.#killGraceMs)) {
      await this.#endDescendants();
      return this.exited;
    }
    this.#forceKilled = true;
    this.#descendants.refreshDeep();
    signalGroup(this.pid, "SIGKILL");
    this.#descendants.signalAll("SIGKILL");
    if (!(await this.#exitedWithin(STDIO_RELEASE_MS))) {
      // The group is dead but something outside it still holds our pipes: stop waiting for their EOF.
      this.#child.stdout.destroy();
      this.#child.stderr.destroy();
    }
    await this.#endDescendants();
    return this.exited;
  }

  /**
   * Ends every remembered descendant once the CLI is gone: SIGTERM, then SIGKILL to those still
   * there after `killGraceMs`, each round of `endSweeping` looking again by tag (a job that keeps
   * changing its pid is signalled under each). Idempotent; never rejects; the wait never keeps Node alive.
   */
  #endDescendants(): Promise<void> {
    this.#descendantsEnded ??= (async () => {
      unwatchDescendants(this.#descendants);
      await this.#refreshCaughtUp();
      if (this.#descendants.pids.length > 0) {
        // Swept by tag round after round: a job that keeps changing its pid is signalled under each.
        const list = async (): Promise<number[]> => {
          await this.#refreshCaughtUp();
          return this.#descendants.pids;
        };
        await endSweeping(list, this.#killGraceMs);
      }
      releaseDescendants(this.#descendants);
    })();
    return this.#descendantsEnded;
  }

  async #runClose(): Promise<void> {
    if (!this.#reaped) await this.terminate();
    await this.#endDescendants();
    const { stdin, stdout, stderr } = this.#child;
    stdin.destroy();
    stdout.destroy();
    stderr.destroy();
  }

  /** True when the child was reaped within `ms`; the timer is cleared either way and never holds Node open. */
  #exitedWithin(ms: number): Promise<boolean> {
    return new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => {
        this.#timers.delete(timer);
        resolve(false);
      }, ms);
      timer.unref();
      this.#timers.add(timer);
      void this.exited.then(() => {
        clearTimeout(timer);
        this.#timers.delete(timer);
        resolve(true);
      });
    });
  }

  /**
   * The single consumer's iterator, written out instead of an async generator: what is queued
   * costs one settled promise per step, no generator resumption. `take` hands over the next step's
   * value from the non-empty queue (one line, or every queued line). Concurrent `next()` calls are
   * served in call order.
   */
  #iterate<T>(take: () => T): AsyncIterableIterator<T> {
    this.#reading = true;
    let finished = false;
    const finish = (): void => {
      finished = true;
      this.#consumerGone = true;
      this.#queue = [];
      this.#queueHead = 0;
      this.#resumeStdout();
      this.#notify();
    };
    const next = (): Promise<IteratorResult<T, undefined>> => {
      if (finished) return Promise.resolve(LINES_DONE);
      if (this.#queueHead < this.#queue.length) return Promise.resolve({ done: false, value: take() });
      if (this.#readError) {
        const error = this.#readError;
        finish();
        return Promise.reject(error);
      }
      if (this.#stdoutDone) {
        finish();
        return Promise.resolve(LINES_DONE);
      }
      this.#waiting ??= new Promise<void>((resolve) => {
        this.#wake = resolve;
      });
      return this.#waiting.then(next);
    };
    const iterator: AsyncIterableIterator<T> = {
      next,
      return: () => {
        if (!finished) finish();
        return Promise.resolve(LINES_DONE);
      },
      [Symbol.asyncIterator]: () => iterator,
    };
    return iterator;
  }

  /** The next queued line (the queue is not empty). */
  #takeLine(): string | OutputLine {
    const queue = this.#queue;
    const line = queue[this.#queueHead] as string | OutputLine;
    // The consumer holds the line now; the queue lets it go (a slow consumer's queue may not empty for a long time).
    queue[this.#queueHead] = undefined as unknown as string;
    this.#queueHead++;
    if (this.#queueHead === queue.length) {
      this.#queue = [];
      this.#queueHead = 0;
      this.#resumeStdout();
    } else if (this.#queueHead >= COMPACT_QUEUE_AT && this.#queueHead * 2 >= queue.length) {
      this.#queue = queue.slice(this.#queueHead);
      this.#queueHead = 0;
    }
    return line;
  }

  /** Every queued line (the queue is not empty): the array given to {@link #enqueue} when nothing was taken from it, no copy. */
  #takeBatch(): (string | OutputLine)[] {
    const batch = this.#queueHead === 0 ? this.#queue : this.#queue.slice(this.#queueHead);
    this.#queue = [];
    this.#queueHead = 0;
    this.#resumeStdout();
    return batch;
  }

  #notify(): void {
    const wake = this.#wake;
    this.#wake = undefined;
    this.#waiting = undefined;
    wake?.();
  }

  #enqueue(lines: (string | OutputLine)[]): void {
    // Nothing waiting: take the fresh array as the queue instead of copying it.
    if (this.#queueHead === this.#queue.length) {
      this.#queue = lines;
      this.#queueHead = 0;
    } else {
      for (const line of lines) this.#queue.push(line);
    }
    // A consumer this far behind (a CLI that floods, a host that paces its driver) leaves the rest
    // in the pipe: the CLI waits on its writes until the queue is read empty, and memory stays bounded.
    if (this.#reading && !this.#stdoutPaused && !this.#exitSeen && this.#queue.length - this.#queueHead >= MAX_QUEUED_LINES) {
      this.#stdoutPaused = true;
      this.#child.stdout.pause();
    }
  }

  /** Reads stdout again once the queue was read empty (or its consumer left, or the child exited). */
  #resumeStdout(): void {
    if (!this.#stdoutPaused) return;
    this.#stdoutPaused = false;
    this.#child.stdout.resume();
  }

  #onStdout(chunk: Buffer): void {
    this.#outputBytes += chunk.length;
    this.#stdoutWindow.push(chunk);
    if (this.#onStdoutChunk) {
      try {
        this.#onStdoutChunk(chunk);
      } catch {
        // A throwing observer must not break the pipe plumbing.
      }
      return;
    }
    if (this.#consumerGone || this.#readError) return;
    try {
      const lines = this.#parsing ? this.#framer.push(chunk, this.#parseLine) : this.#framer.push(chunk);
      this.#enqueue(lines);
      // A line over the limit after complete ones is reported by the next call: surface it now.
      if (lines.length > 0) this.#framer.push(EMPTY);
    } catch (err) {
      this.#readError = err as DriverError;
    }
    this.#notify();
  }

  #onStdoutEnd(): void {
    if (this.#stdoutDone) return;
    this.#stdoutDone = true;
    if (!this.#consumerGone && !this.#readError && !this.#onStdoutChunk) {
      try {
        this.#enqueue(this.#parsing ? this.#framer.end(this.#parseLine) : this.#framer.end());
      } catch (err) {
        this.#readError = err as DriverError;
      }
    }
    this.#notify();
  }

  #onStderrEnd(): void {
    if (this.#stderrEnded) return;
    this.#stderrEnded = true;
    clearTimeout(this.#stderrFlushTimer);
    this.#stderrFlushTimer = undefined;
    const rest = this.#stderrDecoder.end();
    this.#onStderrText(this.#stderrRedactor ? this.#stderrRedactor.push(rest) + this.#stderrRedactor.end() : rest, true);
  }

  /** Hands `text` to `onStderr`: through the redactor first unless it went through it already (`redacted`). */
  #onStderrText(text: string, redacted = false): void {
    const redactor = this.#stderrRedactor;
    if (!redacted && redactor) {
      text = redactor.push(text);
      // An unfinished line (a prompt) is handed on soon even if its end never comes.
      if (redactor.holding && this.#stderrFlushTimer === undefined && !this.#stderrEnded) {
        this.#stderrFlushTimer = setTimeout(() => {
          this.#stderrFlushTimer = undefined;
          if (redactor.holding) this.#onStderrText(redactor.flush(), true);
        }, HELD_LINE_FLUSH_MS);
        this.#stderrFlushTimer.unref();
      }
    }
    if (text === "") return;
    try {
      this.#onStderr?.(text);
    } catch {
      // A throwing observer must not break the pipe plumbing.
    }
  }

  #stdinClosed(cause: unknown): void {
    this.#stdinGone ??= cause;
    for (const settle of [...this.#pendingWrites]) settle(cause);
  }

  #brokenPipe(cause: unknown): DriverError {
    return new DriverError({ op: "write", device: this.device, code: ErrCode.BrokenPipe, cause });
  }
}

/** True when `pid` has ended and waits to be reaped (state `Z` in `/proc/<pid>/stat`), or is gone. */
function isZombie(pid: number): boolean {
  const state = procStatFields(pid)?.[0];
  return state === undefined || state === "Z";
}
