/** Default longest stdout line, in bytes, that {@link JsonLinesDecoder} buffers: 64 MiB. */
export const DEFAULT_MAX_LINE_BYTES: number = 64 * 1024 * 1024;

/** Default time, in milliseconds, between SIGTERM and the SIGKILL escalation: 2000 ms. */
export const DEFAULT_KILL_GRACE_MS: number = 2000;

/** Default size, in bytes, of `CliProcess.stderrTail()`: 4096. */
export const DEFAULT_STDERR_TAIL_BYTES = 4096;
