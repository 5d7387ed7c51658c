import type { DriverDescriptor } from "../../spi/descriptor.js";
import type { Driver, DriverSink } from "../../spi/driver.js";
import type { DriverRequest } from "../../spi/request.js";
import type { DriverFailure, DriverResponse, TranscriptItem, Usage } from "../../spi/response.js";
import { assertPolicySupported } from "../../policy/assert-policy-supported.js";
import { StructuredOutputUnsupportedError } from "../../errors/structured-output-unsupported-error.js";
import { HumanDecisionModeUnsupportedError } from "../../errors/human-decision-mode-unsupported-error.js";
import { PolicyCapabilityUnsupportedError } from "../../errors/policy-capability-unsupported-error.js";
import { mergeChildEnv } from "../../process/child-env.js";
import { launchSecrets } from "../../process/launch-secrets.js";
import { spawnCli } from "../../process/spawn-cli.js";
import type { CliProcess } from "../../process/cli-process.js";
import type { ExitInfo } from "../../process/exit-info.js";
import { captureConfig } from "../config/capture-config.js";
import { graceMs, spawnLimits, type CommonDriverConfig } from "../config/common-config.js";
import { ProcessPool, type PooledProcess } from "../pool/process-pool.js";
import { reportEnforcement, type EnforcementRule } from "../policy/report-enforcement.js";
import { oneShotTurn, type OneShotTurnOptions } from "./one-shot-turn.js";
import { responseExit } from "../cancel/response-exit.js";
import { describeExit } from "../cancel/exit-description.js";

/** What one run of a {@link OneShotCliDriver} is given: the process spawned for it and the run's inputs. */
export interface OneShotTurnContext<C extends CommonDriverConfig> {
  /** The CLI process that serves only this run (its stdin still open). */
  readonly proc: CliProcess;
  readonly request: DriverRequest;
  /** The run's sink (not paused by the stall watchdog; `begin` is given the one that is). */
  readonly sink: DriverSink;
  /** The driver's checked config. */
  readonly config: C;
}

/**
 * How a driver reads one run of its CLI: {@link OneShotTurnOptions.begin} writes the input and
 * returns the handler of each stdout JSON object (true at the terminal line),
 * {@link OneShotTurnOptions.end} runs once the lines end, and {@link finish} makes the outcome.
 */
export interface OneShotTurnHandler extends Pick<OneShotTurnOptions, "begin" | "end"> {
  /**
   * The run's outcome once the process exited (called only when the run was not aborted or
   * stalled). An outcome without a failure from a process that exited with a non-zero code, or
   * died by a signal before its terminal line, becomes an `agent_error` anyway (see {@link OneShotCliDriver}).
   */
  finish(exit: ExitInfo): OneShotOutcome;
}

/** What a driver read from one run; {@link OneShotCliDriver} makes the `DriverResponse` of it. */
export interface OneShotOutcome {
  /** Final assistant text. */
  readonly text: string;
  /** The run's transcript after the user's prompt (the driver prepends the prompt). */
  readonly transcript: readonly TranscriptItem[];
  /** The model the CLI reported; left out of the response when empty. */
  readonly model?: string | undefined;
  /** The usage the CLI reported, if any. */
  readonly usage?: Usage | undefined;
  /** Set for a business failure; the response then has no checkpoint. */
  readonly failure?: DriverFailure | undefined;
  /** The CLI's session (chat) id; without a failure it becomes the response's `checkpoint.resumeId`. */
  readonly resumeId?: string | undefined;
}

/** What a {@link OneShotCliDriver} needs to know of its CLI. */
export interface OneShotCliDriverPlan<C extends CommonDriverConfig> {
  /** The driver's descriptor; its `type` is the device in spawn errors, stalls and refusals. */
  readonly descriptor: DriverDescriptor;
  /** The driver's config check (built on `validateDriverConfig`), captured as `captureConfig` does. */
  readonly validate: (config: C | undefined) => C;
  /** The executable when `config.command` is unset (a name searched on `PATH`). */
  readonly command: string;
  /** Host variables the CLI inherits unless `config.inheritEnv` says otherwise (`mergeChildEnv`'s `defaultInherit`). */
  readonly inheritedEnv: readonly string[];
  /** Why a run with an `outputSchema` is refused (the `StructuredOutputUnsupportedError` reason). */
  readonly outputSchemaRefusal: string;
  /**
   * The argv of one run (the prompt goes on stdin, never in it). Called in the spawn queue; may
   * throw a typed refusal, which rejects the run before anything is spawned.
   */
  args(config: C, request: DriverRequest): string[];
  /** Environment entries layered over `config.env` and `request.env` for one run. Default none. */
  env?(request: DriverRequest): Readonly<Record<string, string | undefined>> | undefined;
  /**
   * How the driver enforces each explicitly set policy field (see `reportEnforcement`); the
   * response's `enforcement` is made of it. A field it does not enforce (`notEnforced` without
   * `bestEffort`, or `undefined`), and every explicitly set field when the plan has no rule, is
   * refused before launch: `PolicyCapabilityUnsupportedError` for `sandbox`, `webSearch` and
   * `browser`, `HumanDecisionModeUnsupportedError` for an approval mode, each with the rule's
   * reason. Declare the rule for every value the descriptor accepts.
   */
  readonly enforcement?: EnforcementRule;
  /** Starts reading one run on its freshly spawned process. */
  startTurn(context: OneShotTurnContext<C>): OneShotTurnHandler;
}

