// The run's spans without a CLI: lease acquire/renew/finalize under a thread run, structured output
// validation, verdicts (business failure, infrastructure error with its ErrCode), content kept out
// unless the host opts in, the global provider as the default tracer, and the option's checks.
import { SpanStatusCode, trace } from "@opentelemetry/api";
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from "@opentelemetry/sdk-trace-base";
import { afterEach, describe, expect, it } from "vitest";
import { DriverError, ErrCode, InvalidOptionError, findError, isError } from "@adaptor/errors";
import { MemoryThreadStore } from "@adaptor/threadstore";
import { Agent, ErrThreadBusy, ErrThreadNotFound } from "adaptor";
import { scriptedDriver } from "./scripted-driver.js";
import { capabilityDriver } from "./support/capability-driver.js";

const exporter = new InMemorySpanExporter();
const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
const tracer = provider.getTracer("adaptor");
afterEach(() => exporter.reset());

const named = (name: string): ReadableSpan[] => exporter.getFinishedSpans().filter((s) => s.name === name);
const only = (name: string): ReadableSpan => {
  const spans = named(name);
  expect(spans.map((s) => s.name)).toEqual([name]);
  return spans[0]!;
};
const childOf = (span: ReadableSpan, parent: ReadableSpan): boolean => span.parentSpanContext?.spanId === parent.spanContext().spanId;

/** Resolves once `check` holds, polling every 10 ms (safety net: the test timeout). */
async function until(check: () => boolean): Promise<void> {
  while (!check()) await new Promise((resolve) => setTimeout(resolve, 10));
}

