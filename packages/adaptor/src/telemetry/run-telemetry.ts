import type { Attributes, Context, Span, Tracer } from "@opentelemetry/api";
import { AdaptorError, errorCode, walkError } from "@adaptor/errors";
import type { ApprovalAsk, ApprovalDecision, DriverEvent, Usage } from "@adaptor/driver";
import { boundToolName } from "@adaptor/driver/kit";
import { SPAN } from "./span-names.js";
import { otelApi } from "./otel-api.js";
import type { TelemetryOptions } from "./telemetry-options.js";

/** C0 and C1 control characters and DEL: never part of a tool's identity in a span. */
// eslint-disable-next-line no-control-regex -- removing control characters is the point
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/g;

/**
 * A tool name as a span attribute: an identity, never the model's text as it came. Without control
 * characters (a model may put colours or line breaks in a name, which a log line would then carry)
 * and at most `TOOL_NAME_MAX_LENGTH` (200) characters long.
 */
function spanToolName(name: string): string {
  return boundToolName(name).replace(CONTROL, "");
}

/** The tracer name the SDK uses by default. */
export const TRACER_NAME = "adaptor";

/** What starts a run's telemetry. */
export interface RunTelemetryInit {
  readonly runId: string;
  readonly driver: string;
  readonly model?: string | undefined;
  readonly threadKey?: string | undefined;
  readonly prompt: string;
  /** The host's context when the run was started: its active span becomes the run's parent. */
  readonly parent: Context;
  readonly options?: TelemetryOptions | undefined;
}

/** How a run ended, for the run span. */
export type RunOutcome =
  | { readonly kind: "ok"; readonly usage?: Usage | undefined; readonly costUsd?: number | undefined; readonly model?: string | undefined }
  | {
      readonly kind: "business_failure";
      readonly reason: string;
      readonly message: string;
      readonly usage?: Usage | undefined;
      readonly costUsd?: number | undefined;
      readonly model?: string | undefined;
    }
  | { readonly kind: "error"; readonly error: unknown };

/**
 * The spans of one run: the run span (a child of the host's active span), and under it the spawn,
 * each tool call, each approval wait (under its tool call when it names one), the lease steps and
 * structured output validation. Errors are recorded with their `ErrCode` or failure reason; no
 * prompt, tool input or message text unless `recordContent` is set.
 */
export class RunTelemetry {
  readonly #tracer: Tracer;
  readonly #content: boolean;
  readonly #span: Span;
  readonly #context: Context;
  readonly #tools = new Map<string, { span: Span; context: Context }>();
  #driverCalled: number | undefined;
  #ended = false;

  constructor(init: RunTelemetryInit) {
    this.#tracer = init.options?.tracer ?? otelApi().trace.getTracer(TRACER_NAME);
    this.#content = init.options?.recordContent === true;
    this.#span = this.#tracer.startSpan(
      SPAN.run,
      {
        attributes: {
          "adaptor.run.id": init.runId,
          "adaptor.driver": init.driver,
          ...(init.model ? { "gen_ai.request.model": init.model } : {}),
          ...(init.threadKey !== undefined ? { "adaptor.thread.key": init.threadKey } : {}),
          ...(this.#content ? { "adaptor.prompt": init.prompt } : {}),
        },
      },
      init.parent,
    );
    this.#context = otelApi().trace.setSpan(init.parent, this.#span);
  }

  /** The W3C `traceparent` of the run span, when it has a valid span context. */
  traceparent(): string | undefined {
    const sc = this.#span.spanContext();
    if (!otelApi().trace.isSpanContextValid(sc)) return undefined;
    return `00-${sc.traceId}-${sc.spanId}-${(sc.traceFlags & 0xff).toString(16).padStart(2, "0")}`;
  }

  /** The W3C `tracestate` of the run span, when it has one. */
  tracestate(): string | undefined {
    const state = this.#span.spanContext().traceState?.serialize();
    return state ? state : undefined;
  }

  /** The driver is being called: a spawn from now on is timed from here. */
  driverCalled(): void {
    this.#driverCalled = Date.now();
  }

  /** Follows the driver's events: the spawn, tool calls and their results. */
  onEvent(event: DriverEvent): void {
    if (event.type === "process" && event.kind === "spawn") {
      const started = this.#driverCalled ?? Date.now();
      const span = this.#tracer.startSpan(
        SPAN.spawn,
        { startTime: started, attributes: event.pid !== undefined ? { "process.pid": event.pid } : {} },
        this.#context,
      );
      span.end();
    } else if (event.type === "tool-call" && (event.phase === "start" || event.phase === "end")) {
      let open = this.#tools.get(event.id);
      if (!open) {
        const span = this.#tracer.startSpan(
          SPAN.toolCall,
          { attributes: { "gen_ai.tool.name": spanToolName(event.name), "gen_ai.tool.call.id": event.id } },
          this.#context,
        );
        open = { span, context: otelApi().trace.setSpan(this.#context, span) };
        this.#tools.set(event.id, open);
      }
      if (event.phase === "end" && this.#content && event.input !== undefined) {
        open.span.setAttribute("adaptor.tool.input", safeJson(event.input));
      }
    } else if (event.type === "tool-result") {
      const open = this.#tools.get(event.id);
      if (!open) return;
      this.#tools.delete(event.id);
      open.span.setAttribute("adaptor.tool.is_error", event.isError);
      if (event.isError) open.span.setStatus({ code: otelApi().SpanStatusCode.ERROR, message: "tool_error" });
      open.span.end();
    }
  }

