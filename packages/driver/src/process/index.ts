export { spawnCli } from "./spawn-cli.js";
export type { SpawnOptions } from "./spawn-options.js";
export type { CliProcess } from "./cli-process.js";
export type { ExitInfo } from "./exit-info.js";
export { rawStreams, rawHoldsFiles, loadRawFiles, type CapturedOutput } from "./captured-output.js";
export type { OutputLine } from "./output-line.js";
export { JsonLinesDecoder, type JsonLinesDecoderOptions } from "./json-lines-decoder.js";
export { forceKilledError } from "./force-killed-error.js";
export { DEFAULT_MAX_LINE_BYTES, DEFAULT_KILL_GRACE_MS, DEFAULT_MAX_RAW_BYTES } from "./constants.js";
export { stripTerminalEscapes } from "./strip-terminal-escapes.js";
export {
  mergeChildEnv,
  inheritEnvProblem,
  envNameMatches,
  SAFE_ENV_BASE,
  type InheritEnv,
  type MergeChildEnvOptions,
} from "./child-env.js";
export { isolateStdioServer, type StdioServerLaunch } from "./stdio-server-env.js";
export { launchSecrets } from "./launch-secrets.js";
export { checkStdioServerCommands, withStdioCommandProblems } from "./stdio-server-command.js";
export { STDIO_SERVER_VAR, descendantBaseline, endTurnLeftovers, type TurnLeftoverOptions } from "./turn-leftovers.js";
export { processEnvHas, processEnvEntry, processHandingOver, type EnvEntryState } from "./descendants.js";
export { WarmPool, type WarmProcess } from "./warm-pool.js";
export { waitForCpuIdle, type CpuIdleOptions } from "./cpu-idle.js";
export {
  appendSessionFile,
  appendSessionLine,
  checkSessionFolders,
  confirmSessionFolder,
  createSessionFile,
  partFrom,
  readSessionFile,
  readSessionFileFrom,
  unlinkPlantedLinks,
  writeSessionFile,
  SESSION_FILE_LIMIT_BYTES,
  type SessionFilePart,
} from "./session-files.js";
export { openRegularFile, type OpenedRegularFile, type OpenRegularFileOptions } from "./regular-file.js";
export { readFileEnds, type FileEnds } from "./file-ends.js";
