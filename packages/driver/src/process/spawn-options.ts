/** Options of {@link spawnCli}. */
export interface SpawnOptions {
  /**
   * The executable: an absolute path, a relative path (with a `/`, resolved against `cwd`), or a bare
   * name looked up on `PATH` (`env.PATH`, else `process.env.PATH`). Never run through a shell.
   */
  command: string;
  /** The argv after the command, passed verbatim (no shell, no quoting). */
  args: readonly string[];
  /** Working directory of the child. Default: the parent's `process.cwd()`. */
  cwd?: string;
  /**
   * The child's full environment (the caller merges it). Entries whose value is `undefined` are
   * omitted. Only `ADAPTOR_PROCESS_TAG` (a fresh UUID) is added: everything the child starts
   * inherits it, which is how its processes are found and ended with it. Default: `process.env`.
   */
  env?: Readonly<Record<string, string | undefined>>;
  /** Name used in errors (`[CODE] op: device (cause)`). Default: the basename of `command`. */
  device?: string;
  /** Longest stdout line in bytes, terminator excluded; longer fails `lines()`. Default 64 MiB. */
  maxLineBytes?: number;
  /**
   * Parses each stdout line for `lines()` / `lineBatches()`: must return what `JSON.parse` returns
   * and throw where it throws (the line is then `kind: "text"`). Default `JSON.parse`; a driver may
   * pass one with a fast path for its CLI's most frequent line.
   */
  parseLine?: (text: string) => unknown;
  /**
   * Bound, in bytes, of the raw stdout and of the raw stderr kept per output window
   * (`CliProcess.takeOutput()`); older bytes are counted, not kept. A positive safe integer.
   * Default 1 MiB (`DEFAULT_MAX_RAW_BYTES`).
   */
  maxRawBytes?: number;
  /**
   * Values that the kept raw output never shows: each is replaced by `[redacted]` in
   * `CliProcess.takeOutput()`'s `stdout` and `stderr` text (when first read; only the redacted
   * text is kept), in `stderrTail()` and in the text handed to `onStderr`, in every form the SDK's
   * value redaction finds (another letter case, URL-encoded once or twice, base64-encoded, also
   * wrapped into lines, JSON-escaped); where the `maxRawBytes` bound cut a value at the start of
   * the kept text, its last 8 characters or more are replaced too. `onStderr` is then handed whole
   * lines (an unfinished line waits for its end, the stream's end, 16,384 characters or 250 ms,
   * then is handed on as a cut one: a prompt still shows), so a value split between two reads is
   * still found. For the credentials the CLI was handed (see
   * `launchSecrets`): a CLI may echo its configuration (Claude Code's answer to `mcp_status` lists
   * each MCP server's headers). The byte counts stay those the CLI wrote. Cost: one pass over the
   * text per value's form, when the text is first read. Default none.
   */
  redactRaw?: readonly string[];
  /** Milliseconds between SIGTERM and SIGKILL in `terminate()`. Default 2000. */
  killGraceMs?: number;
  /**
   * Called with each decoded stderr chunk (UTF-8, never split inside a character); with
   * `redactRaw`, with whole lines, redacted. Exceptions are ignored.
   */
  onStderr?: (text: string) => void;
  /**
   * Takes stdout raw instead of as lines: called with each chunk read (bytes as they came, a
   * character may be split between two chunks), in order. Stdout is then not framed (no line
   * limit applies) and `lines()`, `lineBatches()` and `textBatches()` throw a DriverError `INVALID`
   * (op `"read"`). For output that is shown, not parsed (a terminal). Exceptions are ignored.
   */
  onStdout?: (chunk: Buffer) => void;
}
