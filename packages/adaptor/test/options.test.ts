// Options and inputs are refused before anything starts, with a typed error naming the field:
// misspelt keys (with the closest known one suggested), wrong types, empty required strings,
// timers longer than Node can wait, and text a CLI cannot carry. stream() never throws.
import { describe, expect, it } from "vitest";
import { MemoryThreadStore } from "@adaptor/threadstore";
import {
  Agent,
  ErrInvalidOption,
  InvalidOptionError,
  MalformedStringError,
  SuspendUnsupportedError,
  findError,
  isError,
  type AgentEvent,
  type AgentOptions,
  type RunOptions,
  type Stream,
} from "../src/index.js";
import { scriptedDriver } from "./scripted-driver.js";

async function refusedRun(stream: Stream): Promise<{ error: InvalidOptionError; events: AgentEvent[] }> {
  const events: AgentEvent[] = [];
  for await (const event of stream) events.push(event);
  const verdict = await stream.result().then(
    () => undefined,
    (e: unknown) => e,
  );
  const error = findError(verdict, InvalidOptionError);
  if (!error) throw new Error(`run was not refused with an InvalidOptionError: ${String(verdict)}`);
  expect(isError(verdict, ErrInvalidOption)).toBe(true);
  return { error, events };
}

function constructionRefusal(run: () => unknown): InvalidOptionError {
  try {
    run();
  } catch (error) {
    if (error instanceof InvalidOptionError) return error;
    throw error;
  }
  throw new Error("accepted");
}

const okDriver = () => scriptedDriver(async () => ({ text: "ok" }));

