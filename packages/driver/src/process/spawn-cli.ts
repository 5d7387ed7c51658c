import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { randomUUID } from "node:crypto";
import { basename } from "node:path";
import { DriverError, ErrCode } from "@adaptor/errors";
import { ChildCliProcess } from "./child-cli-process.js";
import type { CliProcess } from "./cli-process.js";
import { DEFAULT_KILL_GRACE_MS, DEFAULT_MAX_LINE_BYTES, DEFAULT_MAX_RAW_BYTES } from "./constants.js";
import { PROCESS_TAG_VAR } from "./descendants.js";
import { resolveExecutable } from "./resolve-executable.js";
import { checkWorkingDirectory } from "./working-directory.js";
import type { SpawnOptions } from "./spawn-options.js";

/**
 * Starts a CLI as the leader of its own process group (`detached: true`), with an argv array and no
 * shell, stdio as pipes. The executable is resolved first (a path must exist and be executable, a
 * bare name is searched on `PATH`), and `cwd` must be an existing directory, so a missing CLI or a bad
 * working directory fails before anything is started. POSIX only (process groups).
 *
 * The child is tracked until reaped: if the parent process exits first, its group is SIGKILLed.
 *
 * @returns the running {@link CliProcess}; resolves once the OS reported the child started.
 * @throws (rejects) DriverError with op `"spawn"` and the `device` name: `NOT_FOUND`
 * (`[NOT_FOUND] spawn: claude (executable "claude-typo" not found on PATH)`, naming the command as
 * given when it differs from the device); for a missing or non-directory `cwd` a `NOT_FOUND` whose
 * device is the directory (`[NOT_FOUND] spawn: /abs/dir (working directory of claude does not exist)`);
 * `PERMISSION` (not executable, EACCES), `IS_DIRECTORY`, `RESOURCE_EXHAUSTED` (E2BIG, EAGAIN, EMFILE),
 * `INVALID` (bad options), `INTERNAL` (anything else). The cause of every one but `INVALID` is an
 * `Error` with the errno `code` (`ENOENT`, `ENOTDIR`, `EACCES`...): Node's own spawn error, or for a
 * failed check before spawning one shaped like it whose cause is the operating system's error.
 */
export async function spawnCli(options: SpawnOptions): Promise<CliProcess> {
  const device = options.device ?? (basename(options.command) || options.command);
  const maxLineBytes = options.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES;
  const killGraceMs = options.killGraceMs ?? DEFAULT_KILL_GRACE_MS;
  const maxRawBytes = options.maxRawBytes ?? DEFAULT_MAX_RAW_BYTES;
  const invalid = (cause: string): DriverError => new DriverError({ op: "spawn", device, code: ErrCode.Invalid, cause });
  if (!Number.isSafeInteger(maxLineBytes) || maxLineBytes < 1)
    throw invalid(`maxLineBytes must be a positive integer, got ${String(maxLineBytes)}`);
  if (!Number.isSafeInteger(maxRawBytes) || maxRawBytes < 1)
    throw invalid(`maxRawBytes must be a positive integer, got ${String(maxRawBytes)}`);
  if (!Number.isFinite(killGraceMs) || killGraceMs < 0)
    throw invalid(`killGraceMs must be a finite number >= 0, got ${String(killGraceMs)}`);

  const processTag = randomUUID();
  // Every process the CLI starts inherits the tag, so it can be found and ended with the CLI.
  const env = { ...childEnv(options.env ?? process.env), [PROCESS_TAG_VAR]: processTag };
  const cwd = options.cwd === undefined ? undefined : await checkWorkingDirectory(options.cwd, device);
  const file = await resolveExecutable(options.command, {
    device,
    path: options.env?.["PATH"] ?? process.env["PATH"] ?? "",
    ...(cwd === undefined ? {} : { cwd }),
  });

  let child: ChildProcessWithoutNullStreams;
  try {
    child = spawn(file, [...options.args], {
      argv0: options.command,
      cwd,
      env,
      stdio: ["pipe", "pipe", "pipe"],
      detached: true,
      shell: false,
      windowsHide: true,
    });
  } catch (err) {
    throw spawnError(device, err);
  }

  try {
    await started(child);
  } catch (err) {
    child.stdin.destroy();
    child.stdout.destroy();
    child.stderr.destroy();
    throw spawnError(device, err);
  }
  return new ChildCliProcess(child, {
    device,
    maxLineBytes,
    killGraceMs,
    maxRawBytes,
    redactRaw: options.redactRaw?.filter((value) => value !== "") ?? [],
    processTag,
    onStderr: options.onStderr,
    onStdout: options.onStdout,
    parseLine: options.parseLine,
  });
}

function childEnv(env: Readonly<Record<string, string | undefined>>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(env)) if (value !== undefined) out[key] = value;
  return out;
}

/** Resolves on the child's `'spawn'` event, rejects on a spawn-time `'error'` (ENOENT, EACCES...). */
function started(child: ChildProcessWithoutNullStreams): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const onSpawn = (): void => {
      child.off("error", onError);
      resolve();
    };
    const onError = (err: Error): void => {
      child.off("spawn", onSpawn);
      child.on("error", () => {}); // later errors of a dead child stay handled
      reject(err);
    };
    child.once("spawn", onSpawn);
    child.once("error", onError);
  });
}

const SPAWN_ERROR_CODES: Readonly<Record<string, ErrCode>> = {
  ENOENT: ErrCode.NotFound,
  ENOTDIR: ErrCode.NotFound,
  EACCES: ErrCode.Permission,
  EPERM: ErrCode.Permission,
  EISDIR: ErrCode.IsDirectory,
  E2BIG: ErrCode.ResourceExhausted,
  EAGAIN: ErrCode.ResourceExhausted,
  EMFILE: ErrCode.ResourceExhausted,
  ENFILE: ErrCode.ResourceExhausted,
  ENOMEM: ErrCode.ResourceExhausted,
  ERR_INVALID_ARG_TYPE: ErrCode.Invalid,
  ERR_INVALID_ARG_VALUE: ErrCode.Invalid,
};

function spawnError(device: string, err: unknown): DriverError {
  const errno = (err as NodeJS.ErrnoException | undefined)?.code;
  const code = (errno === undefined ? undefined : SPAWN_ERROR_CODES[errno]) ?? ErrCode.Internal;
  return new DriverError({ op: "spawn", device, code, cause: err });
}
