export { spawnCli } from "./spawn-cli.js";
export type { SpawnOptions } from "./spawn-options.js";
export type { CliProcess } from "./cli-process.js";
export type { ExitInfo } from "./exit-info.js";
export type { OutputLine } from "./output-line.js";
export { JsonLinesDecoder, type JsonLinesDecoderOptions } from "./json-lines-decoder.js";
export { forceKilledError } from "./force-killed-error.js";
export { DEFAULT_MAX_LINE_BYTES, DEFAULT_KILL_GRACE_MS } from "./constants.js";
export { stripTerminalEscapes } from "./strip-terminal-escapes.js";