describe("misspelt options are refused with a suggestion before anything starts", () => {
  it.each([
    ["modle", "model"],
    ["onAproval", "onApproval"],
    ["timeoutMS", "timeoutMs"],
    ["threadstore", "threadStore"],
  ])("Agent options: %s → did you mean %s", (typo, known) => {
    const error = constructionRefusal(() => new Agent(okDriver(), { [typo]: "x" } as AgentOptions));
    expect(error).toMatchObject({ subject: "Agent options", field: typo, suggestion: known });
    expect(error.message).toBe(`Agent options: ${typo} is not a known option; did you mean "${known}"?`);
  });

  it.each([
    ["modle", "model"],
    ["onAproval", "onApproval"],
    ["timeoutMS", "timeoutMs"],
    ["singal", "signal"],
  ])("run options: %s → did you mean %s, through result() and run-finished, driver never called", async (typo, known) => {
    const driver = okDriver();
    const { error, events } = await refusedRun(new Agent(driver).stream("p", { [typo]: 1 } as RunOptions));
    expect(error).toMatchObject({ subject: "run options", field: typo, suggestion: known });
    expect(events.map((e) => e.type)).toEqual(["run-finished"]);
    expect(events[0]).toMatchObject({ ok: false, reason: "error", message: error.message });
    expect(driver.requests).toHaveLength(0);
  });

  it("run options: an Agent-only key is refused and said to be an Agent option", async () => {
    const { error } = await refusedRun(new Agent(okDriver()).stream("p", { threadStore: new MemoryThreadStore() } as RunOptions));
    expect(error.message).toBe("run options: threadStore is not a known option; it is an Agent option (new Agent(driver, { ... }))");
  });

  it.each([
    ["maxTurns", {}, "maxTurns", "the Claude Agent SDK's maxTurns is budget.maxTurns here"],
    ["permissionMode", {}, "permissionMode", "the Claude Agent SDK's permissionMode is policy here"],
    ["sandboxMode", {}, "sandboxMode", "the Codex SDK's sandboxMode is policy.sandbox here"],
    ["budget.maxBudgetUsd", { budget: { maxBudgetUsd: 1 } }, "budget.maxBudgetUsd", "budget.maxCostUsd here"],
    ["hooks.PreToolUse", { hooks: { PreToolUse: () => undefined } }, "hooks.PreToolUse", "hooks.beforeToolCall here"],
    [
      "hooks.PostToolUseFailure",
      { hooks: { PostToolUseFailure: () => undefined } },
      "hooks.PostToolUseFailure",
      "hooks.afterToolCall here",
    ],
    ["hooks.PermissionRequest", { hooks: { PermissionRequest: () => undefined } }, "hooks.PermissionRequest", "onApproval here"],
    ["hooks.SessionStart", { hooks: { SessionStart: () => undefined } }, "hooks.SessionStart", "hooks.onSessionStart here"],
    ["hooks.SessionEnd", { hooks: { SessionEnd: () => undefined } }, "hooks.SessionEnd", "hooks.onSessionEnd here"],
    ["hooks.Notification", { hooks: { Notification: () => undefined } }, "hooks.Notification", "hooks.onNotification here"],
    ["hooks.PreCompact", { hooks: { PreCompact: () => undefined } }, "hooks.PreCompact", "hooks.onPreCompact here"],
    ["hooks.SubagentStart", { hooks: { SubagentStart: () => undefined } }, "hooks.SubagentStart", "hooks.onSubagentStart here"],
    ["hooks.SubagentStop", { hooks: { SubagentStop: () => undefined } }, "hooks.SubagentStop", "hooks.onSubagentStop here"],
    ["budget.maxTokens", { budget: { maxTokens: 1000 } }, "budget.maxTokens", "there is no token budget here"],
    [
      "maxThinkingTokens",
      {},
      "maxThinkingTokens",
      'the thinking budget is the env MAX_THINKING_TOKENS here (env: { MAX_THINKING_TOKENS: "4096" })',
    ],
    ["fallbackModel", {}, "fallbackModel", 'claude({ extraArgs: ["--fallback-model", model] })'],
    ["permissionPromptToolName", {}, "permissionPromptToolName", "every permission prompt reaches onApproval here"],
    ["enableFileCheckpointing", {}, "enableFileCheckpointing", "checkpointFiles: true here"],
  ])("run options: the peer SDKs' name %s is refused with what to write here", async (_name, options, field, hint) => {
    const given = Object.keys(options).length > 0 ? options : { [field]: 1 };
    const driver = okDriver();
    const { error } = await refusedRun(new Agent(driver).stream("p", given as RunOptions));
    expect(error).toMatchObject({ subject: "run options", field, suggestion: undefined });
    expect(error.message).toContain(`run options: ${field} is not a known option; `);
    expect(error.message).toContain(hint);
    expect(driver.requests).toHaveLength(0);
  });

  it("Agent options: the peer SDKs' name canUseTool is refused with onApproval named", () => {
    const error = constructionRefusal(() => new Agent(okDriver(), { canUseTool: () => true } as never));
    expect(error.message).toBe("Agent options: canUseTool is not a known option; the Claude Agent SDK's canUseTool is onApproval here");
  });

  it("thread options: resumeonly → did you mean resumeOnly, thrown by agent.thread()", () => {
    const agent = new Agent(okDriver(), { threadStore: new MemoryThreadStore() });
    const error = constructionRefusal(() => agent.thread("t", { resumeonly: true } as never));
    expect(error).toMatchObject({ subject: "thread options", field: "resumeonly", suggestion: "resumeOnly" });
    expect(constructionRefusal(() => agent.thread("t", { resumeOnly: "yes" } as never)).field).toBe("resumeOnly");
  });

  it("thread options: adoptSession must be a non-empty string and is not taken with resumeOnly", () => {
    const agent = new Agent(okDriver(), { threadStore: new MemoryThreadStore() });
    expect(constructionRefusal(() => agent.thread("t", { adoptSession: "" })).field).toBe("adoptSession");
    expect(constructionRefusal(() => agent.thread("t", { adoptSession: 42 } as never)).field).toBe("adoptSession");
    const both = constructionRefusal(() => agent.thread("t", { adoptSession: "s", resumeOnly: true }));
    expect(both).toMatchObject({ subject: "thread options", field: "adoptSession" });
    expect(both.message).toMatch(/resumeOnly/);
  });

  it("a turn that adopts a CLI session cannot suspend: SuspendUnsupportedError (reason adopt), nothing started", async () => {
    const plain = okDriver();
    const capabilities = { ...plain.descriptor.capabilities, sessions: { resume: true, fork: false } };
    const resumable = { ...plain, descriptor: { ...plain.descriptor, capabilities } };
    const agent = new Agent(resumable, { threadStore: new MemoryThreadStore() });
    const verdict = await agent
      .thread("t", { adoptSession: "s" })
      .run("p", { suspend: {} })
      .catch((e: unknown) => e);
    expect(findError(verdict, SuspendUnsupportedError)).toMatchObject({ reason: "adopt" });
  });

  it("thread runs check their run options too", async () => {
    const agent = new Agent(okDriver(), { threadStore: new MemoryThreadStore() });
    const { error } = await refusedRun(agent.thread("t").stream("p", { modle: "x" } as RunOptions));
    expect(error.suggestion).toBe("model");
  });
});