  /**
   * Times one approval wait: `ask` → the decision. `suspended` tells, once decided, whether the
   * decision was the turn suspending: the span's decision is then `suspended`, not the deny the
   * CLI is told.
   */
  async approval(
    ask: ApprovalAsk,
    wait: () => Promise<ApprovalDecision>,
    suspended: () => boolean = () => false,
  ): Promise<ApprovalDecision> {
    const parent = (ask.toolCallId !== undefined ? this.#tools.get(ask.toolCallId)?.context : undefined) ?? this.#context;
    const span = this.#tracer.startSpan(
      SPAN.approval,
      {
        attributes: {
          "adaptor.approval.kind": ask.kind,
          ...(ask.toolName !== undefined ? { "gen_ai.tool.name": spanToolName(ask.toolName) } : {}),
          ...(ask.toolCallId !== undefined ? { "gen_ai.tool.call.id": ask.toolCallId } : {}),
        },
      },
      parent,
    );
    const started = performance.now();
    try {
      const decision = await wait();
      const suspending = suspended();
      span.setAttributes({
        "adaptor.approval.decision": suspending ? "suspended" : decision.outcome,
        "adaptor.approval.waited_ms": Math.round(performance.now() - started),
        ...(this.#content && decision.outcome === "deny" && !suspending ? { "adaptor.approval.reason": decision.reason } : {}),
      });
      return decision;
    } catch (error) {
      this.#fail(span, error);
      throw error;
    } finally {
      span.end();
    }
  }

  /**
   * Runs `work` inside a child span of the run named `name`; a throw is recorded and rethrown.
   * `leftBehind` is the signal `work` stops waiting on (the run's end, a lease's expiry): `work`
   * rejecting once it has aborted means the call was left unanswered, and the span says so
   * (`adaptor.store.left_behind`, status ERROR with the message `left behind: …`). The span thus
   * ends when the run gives up on the call, never later.
   */
  async span<T>(
    name: string,
    attributes: Attributes,
    work: () => Promise<T>,
    describe?: (value: T) => Attributes,
    leftBehind?: AbortSignal,
  ): Promise<T> {
    const span = this.#tracer.startSpan(name, { attributes }, this.#context);
    try {
      const value = await work();
      if (describe) span.setAttributes(describe(value));
      return value;
    } catch (error) {
      this.#fail(span, error);
      if (leftBehind?.aborted) {
        span.setAttribute("adaptor.store.left_behind", true);
        const code = errorCode(error) ?? (error instanceof Error ? error.name : typeof error);
        span.setStatus({
          code: otelApi().SpanStatusCode.ERROR,
          message: `left behind: the store had not answered when the run stopped waiting (${code})`,
        });
      }
      throw error;
    } finally {
      span.end();
    }
  }

  /** Ends the run span (and any tool span left open) with the verdict. Idempotent. */
  end(outcome: RunOutcome): void {
    if (this.#ended) return;
    this.#ended = true;
    for (const { span } of this.#tools.values()) {
      span.setAttribute("adaptor.tool.unfinished", true);
      span.end();
    }
    this.#tools.clear();
    const span = this.#span;
    span.setAttribute("adaptor.verdict", outcome.kind);
    if (outcome.kind === "error") {
      this.#fail(span, outcome.error);
    } else {
      if (outcome.model) span.setAttribute("gen_ai.response.model", outcome.model);
      if (outcome.usage) span.setAttributes(usageAttributes(outcome.usage));
      if (outcome.costUsd !== undefined) span.setAttribute("adaptor.cost.usd", outcome.costUsd);
      if (outcome.kind === "business_failure") {
        span.setAttribute("adaptor.failure.reason", outcome.reason);
        span.setStatus({ code: otelApi().SpanStatusCode.ERROR, message: outcome.reason });
        if (this.#content) span.setAttribute("adaptor.failure.message", outcome.message);
      }
    }
    span.end();
  }

  /**
   * Marks `span` failed with the error's code, its sentinel's id and its name (its message only
   * with `recordContent`).
   */
  #fail(span: Span, error: unknown): void {
    const code = errorCode(error);
    const sentinel = sentinelId(error);
    const type = error instanceof Error ? error.name : typeof error;
    span.setAttributes({
      "error.type": type,
      ...(code !== undefined ? { "adaptor.error.code": code } : {}),
      ...(sentinel !== undefined ? { "adaptor.error.sentinel": sentinel } : {}),
    });
    span.setStatus({ code: otelApi().SpanStatusCode.ERROR, message: code ?? type });
    if (this.#content && error instanceof Error) span.recordException(error);
  }
}

/**
 * The id of the first sentinel on `error`'s chain, outermost first (e.g. `"adaptor.ThreadBusy"`):
 * the identity `isError` matches, stable across releases.
 */
function sentinelId(error: unknown): string | undefined {
  let id: string | undefined;
  walkError(error, (node) => {
    if (node instanceof AdaptorError && node.sentinels.length > 0) id = node.sentinels[0]!.id;
    return id !== undefined;
  });
  return id;
}

function usageAttributes(usage: Usage): Attributes {
  return {
    "gen_ai.usage.input_tokens": usage.inputTokens,
    "gen_ai.usage.output_tokens": usage.outputTokens,
    ...(usage.cacheReadTokens !== undefined ? { "adaptor.usage.cache_read_tokens": usage.cacheReadTokens } : {}),
    ...(usage.cacheWriteTokens !== undefined ? { "adaptor.usage.cache_write_tokens": usage.cacheWriteTokens } : {}),
  };
}

function safeJson(value: unknown): string {
  try {
    return JSON.stringify(value) ?? "";
  } catch {
    return "[unserializable]";
  }
}
