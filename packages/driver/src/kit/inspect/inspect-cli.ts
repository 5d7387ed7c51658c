import { DriverError, ErrCode, findError } from "@adaptor/errors";
import type { DriverDescriptor } from "../../spi/descriptor.js";
import type { DriverInspection, InspectCheck, InspectCommands, InspectModels } from "../../spi/inspect.js";
import type { CliProcess } from "../../process/cli-process.js";
import { resolveExecutable } from "../../process/resolve-executable.js";
import { spawnCli } from "../../process/spawn-cli.js";
import { isVersion, versionFloorRefusal, type VersionFloor } from "../version-floor/floor.js";

/** Default deadline of one inspect probe, in ms. */
export const DEFAULT_PROBE_TIMEOUT_MS = 30_000;

/** The output of a finished probe command. */
export interface ProbeOutput {
  /** Exit code, or null when a signal ended it. */
  readonly exitCode: number | null;
  /** stdout, UTF-8 (at most 1 MiB, its tail). */
  readonly stdout: string;
  /** The tail of stderr, terminal escape codes stripped (at most 4 KiB); `""` when it printed none. */
  readonly stderr: string;
}

/** What a driver's own probes may use. */
export interface ProbeContext {
  /** Absolute path of the executable. */
  readonly path: string;
  /** The environment the CLI would get for a run. */
  readonly env: Readonly<Record<string, string | undefined>>;
  /** Working directory for probes, when configured. */
  readonly cwd?: string;
  /** Aborted when the host aborts or a probe's deadline passes. */
  readonly signal: AbortSignal;
  /** Runs the executable with `args` to its exit (stdin closed) within the deadline. */
  run(args: readonly string[]): Promise<ProbeOutput>;
  /** Starts the executable with `args` for an interactive probe; the caller closes it. */
  spawn(args: readonly string[]): Promise<CliProcess>;
}

/** What a driver's probes found about credentials and models; failures go to `failed`. */
export interface ProbeFindings {
  readonly authentication: DriverInspection["authentication"];
  readonly models: InspectModels;
  /** The slash commands, for a driver whose CLI lists them. */
  readonly commands?: InspectCommands;
  readonly failed: readonly InspectCheck[];
}

/** What {@link inspectCli} needs to know about a driver. */
export interface CliInspectionPlan {
  readonly descriptor: DriverDescriptor;
  /** Checks the driver configuration (the driver's `validateConfig`). */
  readonly validate: () => void;
  /** The executable as configured. */
  readonly command: string;
  /** The environment the CLI would get for a run. */
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly cwd?: string;
  /** The version the driver is pinned to, for a driver without a {@link CliInspectionPlan.versionFloor}. */
  readonly pinnedVersion?: string;
  /**
   * The versions the driver declares (its pinned one and the oldest a run is not refused on): a
   * version older than `minimum` fails the version check as `version_unsupported`, with the
   * reason of the refusal a run would give. Its `pinned` is the pinned version.
   */
  readonly versionFloor?: VersionFloor;
  /** Arguments that print the version, e.g. `["--version"]`. */
  readonly versionArgs: readonly string[];
  /** Whether the driver hands skills to the CLI. */
  readonly skills: boolean;
  /** Deadline of each probe in ms. Default {@link DEFAULT_PROBE_TIMEOUT_MS}. */
  readonly probeTimeoutMs?: number;
  /** The driver's own probes (credentials, models), run once the executable answered its version. */
  readonly probe: (context: ProbeContext) => Promise<ProbeFindings>;
  readonly signal?: AbortSignal;
}

/** What a check that did not run says: `authentication.reason`, `models.reason`. */
export const NOT_PROBED = "not probed: an earlier check failed";

/**
 * A `major.minor.patch[-prerelease]` (an optional leading `v`) that is not part of a longer dotted
 * number such as an IP address.
 */