describe("values of the wrong type or empty are refused, never defaulted", () => {
  it('Agent options: model "" , model 123, env "str", identity 5, eventBuffer 0, leaseTtlMs 1e12', () => {
    const driver = okDriver();
    const cases: [AgentOptions, string][] = [
      [{ model: "" }, "model"],
      [{ model: 123 as never }, "model"],
      [{ env: "str" as never }, "env"],
      [{ env: { A: 1 as never } }, "env.A"],
      [{ identity: 5 as never }, "identity"],
      [{ eventBuffer: 0 }, "eventBuffer"],
      [{ leaseTtlMs: 1e12 }, "leaseTtlMs"],
      [{ owner: "" }, "owner"],
      [{ threadStore: {} as never }, "threadStore"],
      [{ tools: "x" as never }, "tools"],
      [{ skills: 5 as never }, "skills"],
    ];
    for (const [options, field] of cases) {
      expect(
        constructionRefusal(() => new Agent(driver, options)),
        JSON.stringify(options),
      ).toMatchObject({ subject: "Agent options", field });
    }
  });

  it("new Agent(driver, null) and new Agent(undefined) name what is wrong", () => {
    expect(constructionRefusal(() => new Agent(okDriver(), null as never)).message).toBe("Agent options: must be an object, got null");
    expect(constructionRefusal(() => new Agent(undefined as never)).field).toBe("driver");
  });

  it.each([
    [{ model: "" }, "model"],
    [{ model: 123 }, "model"],
    [{ cwd: "" }, "cwd"],
    [{ env: "str" }, "env"],
    [{ timeoutMs: 1e12 }, "timeoutMs"],
    [{ onApproval: "approve" }, "onApproval"],
    [{ spawn: 1 }, "spawn"],
    [{ mcpServers: {} }, "mcpServers"],
    [{ skillProvider: {} }, "skillProvider"],
    [{ schemaName: 5 }, "schemaName"],
  ])("run options %j are refused naming %s", async (options, field) => {
    const driver = okDriver();
    const { error } = await refusedRun(new Agent(driver).stream("p", options as RunOptions));
    expect(error.field).toBe(field);
    expect(driver.requests).toHaveLength(0);
  });

  it("an agent's valid options still run, and null run options mean none", async () => {
    const driver = okDriver();
    const agent = new Agent(driver, { model: "m", env: { A: "1" }, timeoutMs: Infinity, leaseTtlMs: 2 ** 31 - 1 });
    expect((await agent.run("p", null as never)).text).toBe("ok");
    expect(driver.requests[0]).toMatchObject({ model: "m", env: { A: "1" } });
  });
});

describe("stream() never throws: every refusal arrives through result() and a final run-finished", () => {
  const bad: [string, () => RunOptions, string][] = [
    ["a signal that is not an AbortSignal", () => ({ signal: {} as AbortSignal }), "signal"],
    ["a signal of the wrong type", () => ({ signal: "abort" as never }), "signal"],
    ["skills: 5", () => ({ skills: 5 as never }), "skills"],
    [
      "an option getter that throws",
      () =>
        ({
          get model(): string {
            throw new Error("getter exploded");
          },
        }) as RunOptions,
      "model",
    ],
    ["options that are a string", () => "fast" as never, ""],
  ];

  it.each(bad)("%s", async (_name, options, field) => {
    const driver = okDriver();
    const agent = new Agent(driver, { skills: [] });
    let stream: Stream | undefined;
    expect(() => (stream = agent.stream("p", options()))).not.toThrow();
    const { error, events } = await refusedRun(stream!);
    expect(error.field).toBe(field);
    expect(events.at(-1)).toMatchObject({ type: "run-finished", ok: false });
    expect(driver.requests).toHaveLength(0);
  });

  it("a throwing getter's error is kept as the cause", async () => {
    const boom = new Error("getter exploded");
    const stream = new Agent(okDriver()).stream("p", {
      get cwd(): string {
        throw boom;
      },
    } as RunOptions);
    const { error } = await refusedRun(stream);
    expect(error.cause).toBe(boom);
  });
});

