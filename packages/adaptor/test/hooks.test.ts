import { describe, expect, it } from "vitest";
import type { DriverCapabilities, DriverRequest, DriverResponse, DriverSink, HookAnswer, HookPoint } from "@adaptor/driver";
import {
  AdaptorError,
  Agent,
  ErrFeatureUnsupported,
  FeatureUnsupportedError,
  InvalidOptionError,
  findError,
  isError,
  type HookContext,
  type RunHooks,
} from "../src/index.js";
import { scriptedDriver, untilAborted } from "./scripted-driver.js";

// The `hooks` run option against a scripted driver: which points the driver is asked to carry, the
// refusal of a `beforeToolCall` it cannot carry, and what a failing hook does to the run.

/** A scripted driver that waits for the host's hooks at `points`. */
function hookedDriver(
  points: readonly HookPoint[],
  script: (request: DriverRequest, sink: DriverSink, signal: AbortSignal) => Promise<Partial<DriverResponse>>,
) {
  const driver = scriptedDriver(script);
  const capabilities: DriverCapabilities = { ...driver.descriptor.capabilities, hooks: points };
  return Object.assign(driver, { descriptor: { ...driver.descriptor, capabilities } });
}

const ALL: readonly HookPoint[] = ["beforeToolCall", "afterToolCall", "promptSubmit", "stop"];

