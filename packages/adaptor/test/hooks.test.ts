import { describe, expect, it } from "vitest";
import type { DriverCapabilities, DriverRequest, DriverResponse, DriverSink, HookAnswer, HookPoint } from "@adaptor/driver";
import {
  AdaptorError,
  Agent,
  DriverError,
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
      { continueWith: "wrong point" },
      { deny: "x", additionalContext: "y" },
      { updatedInput: {}, additionalContext: "" },
    ]) {
      const driver = hookedDriver(ALL, async (_request, sink, signal) => {
        await sink.hook!({ point: "beforeToolCall", toolName: "Bash", input: {} });
        return untilAborted(signal);
      });
      const failed = await new Agent(driver).run("p", { hooks: { beforeToolCall: () => verdict as never } }).catch((e: unknown) => e);
      expect(findError(failed, InvalidOptionError)).toMatchObject({ subject: "hook verdict", field: "hooks.beforeToolCall" });
    }
  });

  it("beforeToolCall: { updatedInput, additionalContext } and { additionalContext } reach the driver", async () => {
    for (const verdict of [{ updatedInput: { command: "ls" }, additionalContext: "ctx" }, { additionalContext: "ctx" }]) {
      let answer: unknown;
      const driver = hookedDriver(ALL, async (_request, sink) => {
        answer = await sink.hook!({ point: "beforeToolCall", toolName: "Bash", input: {} });
        return {};
      });
      await new Agent(driver).run("p", { hooks: { beforeToolCall: () => verdict } });
      expect(answer).toEqual(verdict);
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

  it("a tool hook with a matcher goes to a driver that takes matchers as DriverRequest.hookMatchers, and the SDK does not filter again", async () => {
    const seen: string[] = [];
    const driver = hookedDriver(ALL, async (_request, sink) => {
      // The agent applies the matcher (with its own aliases): whatever it asks about reaches the hook.
      await sink.hook!({ point: "beforeToolCall", toolName: "Task", input: {} });
      return { text: "ok" };
    });
    Object.assign(driver, {
      descriptor: { ...driver.descriptor, capabilities: { ...driver.descriptor.capabilities, hookMatchers: true } },
    });
    await new Agent(driver).run("p", {
      hooks: { beforeToolCall: { matcher: "Agent", hook: (call) => void seen.push(call.toolName) }, onStop: () => undefined },
    });
    expect(driver.requests[0]!.hooks).toEqual(["beforeToolCall", "stop"]);
    expect(driver.requests[0]!.hookMatchers).toEqual({ beforeToolCall: ["Agent"] });
    expect(seen).toEqual(["Task"]);
  });

  it("a tool hook with a matcher on a driver that does not take matchers: the SDK calls it only for the calls the matcher names (the agent's tool name)", async () => {
    const seen: string[] = [];
    const answers: HookAnswer[] = [];
    const driver = hookedDriver(ALL, async (_request, sink) => {
      for (const toolName of ["Bash", "Write", "Edit", "mcp__github__get_issue", "mcp__adaptor__lookup", "BashOutput"])
        answers.push(await sink.hook!({ point: "beforeToolCall", toolName, input: {} }));
      return { text: "ok" };
    });
    const hook = (call: { toolName: string; agentToolName: string }) => {
      seen.push(`${call.toolName}/${call.agentToolName}`);
      return { deny: "no" };
    };
    await new Agent(driver).run("p", { hooks: { beforeToolCall: { matcher: "Write|Edit, mcp__adaptor__lookup", hook } } });
    expect(driver.requests[0]!.hookMatchers).toBeUndefined();
    expect(seen).toEqual(["Write/Write", "Edit/Edit", "mcp__adaptor__lookup/mcp__adaptor__lookup"]);
    // A call the matcher does not name goes on as without a hook.
    expect(answers).toEqual([{}, { deny: "no" }, { deny: "no" }, {}, { deny: "no" }, {}]);
    seen.length = 0;
    // A regular expression is found anywhere in the agent's name of the tool (a host tool's wire name).
    await new Agent(driver).run("p", { hooks: { beforeToolCall: { matcher: "^mcp__|^Bash$", hook } } });
    expect(seen).toEqual(["Bash/Bash", "mcp__github__get_issue/mcp__github__get_issue", "mcp__adaptor__lookup/mcp__adaptor__lookup"]);
  });

  it("several matcher groups on a driver that does not take matchers: the groups a call matches are called in order; the first deny wins and later groups are not called; else the last updatedInput and every additionalContext", async () => {
    const answers: HookAnswer[] = [];
    const driver = hookedDriver(ALL, async (_request, sink) => {
      for (const toolName of ["Bash", "Write", "Read"])
        answers.push(await sink.hook!({ point: "beforeToolCall", toolCallId: `t-${toolName}`, toolName, input: { proposed: true } }));
      answers.push(await sink.hook!({ point: "afterToolCall", toolName: "Bash", input: {}, output: "out", isError: false }));
      return { text: "ok" };
    });
    const called: string[] = [];
    const seenInputs: unknown[] = [];
    await new Agent(driver).run("p", {
      hooks: {
        beforeToolCall: [
          { matcher: "Write", hook: (call) => (called.push(`0 ${call.toolName}`), { deny: "no writes (group 0)" }) },
          { matcher: "Bash|Write", hook: (call) => (called.push(`1 ${call.toolName}`), { updatedInput: { command: "from group 1" } }) },
          (call) => {
            called.push(`2 ${call.toolName}`);
            seenInputs.push(call.input);
            return call.toolName === "Bash" ? { updatedInput: { command: "from group 2" } } : { deny: "denied by group 2" };
          },
        ],
        afterToolCall: [{ matcher: "Bash", hook: () => ({ additionalContext: "first" }) }, () => ({ additionalContext: "second" })],
      },
    });
    expect(called).toEqual(["1 Bash", "2 Bash", "0 Write", "2 Read"]);
    // Each group sees the input the agent proposed.
    expect(seenInputs).toEqual([{ proposed: true }, { proposed: true }]);
    expect(answers).toEqual([
      { updatedInput: { command: "from group 2" } },
      { deny: "no writes (group 0)" },
      { deny: "denied by group 2" },
      { additionalContext: "first\n\nsecond" },
    ]);
  });

  it("several matcher groups on a driver that takes matchers: DriverRequest.hookMatchers lists one matcher per group ('*' for a bare function), and an ask naming a group calls that group only; once a group denied a call, the later groups' asks about it get no verdict", async () => {
    const called: string[] = [];
    const answers: HookAnswer[] = [];
    const driver = hookedDriver(ALL, async (_request, sink) => {
      // The agent calls each group's hook itself, for the calls its matcher names (all at once, as Claude Code does).
      for (const group of [0, 1, 2])
        answers.push(await sink.hook!({ point: "beforeToolCall", toolCallId: "t1", toolName: "Task", input: {}, group }));
      answers.push(await sink.hook!({ point: "beforeToolCall", toolCallId: "t2", toolName: "Task", input: {}, group: 2 }));
      return { text: "ok" };
    });
    Object.assign(driver, {
      descriptor: { ...driver.descriptor, capabilities: { ...driver.descriptor.capabilities, hookMatchers: true } },
    });
    await new Agent(driver).run("p", {
      hooks: {
        beforeToolCall: [
          { matcher: "Agent", hook: () => void called.push("0") },
          { matcher: "Agent|Bash", hook: () => (called.push("1"), { deny: "group 1 says no" }) },
          () => (called.push("2"), { updatedInput: { x: 1 } }),
        ],
      },
    });
    expect(driver.requests[0]!.hookMatchers).toEqual({ beforeToolCall: ["Agent", "Agent|Bash", "*"] });
    expect(called).toEqual(["0", "1", "2"]);
    expect(answers).toEqual([{}, { deny: "group 1 says no" }, {}, { updatedInput: { x: 1 } }]);
  });

  it("a tool hook array that is empty, or holds an entry that is not a hook or a valid { matcher, hook }, is an InvalidOptionError naming the entry before launch", async () => {
    const driver = hookedDriver(ALL, async () => ({ text: "ok" }));
    const agent = new Agent(driver);
    const refused = async (hooks: unknown) =>
      findError(await agent.run("p", { hooks: hooks as RunHooks }).catch((e: unknown) => e), InvalidOptionError);
    expect(await refused({ beforeToolCall: [] })).toMatchObject({ field: "hooks.beforeToolCall" });
    expect(await refused({ beforeToolCall: [() => undefined, { matcher: "mcp__(x", hook: () => undefined }] })).toMatchObject({
      field: "hooks.beforeToolCall[1].matcher",
    });
    expect(await refused({ afterToolCall: [{ matcher: "Bash", hook: () => undefined }, "Bash"] })).toMatchObject({
      field: "hooks.afterToolCall[1]",
    });
    expect(driver.requests).toEqual([]);
  });

  it("an observing afterToolCall with a matcher is called only for the tool results it names", async () => {
    const seen: string[] = [];
    const driver = hookedDriver([], async (_request, sink) => {
      sink.emit({ type: "tool-call", phase: "start", id: "t1", name: "Read" });
      sink.emit({ type: "tool-result", id: "t1", output: "contents", isError: false });
      sink.emit({ type: "tool-call", phase: "start", id: "t2", name: "Bash" });
      sink.emit({ type: "tool-result", id: "t2", output: "out", isError: false });
      return { text: "ok" };
    });
    await new Agent(driver).run("p", { hooks: { afterToolCall: { matcher: "Bash", hook: (call) => void seen.push(call.toolName) } } });
    expect(seen).toEqual(["Bash"]);
  });

  it("a matcher that is neither tool names nor a valid regular expression, or a matched hook without its function, is an InvalidOptionError before launch", async () => {
    const driver = hookedDriver(ALL, async () => ({ text: "ok" }));
    const agent = new Agent(driver);
    const badRegex = await agent
      .run("p", { hooks: { beforeToolCall: { matcher: "mcp__(github", hook: () => undefined } } })
      .catch((e: unknown) => e);
    expect(findError(badRegex, InvalidOptionError)).toMatchObject({ field: "hooks.beforeToolCall.matcher" });
    expect((findError(badRegex, InvalidOptionError) as Error).message).toContain("not a valid regular expression");
    const noHook = await agent.run("p", { hooks: { afterToolCall: { matcher: "Bash" } } as never }).catch((e: unknown) => e);
    expect(findError(noHook, InvalidOptionError)).toMatchObject({ field: "hooks.afterToolCall.hook" });
    const peerShape = await agent
      .run("p", { hooks: { afterToolCall: { matcher: "Bash", hooks: [() => undefined] } } as never })
      .catch((e: unknown) => e);
    expect(findError(peerShape, InvalidOptionError)).toMatchObject({ field: "hooks.afterToolCall.hooks" });
    expect(driver.requests).toEqual([]);
  });

  it.each([
    ["onSessionStart", "sessionStart"],
    ["onSessionEnd", "sessionEnd"],
    ["onNotification", "notification"],
    ["onPreCompact", "preCompact"],
    ["onSubagentStart", "subagentStart"],
    ["onSubagentStop", "subagentStop"],
  ] as const)(
    "%s on a driver that does not call it is refused with FeatureUnsupportedError naming it; the driver never starts",
    async (name, point) => {
      const driver = hookedDriver(ALL, async () => ({ text: "ok" }));
      const refused = await new Agent(driver).run("p", { hooks: { [name]: () => undefined } }).catch((e: unknown) => e);
      expect(findError(refused, FeatureUnsupportedError)).toMatchObject({ driver: "scripted", feature: `hooks.${name}` });
      expect(driver.requests).toEqual([]);
      // A driver that lists the point carries it.
      const carrying = hookedDriver([point], async () => ({ text: "ok" }));
      await new Agent(carrying).run("p", { hooks: { [name]: () => undefined } });
      expect(carrying.requests[0]!.hooks).toEqual([point]);
    },
  );

  it("the hooks of the agent's life get their inputs; context and continueWith verdicts reach the driver, an observing hook's verdict ends the run", async () => {
    const answers: HookAnswer[] = [];
    const seen: unknown[] = [];
    const points: HookPoint[] = ["sessionStart", "sessionEnd", "notification", "preCompact", "subagentStart", "subagentStop"];
    const driver = hookedDriver(points, async (_request, sink) => {
      answers.push(await sink.hook!({ point: "sessionStart", source: "compact", model: "m" }));
      answers.push(await sink.hook!({ point: "sessionEnd", reason: "clear" }));
      answers.push(await sink.hook!({ point: "notification", message: "needs you", kind: "permission_prompt" }));
      answers.push(await sink.hook!({ point: "preCompact", trigger: "manual", instructions: "keep it short" }));
      answers.push(await sink.hook!({ point: "subagentStart", agentId: "a1", agentType: "reviewer" }));
      answers.push(await sink.hook!({ point: "subagentStop", agentId: "a1", agentType: "reviewer", text: "done" }));
      return { text: "ok" };
    });
    const hooks: RunHooks = {
      onSessionStart: (input) => {
        seen.push(input);
        return { additionalContext: "session context" };
      },
      onSessionEnd: (input) => void seen.push(input),
      onNotification: (input) => void seen.push(input),
      onPreCompact: (input) => void seen.push(input),
      onSubagentStart: (input) => {
        seen.push(input);
        return { additionalContext: "subagent context" };
      },
      onSubagentStop: (input) => {
        seen.push(input);
        return { continueWith: "check again" };
      },
    };
    await new Agent(driver).run("p", { hooks });
    expect(seen).toEqual([
      { source: "compact", model: "m" },
      { reason: "clear" },
      { message: "needs you", kind: "permission_prompt" },
      { trigger: "manual", instructions: "keep it short" },
      { agentId: "a1", agentType: "reviewer" },
      { agentId: "a1", agentType: "reviewer", text: "done" },
    ]);
    expect(answers).toEqual([
      { additionalContext: "session context" },
      {},
      {},
      {},
      { additionalContext: "subagent context" },
      { continueWith: "check again" },
    ]);
    const observing = hookedDriver(["preCompact"], async (_request, sink, signal) => {
      await sink.hook!({ point: "preCompact", trigger: "auto" });
      return untilAborted(signal);
    });
    const failed = await new Agent(observing)
      .run("p", { hooks: { onPreCompact: () => ({ additionalContext: "x" }) as never } })
      .catch((e: unknown) => e);
    expect((failed as Error).message).toBe("hook onPreCompact failed");
    expect(findError(failed, InvalidOptionError)).toMatchObject({ field: "hooks.onPreCompact" });
    expect(findError(failed, InvalidOptionError)?.message).toContain("must return nothing (it observes)");
  });

  it("a hook that never settles fails the run after hookTimeoutMs as a throwing hook does, with a TIMEOUT cause naming it; its signal aborts", async () => {
    let hookSignal: AbortSignal | undefined;
    let answer: HookAnswer | undefined;
    const driver = hookedDriver(["notification", "beforeToolCall"], async (_request, sink, signal) => {
      await sink.hook!({ point: "notification", message: "Claude needs your permission to use Bash", kind: "permission_prompt" });
      answer = await sink.hook!({ point: "beforeToolCall", toolName: "Bash", input: {} });
      return untilAborted(signal);
    });
    const failed = await new Agent(driver)
      .run("p", {
        // The run's own limit only bounds the test should the hook's not apply.
        timeoutMs: 20_000,
        hookTimeoutMs: 1_000,
        hooks: {
          onNotification: (_input, context) => {
            hookSignal = context.signal;
            return new Promise<void>(() => undefined);
          },
          beforeToolCall: () => undefined,
        },
      })
      .catch((e: unknown) => e);
    expect(failed).toBeInstanceOf(AdaptorError);
    expect((failed as Error).message).toBe("hook onNotification failed");
    expect(findError(failed, DriverError)).toMatchObject({ code: "TIMEOUT", op: "hook", device: "hooks.onNotification" });
    expect(findError(failed, DriverError)?.message).toBe("[TIMEOUT] hook: hooks.onNotification (did not settle within hookTimeoutMs=1000)");
    expect(hookSignal?.aborted).toBe(true);
    // The next ask is not put to the host: a tool call is denied.
    expect(answer).toEqual({ deny: "a hook of this run failed" });
  });

  it("hookTimeoutMs is checked like timeoutMs: a negative or non-number value is an InvalidOptionError before launch", async () => {
    const driver = hookedDriver(ALL, async () => ({ text: "ok" }));
    const agent = new Agent(driver);
    for (const hookTimeoutMs of [-1, Number.NaN, "60s", 2 ** 31]) {
      const refused = await agent
        .run("p", { hookTimeoutMs: hookTimeoutMs as never, hooks: { onStop: () => undefined } })
        .catch((e: unknown) => e);
      expect(findError(refused, InvalidOptionError)).toMatchObject({ field: "hookTimeoutMs" });
    }
    expect(driver.requests).toEqual([]);
    expect((await agent.run("p", { hookTimeoutMs: Infinity, hooks: { onStop: () => undefined } })).text).toBe("ok");
  });

  it("hooks are checked like every option: an unknown hook or one that is not a function is an InvalidOptionError", async () => {
    const driver = hookedDriver(ALL, async () => ({ text: "ok" }));
    const agent = new Agent(driver);
    const unknown = await agent.run("p", { hooks: { beforeToolUse: () => undefined } as never }).catch((e: unknown) => e);
    expect(findError(unknown, InvalidOptionError)).toMatchObject({ field: "hooks.beforeToolUse" });
    const notAFunction = await agent.run("p", { hooks: { onStop: "yes" } as never }).catch((e: unknown) => e);
    expect(findError(notAFunction, InvalidOptionError)).toMatchObject({ field: "hooks.onStop" });
    const misspelt = await agent.run("p", { hooks: { onSubagentStopped: () => undefined } as never }).catch((e: unknown) => e);
    expect(findError(misspelt, InvalidOptionError)).toMatchObject({ field: "hooks.onSubagentStopped", suggestion: "onSubagentStop" });
    expect(driver.requests).toEqual([]);
  });
});