describe("strings a CLI cannot carry are refused before any driver runs", () => {
  it("a prompt with a lone surrogate (a string cut through an emoji) is refused with MalformedStringError", async () => {
    const driver = okDriver();
    const prompt = "summarise 😀".slice(0, -1);
    const { error, events } = await refusedRun(new Agent(driver).stream(prompt));
    expect(error).toBeInstanceOf(MalformedStringError);
    expect(error).toMatchObject({ subject: "run", field: "prompt", kind: "lone-surrogate", index: prompt.length - 1 });
    expect(error.message).toBe(
      `run: prompt holds a lone UTF-16 surrogate (U+D83D) at index ${prompt.length - 1}, which a CLI cannot carry`,
    );
    expect(events.map((e) => e.type)).toEqual(["run-finished"]);
    expect(driver.requests).toHaveLength(0);
  });

  it("a prompt with a surrogate pair or a NUL is carried (it travels inside JSON)", async () => {
    const driver = okDriver();
    await new Agent(driver).run("ok 😀 a\0b");
    expect(driver.requests[0]?.prompt).toBe("ok 😀 a\0b");
  });

  it("a model, cwd or env value with a lone surrogate or NUL is refused", async () => {
    const agent = new Agent(okDriver());
    expect((await refusedRun(agent.stream("p", { model: "sonnet\uDC00" }))).error).toMatchObject({
      field: "model",
      kind: "lone-surrogate",
    });
    expect((await refusedRun(agent.stream("p", { cwd: "/tmp/a\0b" }))).error).toMatchObject({ field: "cwd", kind: "nul" });
    expect((await refusedRun(agent.stream("p", { env: { KEY: "v\uD800" } }))).error).toMatchObject({ field: "env.KEY" });
    expect(constructionRefusal(() => new Agent(okDriver(), { identity: "tenant\uD800" }))).toBeInstanceOf(MalformedStringError);
  });
});

describe("timers longer than Node can wait", () => {
  it("an approval deadline above 2^31-1 ms is InvalidPolicyError; negative and Infinity still mean none", async () => {
    const agent = new Agent(okDriver());
    const error = await agent.run("p", { policy: { approvals: { timeoutMs: 1e12 } } }).catch((e: unknown) => e);
    expect(error).toMatchObject({ name: "InvalidPolicyError", field: "approvals.timeoutMs" });
    expect((await agent.run("p", { policy: { approvals: { timeoutMs: Infinity } } })).text).toBe("ok");
    expect((await agent.run("p", { policy: { approvals: { timeoutMs: -1 } } })).text).toBe("ok");
  });
});

describe("a policy value outside its domain", () => {
  it.each([
    [{ sandbox: "readonly" }, "sandbox", 'did you mean "read_only"? expected one of "read_only", "workspace_write", "unrestricted"'],
    [{ sandbox: "workspace-write" }, "sandbox", 'did you mean "workspace_write"?'],
    [{ approvals: { permission: "auto-approve" } }, "approvals.permission", 'did you mean "auto_approve"?'],
    [{ webSearch: "nope" }, "webSearch", '; expected one of "allow", "deny"'],
  ])("names the closest value and lists the domain: %j", async (policy, field, hint) => {
    const agent = new Agent(okDriver());
    const error = await agent.run("p", { policy: policy as RunOptions["policy"] }).catch((e: unknown) => e);
    expect(error).toMatchObject({ name: "InvalidPolicyError", field });
    expect((error as Error).message).toContain(hint);
  });
});

describe("a policy field the policy does not have", () => {
  it.each([
    [
      { sandboxx: "read_only" },
      "sandboxx",
      'invalid policy: sandboxx is not a policy field; did you mean "sandbox"? the fields are sandbox,',
    ],
    [
      { approvalPolicy: "never" },
      "approvalPolicy",
      "invalid policy: approvalPolicy is not a policy field; the Codex SDK's approvalPolicy is approvals.permission here",
    ],
    [{ approvals: { permision: "ask" } }, "approvals.permision", 'approvals.permision is not a policy field; did you mean "permission"?'],
  ])("says so, with the closest field or the peer SDK's name: %j", async (policy, field, message) => {
    const agent = new Agent(okDriver());
    const error = await agent.run("p", { policy: policy as RunOptions["policy"] }).catch((e: unknown) => e);
    expect(error).toMatchObject({ name: "InvalidPolicyError", field, value: "unknown field" });
    expect((error as Error).message).toContain(message);
  });
});

describe("a __proto__ key in option data (as JSON.parse makes one)", () => {
  it.each([
    ['{"approvals":{"permission":"ask"},"__proto__":{"sandbox":"unrestricted"}}', "__proto__"],
    ['{"approvals":{"__proto__":{"permission":"auto_approve"}}}', "approvals.__proto__"],
  ])("is refused as an unknown policy field, never lending the policy its values: %s", async (json, field) => {
    const agent = new Agent(okDriver());
    const policy = JSON.parse(json) as RunOptions["policy"];
    const error = await agent.run("p", { policy }).catch((e: unknown) => e);
    expect(error).toMatchObject({ name: "InvalidPolicyError", field });
  });
});