/**
 * The frame of a driver whose every run spawns its own print-mode CLI process (no process reuse):
 * a one-shot stream-json CLI such as Cursor's or CodeBuddy's. A driver extends it with its
 * {@link OneShotCliDriverPlan} and keeps only its protocol translation.
 *
 * - The constructor never throws: a bad config is captured (`captureConfig`) and refused by
 *   {@link validateConfig}, which every run calls first.
 * - {@link run}: rejects an aborted `signal`, a refused config, a policy the descriptor does not
 *   support (`assertPolicySupported`), any `outputSchema` (`StructuredOutputUnsupportedError`) and
 *   an explicitly set policy value `plan.enforcement` does not enforce (or any, without a rule);
 *   spawns `config.command ?? plan.command` with `plan.args(config, request)` in `request.cwd ??
 *   config.cwd ?? process.cwd()`, the environment of `mergeChildEnv` (`config.inheritEnv` or
 *   `plan.inheritedEnv`, then `config.env`, `request.env`, `plan.env(request)`), the common spawn
 *   limits and at most `maxConcurrentSpawns` spawns at once; emits a `process` `spawn` event; runs
 *   the turn with `oneShotTurn` (stall watchdog from `stallTimeoutMs`, SIGTERM then SIGKILL after
 *   `killGraceMs` on abort); and makes the response from the driver's {@link OneShotOutcome}: the
 *   user's prompt first in the transcript, the raw output, the exit, the `enforcement` of
 *   `plan.enforcement`, and a checkpoint only when there is a session id and no failure.
 * - A process that exited with a non-zero code, or died by a signal the SDK did not send (before
 *   the terminal line), is an `agent_error` failure with `details.exitCode`, `details.exitSignal`
 *   and `details.stderrTail` even when the driver's outcome has no failure: a crash is never a
 *   success.
 * - {@link close} ends every process of the driver; idempotent.
 */
export class OneShotCliDriver<C extends CommonDriverConfig> implements Driver, AsyncDisposable {
  readonly descriptor: DriverDescriptor;
  /** The checked, frozen config (a frozen empty one when it was refused). */
  readonly config: C;
  readonly #plan: OneShotCliDriverPlan<C>;
  readonly #validate: () => void;
  readonly #pool: ProcessPool<PooledProcess>;

  constructor(plan: OneShotCliDriverPlan<C>, config: C | undefined) {
    const captured = captureConfig(plan.validate, config);
    this.descriptor = plan.descriptor;
    this.config = captured.config;
    this.#plan = plan;
    this.#validate = captured.validate;
    this.#pool = new ProcessPool(this.config);
  }

  /** The working directory of a run without `request.cwd`: the config's `cwd` (undefined: `process.cwd()`). */
  get cwd(): string | undefined {
    return this.config.cwd;
  }

  /** @throws InvalidDriverConfigError for a config the driver cannot use. */
  validateConfig(): void {
    this.#validate();
  }

