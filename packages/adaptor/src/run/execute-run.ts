import { checkPolicyDomain } from "../prepare/check-policy.js";
import { AdaptorError, DriverError, findError, walkError } from "@adaptor/errors";
import type {
  ApprovalAsk,
  HookAsk,
  TurnControl,
  Driver,
  DriverEvent,
  DriverFailure,
  DriverRequest,
  DriverResponse,
  DriverDescriptor,
  DriverSink,
  PolicyEnforcement,
  RunPolicy,
} from "@adaptor/driver";
import { FeatureUnsupportedError, MCP_CONNECT_OP } from "@adaptor/driver";
import { ApprovalBroker } from "./approval-broker.js";
import { resolveApprovalSettings } from "../approval/approval-settings.js";
import { RunError } from "../errors/run-error.js";
import { ThreadSessionError } from "../errors/thread-session-error.js";
import { ThreadCommitError } from "../errors/thread-commit-error.js";
import type { EventQueue } from "../events/event-queue.js";
import { ActiveBudget } from "./active-budget.js";
import {
  asDriverRejection,
  checkDriverResponse,
  driverStopMs,
  ForeignEvents,
  PermissionClock,
  settleAfterAbort,
  UnaskedTools,
  withoutUnaskedInterrupt,
  withUnreported,
} from "./driver-contract.js";
import { refuseThreadOnlyOptions } from "../options/thread-only-options.js";
import type { TurnControls } from "./turn-controls.js";
import { RunTally } from "./run-budget.js";
import { RunRecord } from "./run-record.js";
import { boundedAsk, withBoundedValues } from "./bounded-values.js";
import type { PendingImage } from "../prompt/prompt.js";
import { Preparation } from "../prepare/preparation.js";
import { prepare } from "../prepare/prepare-run.js";
import { Result, type ResultInit } from "../result/result.js";
import type { RunOptions } from "../options/run-options.js";
import type { ThreadContext } from "../thread/thread-context.js";
import { ThreadTurn } from "../thread/thread-turn.js";
import { checkThreadCapabilities } from "../thread/check-thread-capabilities.js";
import { checkRewindable, TurnFiles } from "../file-checkpoints/turn-files.js";
import { HOST_TOOL_SERVER_NAME, type RunToolBinding } from "../tools/agent-tools.js";
import type { PendingApproval } from "@adaptor/threadstore";
import { TurnSuspension } from "../suspend/turn-suspension.js";
import type { Context } from "@opentelemetry/api";
import { RunTelemetry } from "../telemetry/run-telemetry.js";
import { fallback, HookRunner } from "../hooks/hook-runner.js";
import type { TelemetryOptions } from "../telemetry/telemetry-options.js";

/** Everything one run needs; built by the Agent. */
export interface RunSetup {
  readonly runId: string;
  readonly driver: Driver;
  /** The prompt's text. */
  readonly prompt: string;
  /** The prompt's images, not yet read (absent: none). */
  readonly images?: readonly PendingImage[];
  readonly options: RunOptions;
  readonly queue: EventQueue;
  /** Aborted by cancel, the caller's signal, the timeout, or agent close; its reason is the verdict's cause. */
  readonly controller: AbortController;
  /** Where the stream's turn requests (interrupt, send, setModel) go; ended with the run. */
  readonly controls?: TurnControls;
  /** Present for thread runs. */
  readonly thread?: ThreadContext;
  /** True when the caller drains the events unread (`run()`): nobody answers an `approval-request` event. */
  readonly eventsDrained?: boolean;
  /** The agent's host tools for this run; absent when the agent has none. */
  readonly tools?: RunToolBinding | undefined;
  /** Where the run's spans go and the host context that is their parent. */
  readonly telemetry?: { readonly parent: Context; readonly options?: TelemetryOptions };
}

/** Abort reason used when the SDK itself ends a run as a business failure (approval fallback, budget). */
class BusinessStop extends AdaptorError {
  static override readonly brand: symbol = Symbol.for("adaptor.error.internal.BusinessStop");
}

/**
 * One run top to bottom (docs/design.md "One run, top to bottom"): pre-invocation checks, the
 * driver, response hooks, the verdict. Resolves a {@link Result}; rejects with a {@link RunError}
 * for a classified business failure (the driver's, or one the SDK decided: an approval fallback
 * that aborts, an approval nobody can answer, an exhausted active-execution budget, a handler that
 * never decided) and with an ordinary error, cause chain kept, for everything else. Always ends the
 * queue with `run-finished`.
 */