const SEMVER = /(?<![\w.])v?(\d+\.\d+\.\d+(?:-[0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*)?)(?![.\d])/;

/**
 * The version a CLI printed: the first `major.minor.patch` of the LAST line of `text` that holds
 * one (a wrapper's or version manager's banner comes before the CLI's own line), an optional `v`
 * dropped; never a piece of a longer dotted number (`10.20.30.40`). Undefined when no line holds one.
 */
export function parseVersion(text: string): string | undefined {
  const lines = text.split(/\r?\n/);
  for (let i = lines.length - 1; i >= 0; i--) {
    const found = SEMVER.exec(lines[i]!)?.[1];
    if (found !== undefined) return found;
  }
  return undefined;
}

/** The typed reason of a spawn failure. */
function spawnReason(error: unknown): InspectCheck["reason"] {
  const code = findError(error, DriverError)?.code;
  return code === ErrCode.NotFound ? "executable_not_found" : "executable_not_runnable";
}

/**
 * The shared steps of a CLI driver's `inspect()`: configuration, executable, version against the
 * driver's floor (older: `version_unsupported`, what a run would refuse) and the pinned one (else
 * `version_mismatch`), then the driver's own probes. Nothing is thrown except `signal.reason`:
 * every failure is a check in `failed`. One skip rule: once the configuration, the executable or
 * the version check failed (including a version that differs from the pinned one), no later probe
 * runs, and `authentication` and `models` say {@link NOT_PROBED}. No model call is made by these
 * steps.
 */
export async function inspectCli(plan: CliInspectionPlan): Promise<DriverInspection> {
  const { descriptor, signal } = plan;
  signal?.throwIfAborted();
  const failed: InspectCheck[] = [];
  const mcp = { supported: descriptor.capabilities.mcp.transports.length > 0, transports: descriptor.capabilities.mcp.transports };
  const base = {
    driver: descriptor.type,
    mcp,
    skills: { supported: plan.skills },
  };
  const models: InspectModels = { supported: false, reason: NOT_PROBED };
  const authentication = { present: false, reason: NOT_PROBED };
  const finish = (rest: Omit<DriverInspection, "driver" | "mcp" | "skills" | "failed" | "ok">): DriverInspection => ({
    ...base,
    ...rest,
    failed,
    ok: failed.length === 0,
  });
  try {
    plan.validate();
  } catch (error) {
    failed.push({ check: "config", reason: "invalid_config", message: error instanceof Error ? error.message : String(error) });
    return finish({ executable: { command: plan.command, found: false }, version: versionOf(plan, undefined), authentication, models });
  }
  let path: string;
  try {
    path = await resolveExecutable(plan.command, {
      path: plan.env["PATH"] ?? "",
      ...(plan.cwd !== undefined ? { cwd: plan.cwd } : {}),
      device: descriptor.type,
    });
  } catch (error) {
    failed.push({ check: "executable", reason: spawnReason(error), message: error instanceof Error ? error.message : String(error) });
    return finish({ executable: { command: plan.command, found: false }, version: versionOf(plan, undefined), authentication, models });
  }
  const executable = { command: plan.command, path, found: true };
  const timeoutMs = plan.probeTimeoutMs ?? DEFAULT_PROBE_TIMEOUT_MS;
  const context = probeContext(plan, path, timeoutMs);

  let found: string | undefined;
  try {
    const output = await context.run(plan.versionArgs);
    found = parseVersion(output.stdout);
    if (found === undefined) {
      const said = output.stderr ? `: ${output.stderr}` : "";
      failed.push({
        check: "version",
        reason: "version_unreadable",
        message: `${plan.command} ${plan.versionArgs.join(" ")} printed no version (exit ${output.exitCode})${said}`,
      });
      return finish({ executable, version: versionOf(plan, undefined), authentication, models });
    }
  } catch (error) {
    signal?.throwIfAborted();
    failed.push(probeFailure("version", error));
    return finish({ executable, version: versionOf(plan, undefined), authentication, models });
  }
  const version = versionOf(plan, found);
  const refusal = plan.versionFloor && isVersion(found) ? versionFloorRefusal(plan.versionFloor, found) : undefined;
  if (refusal) {
    failed.push({ check: "version", reason: "version_unsupported", message: refusal.reason });
    return finish({ executable, version, authentication, models });
  }
  if (version.matches === false) {
    failed.push({
      check: "version",
      reason: "version_mismatch",
      message: `found ${found}, the driver is pinned to and tested against ${version.pinned}`,
    });
    // Probing another version would only add failures of its own: one skip rule for every check.
    return finish({ executable, version, authentication, models });
  }
  let findings: ProbeFindings;
  try {
    findings = await plan.probe(context);
  } catch (error) {
    signal?.throwIfAborted();
    failed.push(probeFailure("authentication", error));
    return finish({ executable, version, authentication: { present: false }, models });
  }
  failed.push(...findings.failed);
  return finish({
    executable,
    version,
    authentication: findings.authentication,
    models: findings.models,
    ...(findings.commands ? { commands: findings.commands } : {}),
  });
}

function versionOf(plan: CliInspectionPlan, found: string | undefined): DriverInspection["version"] {
  const pinned = plan.pinnedVersion ?? plan.versionFloor?.pinned;
  return {
    ...(found !== undefined ? { found } : {}),
    ...(pinned !== undefined ? { pinned } : {}),
    ...(plan.versionFloor ? { minimum: plan.versionFloor.minimum } : {}),
    ...(found !== undefined && pinned !== undefined ? { matches: found === pinned } : {}),
  };
}

/**
 * A failed probe as a check: a timeout, a spawn failure, or anything else.
 * @param stderr - the tail of what the probe process printed on stderr (escape codes stripped,
 * e.g. `CliProcess.stderrTail()`); appended to the message when not empty, since the CLI's own
 * words usually say what is wrong.
 */
export function probeFailure(check: InspectCheck["check"], error: unknown, stderr = ""): InspectCheck {
  const message = (error instanceof Error ? error.message : String(error)) + (stderr ? `; stderr: ${stderr}` : "");
  if (findError(error, DriverError)?.code === ErrCode.Timeout) return { check, reason: "probe_timeout", message };
  if (findError(error, DriverError)?.op === "spawn") return { check, reason: spawnReason(error), message };
  return { check, reason: "probe_failed", message };
}

function probeContext(plan: CliInspectionPlan, path: string, timeoutMs: number): ProbeContext {
  const spawnProbe = (args: readonly string[]): Promise<CliProcess> =>
    spawnCli({
      command: path,
      args,
      env: plan.env,
      device: plan.descriptor.type,
      killGraceMs: 1000,
      ...(plan.cwd !== undefined ? { cwd: plan.cwd } : {}),
    });
  const signal = plan.signal ?? new AbortController().signal;
  return {
    path,
    env: plan.env,
    ...(plan.cwd !== undefined ? { cwd: plan.cwd } : {}),
    signal,
    spawn: spawnProbe,
    async run(args) {
      const child = await spawnProbe(args);
      try {
        child.closeStdin();
        const ended = await withDeadline(child, child.exited, timeoutMs, signal, args);
        return { exitCode: ended.code, stdout: child.takeOutput().stdout, stderr: child.stderrTail() };
      } finally {
        await child.close();
      }
    },
  };
}

/**
 * `promise`, or a DriverError coded `TIMEOUT` once `timeoutMs` passed (`signal.reason` when
 * aborted); either way the probe process is terminated.
 */
export async function withDeadline<T>(
  child: CliProcess,
  promise: Promise<T>,
  timeoutMs: number,
  signal: AbortSignal,
  args: readonly string[],
): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  let onAbort: (() => void) | undefined;
  try {
    return await Promise.race([
      promise,
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => {
          void child.terminate();
          reject(
            new DriverError({
              op: "inspect",
              device: `${child.device} ${args.join(" ")}`,
              code: ErrCode.Timeout,
              cause: `no answer within ${timeoutMs} ms`,
            }),
          );
        }, timeoutMs);
        onAbort = () => {
          void child.terminate();
          reject(signal.reason);
        };
        if (signal.aborted) onAbort();
        else signal.addEventListener("abort", onAbort, { once: true });
      }),
    ]);
  } finally {
    clearTimeout(timer);
    if (onAbort) signal.removeEventListener("abort", onAbort);
  }
}
