import { stat } from "node:fs/promises";
import { DriverError, ErrCode, findError } from "@adaptor/errors";
import { resolveExecutable } from "../../process/resolve-executable.js";
import { spawnCli } from "../../process/spawn-cli.js";
import { raceAbort } from "../cancel/escalation.js";
import { parseVersion, withDeadline } from "../inspect/inspect-cli.js";
import { packageBinaryVersion, type CliPackageBinary } from "./package-version.js";

/** Deadline of one version probe, in ms: a probe with no answer by then reads as no version. */
export const VERSION_PROBE_TIMEOUT_MS = 10_000;

/** Binaries whose version is remembered at once; the oldest is forgotten past it. */
const MAX_REMEMBERED = 32;

/** What a CLI printed for its version. */
export interface CliVersion {
  /** The first `major.minor.patch` it printed on stdout, or undefined when none (or no answer within the probe's deadline). */
  readonly version: string | undefined;
  /**
   * What it printed (stdout, else the tail of stderr), for a message when no version was read;
   * `"(no answer within 10000 ms)"` when it gave none within {@link VERSION_PROBE_TIMEOUT_MS}.
   */
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
  /**
   * npm packages whose binary the CLI may be: when the executable (`command` resolved as a run
   * resolves it, then its symbolic links) is one of them, its version is that package's
   * `package.json` version ({@link packageBinaryVersion}) and no process is started, as with
   * `installed`. Absent or no match: asked.
   */
  readonly packages?: readonly CliPackageBinary[];
}

/** A version the probe found, with the means to forget it (see {@link probeCliVersion}). */
export interface ProbedCliVersion extends CliVersion {
  /** True when the version came from running the CLI (`args`), false when it is the probe's `installed`. */
  readonly asked: boolean;
  /** Forgets this answer, if it is still the one remembered: the next caller asks the CLI again. */
  forget(): void;
}

/** A probe's answer; `timedOut` when it gave none within {@link VERSION_PROBE_TIMEOUT_MS}. */
type Answer = CliVersion & { readonly timedOut?: true };

/** One binary's answer, asked or being asked, shared by its concurrent callers. */
interface Remembered {
  readonly answer: Promise<Answer>;
  /** Ends the probe's process (its answer then rejects with the reason). */
  readonly stop: AbortController;
  /** Callers waiting for the answer. */
  waiting: number;
  settled: boolean;
}

const remembered = new Map<string, Remembered>();

/**
 * The version a CLI prints ({@link parseVersion}: on stdout, else stderr), or the one its probe
 * says is installed (`installed`: nothing is started). Asked once per binary, working directory and
 * process: the answer is remembered under the working directory and the resolved path, size and
 * modification time of the executable, so a binary replaced in place is asked again (a version
 * manager's shim is not: the caller confirms a remembered answer with what the started CLI
 * reports of itself, see `requireCliVersion`). Concurrent callers share one probe.
 *
 * A probe with no answer within {@link VERSION_PROBE_TIMEOUT_MS} reads as no version (`version`
 * undefined, `output` saying so) and is not remembered. An abort of `signal` rejects at once; the
 * probe's process is ended first (and waited for, at most its kill grace of 1 s) unless another
 * caller still waits for its answer. A probe that failed is not remembered.
 *
 * @throws DriverError with op `"spawn"` (`NOT_FOUND`, `PERMISSION`, ...) when the executable cannot
 * be started, as a run would; `signal.reason` when aborted.
 */
export async function cliVersion(probe: CliVersionProbe, signal: AbortSignal): Promise<CliVersion> {
  const { version, output } = await probeCliVersion(probe, signal);
  return { version, output };
}

/**
 * {@link cliVersion}, with whether the version came from running the CLI and a way to forget the
 * remembered answer (a refusal, or one the started CLI contradicts).
 *
 * @throws like {@link cliVersion}.
 */
export async function probeCliVersion(probe: CliVersionProbe, signal: AbortSignal): Promise<ProbedCliVersion> {
  signal.throwIfAborted();
  if (probe.installed !== undefined) {
    return { version: parseVersion(probe.installed), output: probe.installed, asked: false, forget: () => undefined };
  }
  const path = await resolveExecutable(probe.command, {
    device: probe.device,
    path: probe.env["PATH"] ?? process.env["PATH"] ?? "",
    ...(probe.cwd !== undefined ? { cwd: probe.cwd } : {}),
  });
  const packaged = probe.packages === undefined ? undefined : packageBinaryVersion(path, probe.packages);
  if (packaged !== undefined) return { version: parseVersion(packaged), output: packaged, asked: false, forget: () => undefined };
  const file = await stat(path);
  signal.throwIfAborted();
  // The working directory too: a version manager's shim picks the CLI by it (asdf, mise, volta).
  const key = `${path}\0${file.size}\0${file.mtimeMs}\0${probe.cwd ?? process.cwd()}\0${probe.args.join("\0")}`;
  const entry = remembered.get(key) ?? start(key, probe, path);
  const forget = (): void => {
    if (remembered.get(key) === entry) remembered.delete(key);
  };
  entry.waiting++;
  try {
    const { version, output } = await raceAbort(entry.answer, signal);
    return { version, output, asked: true, forget };
  } catch (error) {
    // The last caller to give up ends the probe: no process outlives every caller's verdict.
    if (signal.aborted && entry.waiting === 1 && !entry.settled) {
      forget();
      entry.stop.abort(signal.reason);
      await entry.answer.catch(() => undefined);
    }
    throw error;
  } finally {
    entry.waiting--;
  }
}

/** Forgets every remembered version (for tests that replace a binary within one mtime tick). */
export function forgetCliVersions(): void {
  remembered.clear();
}

function start(key: string, probe: CliVersionProbe, path: string): Remembered {
  const stop = new AbortController();
  const entry: Remembered = { answer: ask(probe, path, stop.signal), stop, waiting: 0, settled: false };
  remembered.set(key, entry);
  if (remembered.size > MAX_REMEMBERED) remembered.delete(remembered.keys().next().value as string);
  const settle = (): void => {
    entry.settled = true;
  };
  entry.answer.then(settle, settle);
  entry.answer.then(
    // No answer in time is not remembered: the next run asks again.
    (answer) => {
      if (answer.timedOut && remembered.get(key) === entry) remembered.delete(key);
    },
    () => {
      if (remembered.get(key) === entry) remembered.delete(key);
    },
  );
  return entry;
}

async function ask(probe: CliVersionProbe, path: string, signal: AbortSignal): Promise<Answer> {
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
    try {
      await withDeadline(child, child.exited, VERSION_PROBE_TIMEOUT_MS, signal, probe.args);
    } catch (error) {
      if (signal.aborted || findError(error, DriverError)?.code !== ErrCode.Timeout) throw error;
      return { version: undefined, output: `(no answer within ${VERSION_PROBE_TIMEOUT_MS} ms)`, timedOut: true };
    }
    const stdout = child.takeOutput().stdout;
    const stderr = child.stderrTail();
    return { version: parseVersion(stdout) ?? parseVersion(stderr), output: stdout.trim() || stderr };
  } finally {
    await child.close();
  }
}