export async function executeRun(setup: RunSetup): Promise<Result> {
  const { runId, driver, queue, controller, options } = setup;
  const started = performance.now();
  const telemetry = setup.telemetry
    ? new RunTelemetry({
        runId,
        driver: driver.descriptor.type,
        model: options.model,
        threadKey: setup.thread?.key,
        prompt: setup.prompt,
        parent: setup.telemetry.parent,
        options: setup.telemetry.options,
      })
    : undefined;
  queue.push({ type: "run-started", driver: driver.descriptor.type, ...(options.model ? { model: options.model } : {}) });
  let stopped: DriverFailure | undefined;
  const stop = (failure: DriverFailure): void => {
    if (stopped || controller.signal.aborted) return;
    stopped = failure;
    controller.abort(new BusinessStop(failure.message));
  };
  let response: DriverResponse | undefined;
  // What the driver produced before its signal stopped it (a suspended turn's Result carries it).
  let partial: Partial<DriverResponse> | undefined;
  // The policy the latest driver call was given: a run the SDK stops still lists each of its fields.
  let calledPolicy: RunPolicy | undefined;
  let budget: ActiveBudget | undefined;
  const tally = options.budget ? new RunTally(options.budget, stop) : undefined;
  // What the events and approvals showed: the Result of a run the SDK stops before the driver answers.
  const record = new RunRecord(driver.descriptor.capabilities.budgets?.turns === true);
  let approvals: ApprovalBroker | undefined;
  // Once the run is cancelled, no pending or later approval can still be answered.
  const expireApprovals = (): void => approvals?.end("run cancelled");
  controller.signal.addEventListener("abort", expireApprovals, { once: true });
  let suspension: TurnSuspension | undefined;
  let hooks: HookRunner | undefined;
  try {
    // A mode the driver cannot honour is refused before the store or the CLI is touched.
    if (setup.thread) checkThreadCapabilities(driver.descriptor, setup.thread, driver.sessions !== undefined);
    // Suspended turns (docs/suspend.md): a resumed turn's own prompt and mode, the `suspend` option.
    suspension = await TurnSuspension.prepare({
      thread: setup.thread,
      prompt: setup.prompt,
      images: setup.images?.length ?? 0,
      options,
      queue,
      controller,
      descriptor: driver.descriptor,
    });
    const { thread, prompt } = suspension;
    if (!thread) refuseThreadOnlyOptions(options);
    // A resumed suspended turn runs in its stored mode.
    else if (thread !== setup.thread) checkThreadCapabilities(driver.descriptor, thread, driver.sessions !== undefined);
    // File checkpoints need a resume from an older checkpoint: refused before the lease is taken.
    if (thread && options.checkpointFiles) checkRewindable(driver.descriptor);
    const budgetMs = options.policy?.activeExecutionTimeoutMs;
    budget = budgetMs
      ? new ActiveBudget(budgetMs, () =>
          stop({
            reason: "active_execution_timeout",
            message: `active execution budget of ${budgetMs} ms exhausted`,
            details: { limitMs: budgetMs },
          }),
        )
      : undefined;
    // The policy's rules go to the broker now: a rule it cannot hold is refused as preparation would.
    if (options.policy !== undefined) checkPolicyDomain(driver.descriptor.type, options.policy);
    const broker = new ApprovalBroker({
      runId,
      queue,
      handler: options.onApproval,
      eventsRead: setup.eventsDrained !== true,
      settings: resolveApprovalSettings(options.policy?.approvals ?? undefined),
      permission: options.policy?.approvals?.permission,
      signal: controller.signal,
      onHandlerFailure: (error) => controller.abort(new AdaptorError("approval handler failed", { cause: error })),
      onFailure: stop,
      onWaiting: (waiting) => (waiting ? budget?.pause() : budget?.resume()),
      replay: suspension.replay,
      suspend: suspension.suspender,
      // A remembered allow would widen what a read-only run lets through without a person.
      rememberAllowRefused: options.policy?.sandbox === "read_only" ? 'policy.sandbox is "read_only"' : undefined,
      rules: options.policy?.approvals?.rules,
      interrupt: denyInterrupt(driver.descriptor, setup.controls, controller),
    });
    approvals = broker;
    // The permission mode the CLI applies, over the run's switches: each unasked call is judged by it.
    const permissionClock = new PermissionClock(options.policy?.approvals?.permission ?? undefined);
    // A switch to an auto mode is refused while the run holds a rule that mode would never consult.
    setup.controls?.holdRules(() => broker.heldRules);
    setup.controls?.onApprovalModes(
      (modes) => broker.setModes(modes),
      (permission, when) => permissionClock.switched(permission, when),
    );
    setup.controls?.onInterrupt(() => broker.interruptPending());
    if (controller.signal.aborted) broker.end("run cancelled");
    budget?.resume();
    const prep = await prepare(
      new Preparation({
        runId,
        driver,
        options,
        signal: controller.signal,
        prompt,
        images: setup.images,
        tools: setup.tools,
        approvals: broker,
        telemetry,
      }),
    );
    // The CLI's working directory, now known, places the asks that name no file or a relative one.
    broker.setWorkingDirectory(prep.request.cwd);
    // A hook that fails ends the run, as a failed approval handler does.
    hooks = options.hooks
      ? new HookRunner({
          hooks: options.hooks,
          native: prep.request.hooks ?? [],
          matchersApplied: prep.request.hookMatchers !== undefined,
          runId,
          driver: driver.descriptor.type,
          hostTools: setup.tools?.tools.map((tool) => tool.name) ?? [],
          signal: controller.signal,
          ...(options.hookTimeoutMs !== undefined ? { timeoutMs: options.hookTimeoutMs } : {}),
          onFailure: (error) => controller.abort(error),
        })
      : undefined;
    const runHooks = hooks;
    // Host-tool calls reach the hooks through the SDK's server, on a driver that takes them (the CLI's own hook path leaves them out).
    if (runHooks) prep.hostToolHooks = (ask) => runHooks.beforeHostToolCall(ask);
    let turn: ThreadTurn | undefined;
    try {
      if (thread) turn = await ThreadTurn.begin(thread, prep, queue, (lost) => controller.abort(lost));
      if (turn) await suspension.begin(turn, prep.request.cwd);
      // Before the driver starts and under the lease: the workspace as the turn found it.
      const files =
        thread && turn && options.checkpointFiles
          ? await TurnFiles.take({
              descriptor: driver.descriptor,
              key: thread.key,
              cwd: prep.request.cwd,
              options: options.checkpointFiles,
              before: turn.startedFrom,
              queue,
              signal: controller.signal,
            })
          : undefined;
      const callDriver = async (request: DriverRequest): Promise<DriverResponse> => {
        // An approval asked through this sink after its driver call settled reaches nobody: denied at once.
        let live = true;
        // The process serving this call (spawned or reused) and whether the driver reported its exit.
        let pid: number | undefined;
        let exitSeen = false;
        calledPolicy = request.policy;
        const unasked = new UnaskedTools(
          request.policy,
          driver.descriptor,
          setup.tools ? { name: HOST_TOOL_SERVER_NAME, tools: setup.tools.tools.map((tool) => tool.name) } : undefined,
          permissionClock,
          (toolName, input, toolKind) => broker.deniedBy(toolName, input, toolKind),
          () => broker.holdsDenyRule,
        );
        const foreign = new ForeignEvents();
        const sink: DriverSink = {
          emit: (emitted: DriverEvent) => {
            // Lifecycle events are the SDK's: a driver's own would contradict the verdict.
            if (!foreign.admit(emitted)) return;
            // A tool name and input are the model's: bounded once here (length, nesting depth), for every consumer below.
            const event = withBoundedValues(emitted);
            // The suspended call never ran: the CLI's rejection of it (it is told a deny as it is
            // ended) is not reported; the call stays open, as one a stopped run leaves.
            if (event.type === "tool-result" && event.id === suspension?.suspendedOn?.toolCallId) return;
            const notice = unasked.observe(event);
            if (event.type === "process") {
              if (event.kind === "spawn" && event.pid !== undefined) pid = event.pid;
              if (event.kind === "exit") exitSeen = true;
            } else if (event.type === "notice" && typeof event.data?.["pid"] === "number" && event.message === "process reused") {
              pid = event.data["pid"];
            }
            telemetry?.onEvent(event);
            setup.tools?.callIds.observe(event);
            // A host tool's call has one result on the stream: the host's, which came first.
            if (setup.tools?.callIds.folds(event) !== true) queue.push(event);
            tally?.observe(event);
            record.observe(event);
            runHooks?.observe(event);
            if (notice) queue.push(notice);
          },
          ready: () => queue.ready(),
          ruleDenies: (toolName: string, input: unknown) => broker.deniedBy(toolName, input) !== undefined,
          ...(setup.tools ? { hostBusy: () => setup.tools!.busy() } : {}),
          partial: (output) => {
            if (live) partial = output;
          },
          requestApproval: async (asked: ApprovalAsk) => {
            const ask = boundedAsk(asked);
            if (!live) return broker.refuse(ask, "after the driver returned");
            unasked.asked(ask);
            record.waiting();
            const decision = await (telemetry
              ? telemetry.approval(
                  ask,
                  () => broker.ask(ask),
                  () => broker.suspended(ask),
                )
              : broker.ask(ask));
            record.decided(ask, decision);
            return decision;
          },
          ...(runHooks && request.hooks?.length
            ? {
                hook: (ask: HookAsk) => (live ? runHooks.ask(ask) : Promise.resolve(fallback(ask.point, "the run has ended"))),
              }
            : {}),
          ...(setup.controls
            ? { attachControl: (control: TurnControl) => (live ? setup.controls!.attach(control) : () => undefined) }
            : {}),
        };
        const traceparent = telemetry?.traceparent();
        const tracestate = telemetry?.tracestate();
        const traced: DriverRequest = traceparent ? { ...request, traceparent, ...(tracestate ? { tracestate } : {}) } : request;
        telemetry?.driverCalled();
        let called: DriverResponse;
        try {
          // A driver that does not settle after the abort is left behind: the run still ends.
          const stopMs = driverStopMs(driver);
          const running = driver.run(traced, sink, controller.signal).catch((rejected: unknown) => {
            throw asDriverRejection(driver.descriptor.type, rejected, controller.signal.reason);
          });
          called = await settleAfterAbort(running, controller.signal, stopMs, () =>
            queue.push({
              type: "notice",
              kind: "lifecycle",
              message: "driver did not stop",
              data: { driver: driver.descriptor.type, waitedMs: stopMs, ...(pid !== undefined ? { pid } : {}) },
            }),
          );
        } finally {
          live = false;
          const refused = foreign.notice(driver.descriptor.type);
          if (refused) queue.push(refused);
        }
        // The process ended during the call: say so unless the driver did.
        if (called.exit && !exitSeen) queue.push(exitEvent(called.exit, pid));
        const [answered, unaskedInterrupt] = withoutUnaskedInterrupt(
          driver.descriptor.type,
          called,
          setup.controls?.interruptAsked === true,
        );
        if (unaskedInterrupt) queue.push(unaskedInterrupt);
        return checkDriverResponse(driver.descriptor.type, answered, request.policy, unasked.calls);
      };
      if (hooks) {
        await hooks.promptSubmitted(prompt);
        controller.signal.throwIfAborted();
      }
      response = await callDriver(prep.request);
      if (turn) response = await turn.afterDriver(prep.request, response, callDriver);
      // The agent stopped: observed hooks answer before the verdict (a failing one decides it).
      if (hooks && !response.failure && response.interrupted !== true && !controller.signal.aborted) {
        await hooks.stopped(response.text);
        controller.signal.throwIfAborted();
      }
      budget?.stop();
      broker.end("run ended");
      const overCost = response.failure ? undefined : tally?.costFailure(response.costUsd);
      if (overCost) response = { ...response, failure: overCost };
      // A CLI's own limit (e.g. claude's --max-turns) names its budget; the verdict gets the limit and use too.
      if (response.failure && tally) response = { ...response, failure: tally.complete(response.failure, response.costUsd) };
      if (!stopped) response = await prep.finish(response);
      if (turn && !stopped && !response.failure) {
        // A thread turn aborted after its driver finished (cancel, close, timeout, lost lease) writes
        // nothing, so its verdict is the abort, never a success whose checkpoint was not kept.
        controller.signal.throwIfAborted();
        // The lease goes with the commit's own write unless the suspension still works under it.
        // The workspace as the turn leaves it, still under the lease; without it a rewind across
        // this turn treats the next turn's starting snapshot (or the workspace then) as its end.
        await files?.ended(controller.signal).catch((error: unknown) => {
          if (controller.signal.aborted) throw error;
        });
        controller.signal.throwIfAborted();
        try {
          const written = await turn.commit(response, controller.signal, { releaseLease: !suspension.needsLeaseAfterCommit });
          await files?.committed(runId, prompt, written, controller.signal).catch((error: unknown) =>
            // The turn is committed; only its rewind point is missing (a later rewind across it says `diverged`).
            queue.push({
              type: "notice",
              kind: "lifecycle",
              message: "file checkpoint not recorded",
              data: { threadKey: written.key, error: error instanceof Error ? error.message : String(error) },
            }),
          );
        } catch (error) {
          // The turn ran and only its commit was refused: the error carries what it produced.
          if (error instanceof ThreadSessionError || error instanceof ThreadCommitError)
            throw error.withResult(toResult(runId, response, options.policy?.activeExecutionTimeoutMs, performance.now() - started));
          throw error;
        }
        await suspension.committed();
      }
    } finally {
      await turn?.end();
      await prep.cleanup();
    }
    if (stopped) throw controller.signal.reason;
    if (controller.signal.aborted && response.failure) throw controller.signal.reason;
    const result = toResult(runId, response, options.policy?.activeExecutionTimeoutMs, performance.now() - started);
    if (response.failure) throw runError(response.failure, result);
    queue.push({
      type: "run-finished",
      ok: true,
      ...(result.status === "interrupted" ? { interrupted: true as const } : {}),
      ...(result.usage ? { usage: result.usage } : {}),
    });
    telemetry?.end({ kind: "ok", usage: result.usage, costUsd: result.costUsd, model: result.model });
    return result;
  } catch (error) {
    budget?.stop();
    approvals?.end("run ended");
    const suspendedOn = suspension?.suspendedOn;
    if (suspendedOn) {
      // The turn suspended: however the CLI ended after that, the verdict is the suspension.
      // What ran before the question: the driver's partial output, else the text streamed.
      const before = response ?? { ...partial, text: partial?.text || record.text };
      const result = toResult(runId, before, options.policy?.activeExecutionTimeoutMs, performance.now() - started, suspendedOn);
      queue.push({ type: "run-finished", ok: true, suspended: true, ...(result.usage ? { usage: result.usage } : {}) });
      telemetry?.end({ kind: "ok", usage: result.usage, costUsd: result.costUsd, model: result.model });
      return result;
    }
    const verdict = stopped
      ? // The SDK's own stop reason adds nothing to the RunError; anything the driver wrapped around it does.
        runError(
          duringStartUp(stopped, error),
          toResult(
            runId,
            // The driver's report (its response's, else the one it gave as it stopped, completed
            // with what the run's events and approvals showed).
            withUnreported(
              response ?? record.complete(partial),
              calledPolicy,
              "the SDK stopped the run before the driver reported enforcing it",
            ),
            options.policy?.activeExecutionTimeoutMs,
            performance.now() - started,
          ),
          error instanceof BusinessStop ? undefined : error,
        )
      : error instanceof RunError || !controller.signal.aborted
        ? error
        : abortVerdict(suspension?.unansweredStoreCall ?? error, controller.signal);
    queue.push({
      type: "run-finished",
      ok: false,
      reason: verdict instanceof RunError ? verdict.reason : "error",
      message: verdict instanceof Error ? verdict.message : String(verdict),
      ...(verdict instanceof RunError && verdict.result.usage ? { usage: verdict.result.usage } : {}),
    });
    telemetry?.end(
      verdict instanceof RunError
        ? {
            kind: "business_failure",
            reason: verdict.reason,
            message: verdict.message,
            usage: verdict.result.usage,
            costUsd: verdict.result.costUsd,
            model: verdict.result.model,
          }
        : { kind: "error", error: verdict },
    );
    throw verdict;
  } finally {
    hooks?.end();
    setup.controls?.end();
    controller.signal.removeEventListener("abort", expireApprovals);
    queue.close();
  }
}

