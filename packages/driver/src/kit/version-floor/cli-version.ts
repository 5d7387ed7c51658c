import { stat } from "node:fs/promises";
import { resolveExecutable } from "../../process/resolve-executable.js";
import { spawnCli } from "../../process/spawn-cli.js";
import { raceAbort } from "../cancel/escalation.js";
import { parseVersion, withDeadline } from "../inspect/inspect-cli.js";

/** Deadline of one version probe, in ms. */
export const VERSION_PROBE_TIMEOUT_MS = 10_000;

/** Binaries whose version is remembered at once; the oldest is forgotten past it. */
const MAX_REMEMBERED = 32;

/** What a CLI printed for its version. */
export interface CliVersion {
  /** The first `major.minor.patch` it printed on stdout, or undefined when none. */
  readonly version: string | undefined;
  /** What it printed (stdout, else the tail of stderr), for a message when no version was read. */
  readonly output: string;
}

/** What {@link cliVersion} runs. */
export interface CliVersionProbe {
  /** The executable as configured (a path, or a name searched on the `PATH` of `env`). */
  readonly command: string;
  /** Arguments that print the version, e.g. `["--version"]`. */
  readonly args: readonly string[];
  /** The environment the CLI gets for a run. */
  readonly env: Readonly<Record<string, string | undefined>>;
  /** Working directory of the run, when configured (a relative `command` is resolved against it). */
  readonly cwd?: string;
  /** Device name for errors, e.g. `"codex"`. */
  readonly device: string;
  /**
   * The version known without asking, when `command` is the binary of an npm package whose
   * `package.json` names it (a driver's default executable): no process is started. Absent: asked.
   */
  readonly installed?: string | undefined;
}

const remembered = new Map<string, Promise<CliVersion>>();

/**
 * The version a CLI prints ({@link parseVersion}: on stdout, else stderr), or the one its probe
 * says is installed (`installed`: nothing is started). Asked once per binary, working directory and
 * process: the answer is remembered under the working directory and
 * the resolved path, size and modification time of the executable, so a binary replaced in
 * place is asked again. Concurrent callers share one probe. A probe that failed (it could not be
 * started, or gave no answer within {@link VERSION_PROBE_TIMEOUT_MS}) is not remembered.
 *
 * @throws DriverError with op `"spawn"` (`NOT_FOUND`, `PERMISSION`, ...) when the executable cannot
 * be started, as a run would; DriverError `TIMEOUT` when it printed nothing within the deadline;
 * `signal.reason` when aborted, once the probe's process is gone (it ends by its deadline at the latest).
 */
export async function cliVersion(probe: CliVersionProbe, signal: AbortSignal): Promise<CliVersion> {
  signal.throwIfAborted();
  if (probe.installed !== undefined) return { version: parseVersion(probe.installed), output: probe.installed };
  const path = await resolveExecutable(probe.command, {
    device: probe.device,
    path: probe.env["PATH"] ?? process.env["PATH"] ?? "",
    ...(probe.cwd !== undefined ? { cwd: probe.cwd } : {}),
  });
  const file = await stat(path);
  // The working directory too: a version manager's shim picks the CLI by it (asdf, mise, volta).
  const key = `${path}\0${file.size}\0${file.mtimeMs}\0${probe.cwd ?? process.cwd()}\0${probe.args.join("\0")}`;
  let answer = remembered.get(key);
  if (!answer) {
    answer = ask(probe, path);
    remembered.set(key, answer);
    if (remembered.size > MAX_REMEMBERED) remembered.delete(remembered.keys().next().value as string);
    answer.catch(() => remembered.delete(key));
  }
  try {
    return await raceAbort(answer, signal);
  } catch (error) {
    // An abort does not leave the probe's process behind the caller's verdict: it is waited for
    // (it ends by its own deadline at the latest).
    if (signal.aborted) await answer.catch(() => undefined);
    throw error;
  }
}

/** Forgets every remembered version (for tests that replace a binary within one mtime tick). */
export function forgetCliVersions(): void {
  remembered.clear();
}

async function ask(probe: CliVersionProbe, path: string): Promise<CliVersion> {
  const child = await spawnCli({
    command: path,
    args: probe.args,
    env: probe.env,
    device: probe.device,
    killGraceMs: 1000,
    ...(probe.cwd !== undefined ? { cwd: probe.cwd } : {}),
  });
  try {
    child.closeStdin();
    // Its own deadline, not a caller's signal: the answer is shared by every caller.
    await withDeadline(child, child.exited, VERSION_PROBE_TIMEOUT_MS, new AbortController().signal, probe.args);
    const stdout = child.takeOutput().stdout;
    const stderr = child.stderrTail();
    return { version: parseVersion(stdout) ?? parseVersion(stderr), output: stdout.trim() || stderr };
  } finally {
    await child.close();
  }
}