  /**
   * Runs one prompt on a process of its own (see {@link OneShotCliDriver}).
   * @throws the abort reason; InvalidDriverConfigError; PolicyCapabilityUnsupportedError /
   * HumanDecisionModeUnsupportedError (also for a value `plan.enforcement` does not enforce);
   * StructuredOutputUnsupportedError; what `plan.args` throws; DriverError for a spawn failure, a
   * stall (`TIMEOUT`) or `FORCE_KILLED`.
   */
  async run(request: DriverRequest, sink: DriverSink, signal: AbortSignal): Promise<DriverResponse> {
    signal.throwIfAborted();
    this.validateConfig();
    assertPolicySupported(this.descriptor, request.policy);
    const plan = this.#plan;
    const device = this.descriptor.type;
    if (request.outputSchema) throw new StructuredOutputUnsupportedError(device, plan.outputSchemaRefusal);
    refuseUnenforced(device, request, plan.enforcement);
    const env = mergeChildEnv({
      inheritEnv: this.config.inheritEnv,
      defaultInherit: plan.inheritedEnv,
      layers: [this.config.env, request.env, plan.env?.(request)],
    });
    const proc = await this.#pool.spawn(() =>
      spawnCli({
        command: this.config.command ?? plan.command,
        args: plan.args(this.config, request),
        cwd: request.cwd ?? this.config.cwd ?? process.cwd(),
        env,
        device,
        ...spawnLimits(this.config),
        // The credentials the run hands the CLI read [redacted] in result.raw() and the stderr tail.
        redactRaw: launchSecrets(env, request.mcpServers),
      }),
    );
    sink.emit({ type: "process", kind: "spawn", pid: proc.pid });
    return this.#pool.serve(proc, () => this.#turn(proc, request, sink, signal));
  }

  /** Ends every process of this driver. Idempotent. */
  close(): Promise<void> {
    return this.#pool.close();
  }

  /** Same as {@link close}. */
  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }

  async #turn(proc: CliProcess, request: DriverRequest, sink: DriverSink, signal: AbortSignal): Promise<DriverResponse> {
    const handler = this.#plan.startTurn({ proc, request, sink, config: this.config });
    let terminal = false;
    // No output for stallTimeoutMs ends the run like a cancel, with a TIMEOUT verdict.
    const exit = await oneShotTurn(proc, sink, signal, {
      device: this.descriptor.type,
      stallTimeoutMs: this.config.stallTimeoutMs,
      graceMs: graceMs(this.config),
      begin: (guarded) => {
        const accept = handler.begin(guarded);
        return (value, text) => (terminal = accept(value, text));
      },
      end: () => handler.end?.(),
    });
    const outcome = handler.finish(exit);
    const failure = outcome.failure ?? crashFailure(this.descriptor.type, exit, terminal, proc.stderrTail());
    return {
      text: outcome.text,
      transcript: [{ kind: "user", text: request.prompt }, ...outcome.transcript],
      raw: proc.takeOutput(),
      ...(outcome.model ? { model: outcome.model } : {}),
      ...(outcome.usage ? { usage: outcome.usage } : {}),
      ...(failure ? { failure } : outcome.resumeId ? { checkpoint: { resumeId: outcome.resumeId } } : {}),
      enforcement: this.#plan.enforcement ? reportEnforcement(request.policy, this.#plan.enforcement) : [],
      exit: responseExit(exit),
    };
  }
}

/**
 * The failure of a process that claimed nothing went wrong: a non-zero exit code, or a signal
 * before the terminal line (after it, the signal is the SDK's end of a CLI that did not exit).
 */
function crashFailure(device: string, exit: ExitInfo, terminal: boolean, stderrTail: string): DriverFailure | undefined {
  const crashed = (exit.code !== null && exit.code !== 0) || (exit.signal !== null && !terminal);
  if (!crashed) return undefined;
  const how = describeExit({ exitCode: exit.code, exitSignal: exit.signal, ...(exit.terminated === true ? { endedBySdk: true } : {}) });
  return {
    reason: "agent_error",
    message: `${device} exited (${how}) ${terminal ? "after" : "without"} its terminal line${stderrTail ? `: ${stderrTail}` : ""}`,
    details: { exitCode: exit.code, exitSignal: exit.signal, stderrTail },
  };
}

/** The reason reported for every explicitly set field of a plan without an enforcement rule. */
const NO_RULE = "the driver declares no enforcement rule";

/**
 * Refuses, before launch, each explicitly set policy value of `request` that `rule` does not
 * enforce (`notEnforced` without `bestEffort`, or `undefined`), every such value without a rule:
 * a run the SDK could only fail afterwards (`policy_violation`) is not started.
 */
function refuseUnenforced(device: string, request: DriverRequest, rule: EnforcementRule | undefined): void {
  for (const entry of reportEnforcement(request.policy, rule ?? (() => ({ notEnforced: NO_RULE })))) {
    if (entry.enforced || entry.bestEffort === true) continue;
    if (entry.field.startsWith("approvals."))
      throw new HumanDecisionModeUnsupportedError(device, entry.field.slice("approvals.".length), entry.value, entry.detail);
    throw new PolicyCapabilityUnsupportedError(device, entry.field, entry.value, entry.detail);
  }
}