/**
 * How a deny that asks to end the turn (`deny(reason, { interrupt: true })`) reaches it: through the
 * run's turn controls, as `stream.interrupt()`. Refused (`FeatureUnsupportedError`, feature
 * `interrupt`) where the driver cannot interrupt a turn; an interrupt the CLI refuses ends the run
 * with its error (the host asked for the turn to stop).
 */
function denyInterrupt(
  descriptor: DriverDescriptor,
  controls: TurnControls | undefined,
  controller: AbortController,
): { refusal: () => Error | undefined; request: () => void } {
  return {
    refusal: () =>
      controls !== undefined && descriptor.capabilities.turnControl?.interrupt === true
        ? undefined
        : new FeatureUnsupportedError(
            descriptor.type,
            "interrupt",
            "its CLI cannot stop a turn: deny without interrupt, then cancel the run (stream.cancel() or the run's signal) to stop it",
          ),
    request: () => {
      controls?.request("interrupt", (control) => control.interrupt?.()).catch((error: unknown) => controller.abort(error));
    },
  };
}

/** The `process` `exit` event of an ended CLI process: `text` is `code <n>` or `signal <name>`. */
function exitEvent(exit: NonNullable<DriverResponse["exit"]>, pid: number | undefined): DriverEvent {
  const text = exit.signal !== null ? `signal ${exit.signal}` : `code ${String(exit.code)}`;
  return { type: "process", kind: "exit", text, ...(pid !== undefined ? { pid } : {}) };
}

