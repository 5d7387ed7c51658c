import { AdaptorError, walkError } from "@adaptor/errors";
import type { Driver, DriverResponse } from "@adaptor/driver";
import { ApprovalBroker } from "../approval/approval-broker.js";
import { RunError } from "../errors/run-error.js";
import type { EventQueue } from "../events/event-queue.js";
import { Result } from "./result.js";
import { Preparation, prepare } from "./preparation.js";
import type { RunOptions } from "./run-options.js";

/** Everything one run needs; built by the Stream. */
export interface RunSetup {
  readonly runId: string;
  readonly driver: Driver;
  readonly prompt: string;
  readonly options: RunOptions;
  readonly queue: EventQueue;
  /** Aborted by cancel, the caller's signal, the timeout, or agent close; its reason is the verdict's cause. */
  readonly controller: AbortController;
}

/**
 * One run top to bottom (DESIGN.md "One run, top to bottom"): pre-invocation checks, the
 * driver, the verdict. Resolves a {@link Result}; rejects with a {@link RunError} for a classified
 * business failure and with an ordinary error (cause chain kept) for everything else. Always
 * closes the queue with `run-finished` last.
 */
export async function executeRun(setup: RunSetup): Promise<Result> {
  const { runId, driver, queue, controller, options } = setup;
  const started = performance.now();
  queue.push({ type: "run-started", driver: driver.descriptor.type, ...(options.model ? { model: options.model } : {}) });
  let handlerFailure: { error: unknown } | undefined;
  const approvals = new ApprovalBroker({
    runId,
    queue,
    handler: options.onApproval,
    signal: controller.signal,
    onHandlerFailure: (error) => {
      handlerFailure ??= { error };
      controller.abort(new AdaptorError("approval handler failed", { cause: error }));
    },
  });
  try {
    const prep = await prepare(
      new Preparation({ runId, driver, options, signal: controller.signal, prompt: setup.prompt }),
    );
    let response: DriverResponse;
    try {
      response = await driver.run(
        prep.request,
        { emit: (event) => queue.push(event), requestApproval: (ask) => approvals.ask(ask) },
        controller.signal,
      );
      approvals.end("run ended");
      response = await prep.finish(response);
    } finally {
      await prep.cleanup();
    }
    if (controller.signal.aborted && (response.failure || handlerFailure)) throw controller.signal.reason;
    const result = toResult(runId, response, performance.now() - started);
    if (response.failure) {
      const { reason, message, details, cause } = response.failure;
      throw new RunError({ reason, message, result, ...(details ? { details } : {}), ...("cause" in response.failure ? { cause } : {}) });
    }
    queue.push({ type: "run-finished", ok: true, ...(result.usage ? { usage: result.usage } : {}) });
    return result;
  } catch (error) {
    approvals.end("run ended");
    const verdict = error instanceof RunError || !controller.signal.aborted ? error : abortVerdict(error, controller.signal);
    queue.push({
      type: "run-finished",
      ok: false,
      reason: verdict instanceof RunError ? verdict.reason : "error",
      message: verdict instanceof Error ? verdict.message : String(verdict),
      ...(verdict instanceof RunError && verdict.result.usage ? { usage: verdict.result.usage } : {}),
    });
    throw verdict;
  } finally {
    queue.close();
  }
}

/** The driver's rejection when its chain carries the abort reason, else the reason itself. */
function abortVerdict(error: unknown, signal: AbortSignal): unknown {
  const reason: unknown = signal.reason;
  return walkError(error, (node) => node === reason) ? error : reason;
}

function toResult(runId: string, response: DriverResponse, durationMs: number): Result {
  return new Result({
    runId,
    model: response.model,
    provider: response.provider,
    text: response.text,
    usage: response.usage,
    costUsd: response.costUsd,
    durationMs,
    structured: response.structured,
    raw: response.raw,
    transcript: response.transcript,
  });
}
