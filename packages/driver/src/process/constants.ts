/** Default longest stdout line, in bytes, that {@link JsonLinesDecoder} buffers: 64 MiB. */
export const DEFAULT_MAX_LINE_BYTES: number = 64 * 1024 * 1024;

/** Default time, in milliseconds, between SIGTERM and the SIGKILL escalation: 2000 ms. */
export const DEFAULT_KILL_GRACE_MS: number = 2000;

/** Default size, in bytes, of `CliProcess.stderrTail()`: 4096. */
export const DEFAULT_STDERR_TAIL_BYTES = 4096;

/** Largest `CliProcess.stderrTail()` in bytes: 64 KiB (the process keeps no more stderr for messages). */
export const MAX_STDERR_TAIL_BYTES = 64 * 1024;

/**
 * Default bound, in bytes, of the raw stdout and of the raw stderr a process keeps per output window
 * (`CliProcess.takeOutput()`, what a run's `raw()` shows): 1 MiB each. Older bytes are counted, not kept.
 */
export const DEFAULT_MAX_RAW_BYTES: number = 1024 * 1024;