/**
 * The SDK's stop as the verdict tells it: an active-execution budget that ran out while the CLI was
 * still starting the run's MCP servers (the driver rejected with its `mcp connect` error, which
 * stays the cause) says so, so the servers' state is not taken for the reason.
 */
function duringStartUp(failure: DriverFailure, error: unknown): DriverFailure {
  if (failure.reason !== "active_execution_timeout" || findError(error, DriverError)?.op !== MCP_CONNECT_OP) return failure;
  return { ...failure, message: `${failure.message} while starting MCP servers` };
}

function runError(failure: DriverFailure, result: Result, fallbackCause?: unknown): RunError {
  const { reason, message, details } = failure;
  const cause = "cause" in failure ? failure.cause : fallbackCause;
  return new RunError({ reason, message, result, ...(details ? { details } : {}), ...(cause !== undefined ? { cause } : {}) });
}

/** The driver's rejection when its chain carries the abort reason, else the reason itself. */
function abortVerdict(error: unknown, signal: AbortSignal): unknown {
  const reason: unknown = signal.reason;
  return walkError(error, (node) => node === reason) ? error : reason;
}

function toResult(
  runId: string,
  response: Partial<DriverResponse> | undefined,
  budgetMs: number | undefined,
  durationMs: number,
  pendingApproval?: PendingApproval,
): Result {
  // The active-execution budget is the SDK's own: the driver never sees it.
  const sdk: PolicyEnforcement[] = budgetMs
    ? [
        {
          field: "activeExecutionTimeoutMs",
          value: String(budgetMs),
          enforced: true,
          mechanisms: ["sdk"],
          detail: "the SDK's active-time budget",
        },
      ]
    : [];
  const fields: Omit<ResultInit, "transcript"> = {
    enforcement: [...(response?.enforcement ?? []), ...sdk],
    runId,
    model: response?.model,
    provider: response?.provider,
    text: response?.text ?? "",
    sessionId: response?.checkpoint?.resumeId,
    usage: response?.usage,
    costUsd: response?.costUsd,
    durationMs,
    numTurns: response?.numTurns,
    durationApiMs: response?.durationApiMs,
    modelUsage: response?.modelUsage,
    permissionDenials: response?.permissionDenials,
    structured: response?.structured,
    raw: response?.raw ?? { stdout: "", stderr: "" },
    ...(pendingApproval ? { pendingApproval } : {}),
    ...(response?.interrupted === true && !response.failure ? { interrupted: true } : {}),
  };
  // A driver that builds a long transcript's items when first read (a getter) is read only when
  // the host asks the Result for them; any other transcript is copied now.
  const from = response;
  if (from && Object.getOwnPropertyDescriptor(from, "transcript")?.get)
    return new Result({
      ...fields,
      get transcript() {
        return from.transcript ?? [];
      },
    });
  return new Result({ ...fields, transcript: response?.transcript ?? [] });
}