describe("run telemetry", () => {
  it("a thread run: lease acquire, renew and finalize are children of the run span, with key and fencing token", async () => {
    const driver = scriptedDriver(async () => {
      // Keep the run going until the lease was renewed once (every third of the 3 s time-to-live).
      await until(() => named("adaptor.lease.renew").length > 0);
      return { text: "done", checkpoint: { resumeId: "s1" } };
    });
    const agent = new Agent(driver, { threadStore: new MemoryThreadStore(), leaseTtlMs: 3000, telemetry: { tracer } });
    await agent.thread("acme-42").run("hello");
    await agent.close();
    const run = only("adaptor.run");
    expect(run.attributes).toMatchObject({ "adaptor.thread.key": "acme-42", "adaptor.verdict": "ok", "adaptor.driver": "scripted" });
    const acquire = only("adaptor.lease.acquire");
    const finalize = only("adaptor.lease.finalize");
    const renew = named("adaptor.lease.renew")[0]!;
    for (const span of [acquire, finalize, renew]) {
      expect(childOf(span, run)).toBe(true);
      expect(span.attributes).toMatchObject({
        "adaptor.thread.key": "acme-42",
        "adaptor.lease.ttl_ms": 3000,
        "adaptor.lease.token": expect.any(Number),
      });
    }
    expect(finalize.attributes["adaptor.lease.token"]).toBe(acquire.attributes["adaptor.lease.token"]);
    expect(finalize.attributes["adaptor.thread.mode"]).toBe("continue_or_start");
  });

  it("a finalize the run leaves behind (abort, agent.close()) ends its span with ERROR, marked left behind, when the run ends", async () => {
    for (const how of ["abort", "close"] as const) {
      exporter.reset();
      const inner = new MemoryThreadStore();
      let finalizing = false;
      // A store whose finalize never answers (a row lock held elsewhere).
      const store = new Proxy(inner, {
        get(target, prop) {
          if (prop === "finalize")
            return () => {
              finalizing = true;
              return new Promise<never>(() => undefined);
            };
          const value: unknown = Reflect.get(target, prop, target);
          return typeof value === "function" ? (value as (...a: unknown[]) => unknown).bind(target) : value;
        },
      });
      const agent = new Agent(
        scriptedDriver(async () => ({ text: "done", checkpoint: { resumeId: "s1" } })),
        { threadStore: store, telemetry: { tracer } },
      );
      const host = new AbortController();
      const run = agent.thread("acme-9").run("hello", { signal: host.signal });
      await until(() => finalizing);
      if (how === "abort") host.abort(new Error("host gave up"));
      else void agent.close();
      await run.catch(() => undefined);
      await until(() => named("adaptor.run").length === 1);
      const finalize = only("adaptor.lease.finalize");
      expect(childOf(finalize, only("adaptor.run"))).toBe(true);
      expect(finalize.attributes["adaptor.store.left_behind"]).toBe(true);
      expect(finalize.status.code).toBe(SpanStatusCode.ERROR);
      expect(finalize.status.message).toMatch(/left behind/);
      await agent.close();
    }
  });

  it("structured output validation is a span; an invalid answer makes the run a business failure with its reason", async () => {
    const driver = capabilityDriver({ structuredOutput: { native: false, prompt: true } }, async () => ({
      text: "not json",
      usage: { inputTokens: 7, outputTokens: 3 },
      costUsd: 0.01,
    }));
    const agent = new Agent(driver, { telemetry: { tracer } });
    await agent.run("answer", { schemaJSON: { type: "object" }, schemaName: "Answer" }).catch(() => undefined);
    const run = only("adaptor.run");
    const validate = only("adaptor.structured_output.validate");
    expect(childOf(validate, run)).toBe(true);
    expect(validate.attributes).toMatchObject({
      "adaptor.structured_output.source": "prompt",
      "adaptor.structured_output.schema": "Answer",
      "adaptor.structured_output.present": false,
      "adaptor.structured_output.valid": false,
      "adaptor.structured_output.error_count": 1,
    });
    expect(run.attributes).toMatchObject({
      "adaptor.verdict": "business_failure",
      "adaptor.failure.reason": "policy_violation",
      "gen_ai.usage.input_tokens": 7,
      "gen_ai.usage.output_tokens": 3,
      "adaptor.cost.usd": 0.01,
    });
    expect(run.status).toEqual({ code: SpanStatusCode.ERROR, message: "policy_violation" });
    expect(run.attributes["adaptor.failure.message"]).toBeUndefined();
    await agent.close();
  });

  it("an infrastructure error is recorded by its ErrCode and type, never its message or the prompt; recordContent opts in", async () => {
    const secret = "token=hunter2 in the prompt";
    const fail = scriptedDriver(async () => {
      throw new DriverError({ op: "spawn", device: "scripted", code: ErrCode.NotFound, cause: `not found while reading ${secret}` });
    });
    const quiet = new Agent(fail, { telemetry: { tracer } });
    await quiet.run(`please use ${secret}`).catch(() => undefined);
    const run = only("adaptor.run");
    expect(run.attributes).toMatchObject({ "adaptor.verdict": "error", "adaptor.error.code": "NOT_FOUND", "error.type": "DriverError" });
    expect(run.status).toEqual({ code: SpanStatusCode.ERROR, message: "NOT_FOUND" });
    expect(JSON.stringify([run.attributes, run.events, run.status])).not.toContain("hunter2");
    await quiet.close();

    exporter.reset();
    const verbose = new Agent(fail, { telemetry: { tracer, recordContent: true } });
    await verbose.run(`please use ${secret}`).catch(() => undefined);
    const recorded = only("adaptor.run");
    expect(recorded.attributes["adaptor.prompt"]).toBe(`please use ${secret}`);
    expect(recorded.events.map((e) => e.name)).toEqual(["exception"]);
    expect(JSON.stringify(recorded.events)).toContain("hunter2");
    await verbose.close();
  });

  it("a thread error names its sentinel on the run span, so a busy key and a missing one tell apart", async () => {
    const store = new MemoryThreadStore();
    let release!: () => void;
    let started = false;
    const held = new Promise<void>((resolve) => (release = resolve));
    const holder = new Agent(
      scriptedDriver(async () => {
        started = true;
        await held;
        return { text: "done", checkpoint: { resumeId: "s1" } };
      }),
      { threadStore: store, owner: "holder" },
    );
    const first = holder.thread("acme-7").run("hold the lease");
    await until(() => started);
    const other = new Agent(
      scriptedDriver(async () => ({ text: "never" })),
      { threadStore: store, owner: "other", telemetry: { tracer } },
    );
    const busy = await other
      .thread("acme-7")
      .run("second owner")
      .catch((error: unknown) => error);
    expect(isError(busy, ErrThreadBusy)).toBe(true);
    expect(only("adaptor.run").attributes).toMatchObject({ "adaptor.verdict": "error", "adaptor.error.sentinel": "adaptor.ThreadBusy" });
    release();
    await first;

    exporter.reset();
    const missing = await other
      .thread("no-such-key", { resumeOnly: true })
      .run("resume")
      .catch((error: unknown) => error);
    expect(isError(missing, ErrThreadNotFound)).toBe(true);
    expect(only("adaptor.run").attributes).toMatchObject({
      "adaptor.verdict": "error",
      "adaptor.error.sentinel": "adaptor.ThreadNotFound",
    });
    await other.close();
    await holder.close();
  });

  it("without a tracer option the global provider's tracer is used; the driver gets the run's traceparent", async () => {
    trace.setGlobalTracerProvider(provider);
    try {
      const driver = scriptedDriver(async () => ({ text: "ok" }));
      const agent = new Agent(driver);
      await agent.run("hello");
      await agent.close();
      const run = only("adaptor.run");
      const { traceId, spanId } = run.spanContext();
      expect(driver.requests[0]?.traceparent).toBe(`00-${traceId}-${spanId}-01`);
    } finally {
      trace.disable();
    }
  });

  it("a provider the host registers between two runs of an agent traces the second run", async () => {
    const driver = scriptedDriver(async () => ({ text: "ok" }));
    const agent = new Agent(driver);
    await agent.run("one");
    trace.setGlobalTracerProvider(provider);
    try {
      await agent.run("two");
    } finally {
      trace.disable();
    }
    await agent.close();
    const { traceId, spanId } = only("adaptor.run").spanContext();
    expect(driver.requests.map((request) => request.traceparent)).toEqual([undefined, `00-${traceId}-${spanId}-01`]);
  });

  it("no provider: no span, no traceparent for the driver", async () => {
    const driver = scriptedDriver(async () => ({ text: "ok" }));
    const agent = new Agent(driver);
    await agent.run("hello");
    await agent.close();
    expect(exporter.getFinishedSpans()).toEqual([]);
    expect(driver.requests[0]?.traceparent).toBeUndefined();
  });

  it("refuses a telemetry option that is not a tracer or a boolean, naming the field", () => {
    const field = (telemetry: unknown): string | undefined => {
      try {
        new Agent(
          scriptedDriver(async () => ({})),
          { telemetry } as never,
        );
      } catch (error) {
        return findError(error, InvalidOptionError)?.field;
      }
      return undefined;
    };
    expect(field({ tracer: {} })).toBe("telemetry.tracer");
    expect(field({ recordContent: "yes" })).toBe("telemetry.recordContent");
    expect(field({ tracr: tracer })).toBe("telemetry.tracr");
    expect(field({ tracer, recordContent: true })).toBeUndefined();
  });
});
