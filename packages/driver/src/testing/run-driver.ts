import type { Driver } from "../spi/driver.js";
import type { DriverRequest } from "../spi/request.js";
import type { DriverResponse } from "../spi/response.js";
import { createRecordingSink, type ApprovalPolicyFn, type RecordingSink } from "./recording-sink.js";

/** Options of {@link runDriver}. */
export interface RunDriverOptions {
  /** Answers approvals (default: approve). */
  readonly onApproval?: ApprovalPolicyFn;
  /** Aborts the run with a `DOMException` `AbortError` reason after this many ms. */
  readonly cancelAfterMs?: number;
  /** Aborts the run once `predicate` returns true for an emitted event (checked after each emit). */
  readonly cancelWhen?: (recording: RecordingSink) => boolean;
  /** Aborts the run when this signal aborts. */
  readonly signal?: AbortSignal;
}

/** The outcome of {@link runDriver}: exactly one of `response` / `error`, the recording, the abort reason if any. */
export interface DriverRun {
  /** What `driver.run` resolved with, if it resolved. */
  readonly response?: DriverResponse;
  /** What `driver.run` rejected with, if it rejected. */
  readonly error?: unknown;
  /** Every event, ask and decision of the run. */
  readonly recording: RecordingSink;
  /** The reason the run was aborted with, when it was. */
  readonly abortReason?: unknown;
  /** Wall time of `run()` in ms. */
  readonly durationMs: number;
}

/**
 * Runs `driver` once through the SPI with a fresh {@link RecordingSink}, the way the SDK would
 * (without the SDK): fills `runId`, wires cancellation, records, and seals the sink when `run()`
 * settles. Never throws: a rejection is returned as `error`.
 */
export async function runDriver(
  driver: Driver,
  request: Omit<DriverRequest, "runId"> & { runId?: string },
  options: RunDriverOptions = {},
): Promise<DriverRun> {
  const recording = createRecordingSink(options.onApproval ? { onApproval: options.onApproval } : {});
  const controller = new AbortController();
  let abortReason: unknown;
  const abort = (): void => {
    if (controller.signal.aborted) return;
    abortReason = new DOMException("cancelled by the conformance kit", "AbortError");
    controller.abort(abortReason);
  };
  const timer = options.cancelAfterMs !== undefined ? setTimeout(abort, options.cancelAfterMs) : undefined;
  const onOuter = (): void => abort();
  options.signal?.addEventListener("abort", onOuter, { once: true });
  if (options.signal?.aborted) abort();
  const sink = options.cancelWhen
    ? {
        emit: (event: Parameters<typeof recording.sink.emit>[0]) => {
          recording.sink.emit(event);
          if (options.cancelWhen?.(recording)) abort();
        },
        requestApproval: recording.sink.requestApproval,
      }
    : recording.sink;
  const started = performance.now();
  try {
    const response = await driver.run(
      { runId: request.runId ?? `run-${Date.now()}-${Math.random().toString(16).slice(2)}`, ...request },
      sink,
      controller.signal,
    );
    return { response, recording, ...(abortReason !== undefined ? { abortReason } : {}), durationMs: performance.now() - started };
  } catch (error) {
    return { error, recording, ...(abortReason !== undefined ? { abortReason } : {}), durationMs: performance.now() - started };
  } finally {
    recording.seal();
    if (timer) clearTimeout(timer);
    options.signal?.removeEventListener("abort", onOuter);
  }
}