describe("hooks", () => {
  it("the driver is asked to carry only the points it lists and the host has a hook for", async () => {
    const driver = hookedDriver(["beforeToolCall", "stop"], async () => ({ text: "ok" }));
    await new Agent(driver).run("p", { hooks: { beforeToolCall: () => undefined, afterToolCall: () => undefined } });
    expect(driver.requests[0]!.hooks).toEqual(["beforeToolCall"]);
    await new Agent(driver).run("p", { hooks: { afterToolCall: () => undefined } });
    expect(driver.requests[1]!.hooks).toBeUndefined();
  });

  it("beforeToolCall on a driver that cannot wait for it is refused with FeatureUnsupportedError; the driver never starts", async () => {
    const driver = hookedDriver(["afterToolCall"], async () => ({ text: "ok" }));
    const refused = await new Agent(driver).run("p", { hooks: { beforeToolCall: () => undefined } }).catch((e: unknown) => e);
    expect(isError(refused, ErrFeatureUnsupported)).toBe(true);
    expect(findError(refused, FeatureUnsupportedError)).toMatchObject({ driver: "scripted", feature: "hooks.beforeToolCall" });
    expect(driver.requests).toEqual([]);
  });

  it("a hook at a point the driver lists in refusedHooks is refused with FeatureUnsupportedError naming it; the driver never starts", async () => {
    const driver = hookedDriver([], async () => ({ text: "ok" }));
    const capabilities: DriverCapabilities = { ...driver.descriptor.capabilities, refusedHooks: ["stop"] };
    Object.assign(driver, { descriptor: { ...driver.descriptor, capabilities } });
    const refused = await new Agent(driver).run("p", { hooks: { onStop: () => undefined } }).catch((e: unknown) => e);
    expect(isError(refused, ErrFeatureUnsupported)).toBe(true);
    expect(findError(refused, FeatureUnsupportedError)).toMatchObject({ driver: "scripted", feature: "hooks.onStop" });
    expect(driver.requests).toEqual([]);
    // The other points still observe.
    expect((await new Agent(driver).run("p", { hooks: { onPromptSubmit: () => undefined } })).text).toBe("ok");
  });

  it("a native hook's verdict reaches the driver as its answer, with native: true in the context", async () => {
    const answers: HookAnswer[] = [];
    const contexts: HookContext[] = [];
    const driver = hookedDriver(ALL, async (_request, sink) => {
      answers.push(await sink.hook!({ point: "beforeToolCall", toolCallId: "t1", toolName: "Bash", input: { command: "rm -rf /" } }));
      answers.push(await sink.hook!({ point: "beforeToolCall", toolName: "Bash", input: { command: "ls" } }));
      answers.push(await sink.hook!({ point: "afterToolCall", toolName: "Bash", input: {}, output: "x", isError: false }));
      answers.push(await sink.hook!({ point: "promptSubmit", prompt: "p" }));
      answers.push(await sink.hook!({ point: "stop", text: "done" }));
      return { text: "done" };
    });
    const hooks: RunHooks = {
      beforeToolCall: (call, context) => {
        contexts.push(context);
        return (call.input as { command: string }).command.startsWith("rm") ? { deny: "not that" } : { updatedInput: { command: "ls -a" } };
      },
      afterToolCall: () => ({ additionalContext: "after" }),
      onPromptSubmit: async () => ({ additionalContext: "prompt" }),
      onStop: () => ({ continueWith: "go on" }),
    };
    const result = await new Agent(driver).run("p", { hooks });
    expect(result.text).toBe("done");
    expect(answers).toEqual([
      { deny: "not that" },
      { updatedInput: { command: "ls -a" } },
      { additionalContext: "after" },
      { additionalContext: "prompt" },
      { continueWith: "go on" },
    ]);
    expect(contexts[0]).toMatchObject({ native: true, runId: result.runId });
  });

  it("a native beforeToolCall that throws: the call is denied and the run rejects with the hook's error as cause", async () => {
    const boom = new Error("hook exploded");
    let answer: HookAnswer | undefined;
    const driver = hookedDriver(ALL, async (_request, sink, signal) => {
      answer = await sink.hook!({ point: "beforeToolCall", toolName: "Bash", input: {} });
      return untilAborted(signal);
    });
    const failed = await new Agent(driver)
      .run("p", {
        hooks: {
          beforeToolCall: () => {
            throw boom;
          },
        },
      })
      .catch((e: unknown) => e);
    expect(answer).toEqual({ deny: "the host's beforeToolCall hook failed" });
    expect(failed).toBeInstanceOf(AdaptorError);
    expect((failed as Error).message).toBe("hook beforeToolCall failed");
    expect((failed as Error).cause).toBe(boom);
  });

  it("a malformed verdict ends the run with an InvalidOptionError naming the hook", async () => {
    for (const verdict of [
      { deny: "" },
      { deny: "x", updatedInput: {} },
      { updatedInput: [] },
      "allow",
      { additionalContext: "wrong point" },
    ]) {
      const driver = hookedDriver(ALL, async (_request, sink, signal) => {
        await sink.hook!({ point: "beforeToolCall", toolName: "Bash", input: {} });
        return untilAborted(signal);
      });
      const failed = await new Agent(driver).run("p", { hooks: { beforeToolCall: () => verdict as never } }).catch((e: unknown) => e);
      expect(findError(failed, InvalidOptionError)).toMatchObject({ subject: "hook verdict", field: "hooks.beforeToolCall" });
    }
  });

  it("an observing afterToolCall is called at each tool result with the call's input; one that rejects ends the run", async () => {
    const boom = new Error("observer failed");
    const seen: unknown[] = [];
    const driver = hookedDriver([], async (_request, sink, signal) => {
      sink.emit({ type: "tool-call", phase: "start", id: "t1", name: "Read" });
      sink.emit({ type: "tool-call", phase: "end", id: "t1", name: "Read", input: { path: "a" } });
      sink.emit({ type: "tool-result", id: "t1", output: "contents", isError: false });
      sink.emit({ type: "tool-result", id: "t2", name: "Bash", output: "denied", isError: true });
      return untilAborted(signal);
    });
    const failed = await new Agent(driver)
      .run("p", {
        hooks: {
          afterToolCall: async (call, context) => {
            seen.push({ ...call, native: context.native });
            if (call.toolCallId === "t2") throw boom;
          },
        },
      })
      .catch((e: unknown) => e);
    expect(seen).toEqual([
      {
        toolCallId: "t1",
        toolName: "Read",
        agentToolName: "Read",
        input: { path: "a" },
        output: "contents",
        isError: false,
        native: false,
      },
      { toolCallId: "t2", toolName: "Bash", agentToolName: "Bash", input: undefined, output: "denied", isError: true, native: false },
    ]);
    expect((failed as Error).message).toBe("hook afterToolCall failed");
    expect((failed as Error).cause).toBe(boom);
  });

  it("an observing onStop runs after the driver's success and before the verdict; one that throws turns the success into its error", async () => {
    const order: string[] = [];
    const driver = hookedDriver([], async () => {
      order.push("driver");
      return { text: "final" };
    });
    const agent = new Agent(driver);
    const result = await agent.run("p", {
      hooks: {
        onPromptSubmit: ({ prompt }) => void order.push(`prompt:${prompt}`),
        onStop: ({ text }) => void order.push(`stop:${text}`),
      },
    });
    expect(result.text).toBe("final");
    expect(order).toEqual(["prompt:p", "driver", "stop:final"]);
    const boom = new Error("stop hook failed");
    const failed = await agent
      .run("p", {
        hooks: {
          onStop: () => {
            throw boom;
          },
        },
      })
      .catch((e: unknown) => e);
    expect((failed as Error).message).toBe("hook onStop failed");
    expect((failed as Error).cause).toBe(boom);
  });

  it("an observing onStop is not called for a failed run", async () => {
    let called = false;
    const driver = hookedDriver([], async () => ({ text: "", failure: { reason: "agent_failed", message: "nope" } }));
    await new Agent(driver).run("p", { hooks: { onStop: () => void (called = true) } }).catch(() => undefined);
    expect(called).toBe(false);
  });

  it("a hook's signal aborts when the run is cancelled; an ask after the driver returned is denied without calling the host", async () => {
    let hookSignal: AbortSignal | undefined;
    let captured: DriverSink | undefined;
    const controller = new AbortController();
    const driver = hookedDriver(ALL, async (_request, sink, signal) => {
      captured = sink;
      void sink.hook!({ point: "beforeToolCall", toolName: "Bash", input: {} });
      return untilAborted(signal);
    });
    let calls = 0;
    const failed = await new Agent(driver)
      .run("p", {
        signal: controller.signal,
        hooks: {
          beforeToolCall: (_call, context) => {
            calls += 1;
            hookSignal = context.signal;
            controller.abort(new Error("host cancelled"));
            return new Promise(() => undefined); // never answers: the run's end decides
          },
        },
      })
      .catch((e: unknown) => e);
    expect(failed).toBeInstanceOf(Error);
    expect(hookSignal?.aborted).toBe(true);
    expect(await captured!.hook!({ point: "beforeToolCall", toolName: "Bash", input: {} })).toEqual({ deny: "the run has ended" });
    expect(calls).toBe(1);
  });

  it("hooks are checked like every option: an unknown hook or one that is not a function is an InvalidOptionError", async () => {
    const driver = hookedDriver(ALL, async () => ({ text: "ok" }));
    const agent = new Agent(driver);
    const unknown = await agent.run("p", { hooks: { beforeToolUse: () => undefined } as never }).catch((e: unknown) => e);
    expect(findError(unknown, InvalidOptionError)).toMatchObject({ field: "hooks.beforeToolUse" });
    const notAFunction = await agent.run("p", { hooks: { onStop: "yes" } as never }).catch((e: unknown) => e);
    expect(findError(notAFunction, InvalidOptionError)).toMatchObject({ field: "hooks.onStop" });
    expect(driver.requests).toEqual([]);
  });
});
