import { afterEach, describe, expect, expectTypeOf, it } from "vitest";
import { z } from "zod";
import { whenToolResult, whenUserSays, type ScriptRule } from "@adaptor/testkit";
import type { Driver } from "@adaptor/driver";
import {
  Agent,
  ErrInvalidOption,
  ErrInvalidOutputSchema,
  ErrPolicyViolation,
  InvalidOptionError,
  InvalidOutputSchemaError,
  findError,
  RunError,
  isError,
  runAs,
  type AgentEvent,
  type RunOptions,
} from "adaptor";
import { CLAUDE_DESCRIPTOR, claude } from "@adaptor/claude";
import { harness, type Harness } from "./support.js";

// Real claude binary (pinned 2.1.332) against the scripted Anthropic server. Seen on the binary:
// with --json-schema the CLI offers a `StructuredOutput` tool; a tool_use of it ends the turn at
// once (no further request) and the `result` line carries the value as `structured_output` (and
// as JSON text in `result`). The CLI checks types itself but ignores `format`, so a value that
// breaks only a `format` reaches the SDK, whose local validation fails it.

const Answer = z.object({ answer: z.string().email() });
const answerJSON = {
  type: "object",
  properties: { answer: { type: "string", format: "email" } },
  required: ["answer"],
  additionalProperties: false,
};

const RULES: ScriptRule[] = [
  { when: whenUserSays("so-native-valid"), reply: { toolUse: { name: "StructuredOutput", input: { answer: "a@b.co" } } } },
  { when: whenUserSays("so-native-format"), reply: { toolUse: { name: "StructuredOutput", input: { answer: "not-an-email" } } } },
  // A value wrapped in `{ output }`: claude's own check refuses it, the model sends it again until the CLI gives up.
  { when: whenUserSays("so-native-wrapped"), reply: { toolUse: { name: "StructuredOutput", input: { output: { answer: "a@b.co" } } } } },
  { when: whenToolResult("StructuredOutput"), reply: { toolUse: { name: "StructuredOutput", input: { output: { answer: "a@b.co" } } } } },
  { when: whenUserSays("so-prompt-valid"), reply: { text: '{"answer":"a@b.co"}' } },
  { when: whenUserSays("so-prompt-prose"), reply: { text: 'Here you go: {"answer":"a@b.co"}' } },
];

let h: Harness | undefined;
let extra: Agent | undefined;
afterEach(async () => {
  await extra?.close();
  extra = undefined;
  await h?.close();
  h = undefined;
});

async function collect(stream: AsyncIterable<AgentEvent>): Promise<AgentEvent[]> {
  const events: AgentEvent[] = [];
  for await (const event of stream) events.push(event);
  return events;
}

/** The same claude driver with native structured output switched off, to force prompt mode. */
function promptOnly(harnessed: Harness): Agent {
  const driver = claude({ cwd: harnessed.env.workDir, env: harnessed.env.env, inheritEnv: false, model: "claude-sonnet-4-5" });
  const capabilities = { ...CLAUDE_DESCRIPTOR.capabilities, structuredOutput: { native: false, prompt: true } };
  const wrapped: Driver = {
    descriptor: { ...CLAUDE_DESCRIPTOR, capabilities },
    validateConfig: () => driver.validateConfig(),
    run: (request, sink, signal) => driver.run(request, sink, signal),
    close: () => driver.close(),
  };
  return new Agent(wrapped);
}

describe("structured output on the real claude binary", () => {
  it("under an explicit ask the StructuredOutput tool is never asked about: the value arrives, no approval, no approval.unasked", async () => {
    h = await harness(RULES);
    const asked: string[] = [];
    const stream = h.agent.stream("so-native-valid please", {
      schemaJSON: answerJSON,
      policy: { approvals: { permission: "ask" } },
      onApproval: (request) => {
        asked.push(request.toolName ?? "");
        request.deny("no tools");
      },
    });
    const events = await collect(stream);
    const result = await stream.result();
    expect(asked).toEqual([]);
    expect(result.structuredOutput).toMatchObject({ source: "native", valid: true, value: { answer: "a@b.co" } });
    expect(events.filter((e) => e.type === "notice" && e.kind === "approval.unasked")).toEqual([]);
  });

  it("native valid: --json-schema, the value from the result line's structured_output; runAs types it", async () => {
    h = await harness(RULES);
    const { value, result } = await runAs(h.agent, "so-native-valid please", Answer);
    expectTypeOf(value).toEqualTypeOf<{ answer: string }>();
    expect(value).toEqual({ answer: "a@b.co" });
    expect(result.structuredOutput).toMatchObject({ source: "native", valid: true });
    const terminal = JSON.parse(result.raw().terminal?.json ?? "{}") as { structured_output?: unknown; result?: string };
    expect(terminal.structured_output).toEqual({ answer: "a@b.co" });
    expect(terminal.result).toBe('{"answer":"a@b.co"}');
    const offered = h.server.requests[0]?.body as { tools?: { name: string; input_schema?: unknown }[] };
    expect(offered.tools?.find((tool) => tool.name === "StructuredOutput")?.input_schema).toMatchObject({
      type: "object",
      properties: { answer: { type: "string", format: "email" } },
    });
    expect(h.server.requests).toHaveLength(1);
  });

  it("native: schemaName and schemaDescription reach the model as the StructuredOutput tool's input_schema title and description", async () => {
    h = await harness(RULES);
    const result = await h.agent.run("so-native-valid please", {
      schemaJSON: answerJSON,
      schemaName: " contact_answer ",
      schemaDescription: "The contact address found",
    });
    expect(result.structuredOutput).toMatchObject({ source: "native", valid: true, schemaName: "contact_answer" });
    const offered = h.server.requests[0]?.body as { tools?: { name: string; input_schema?: unknown }[] };
    expect(offered.tools?.find((tool) => tool.name === "StructuredOutput")?.input_schema).toMatchObject({
      type: "object",
      title: "contact_answer",
      description: "The contact address found",
      properties: { answer: { type: "string", format: "email" } },
    });
  });

  it("native: a schemaDescription that would replace the zod schema's own description is refused before launch", async () => {
    h = await harness(RULES);
    const stream = h.agent.stream("so-native-valid please", { schema: Answer.describe("An answer"), schemaDescription: "Another" });
    const events = await collect(stream);
    const err = await stream.result().catch((e: unknown) => e);
    expect(isError(err, ErrInvalidOption)).toBe(true);
    expect(findError(err, InvalidOptionError)).toMatchObject({ subject: "run options", field: "schemaDescription" });
    expect(events.some((e) => e.type === "process")).toBe(false);
    expect(h.server.requests).toHaveLength(0);
  });

  it("native valid in one model response: numTurns 1 as its model.response notices (the CLI's num_turns says 2), within budget.maxTurns 1", async () => {
    h = await harness(RULES);
    const options: RunOptions = { schemaJSON: answerJSON, budget: { maxTurns: 1 } };
    const stream = h.agent.stream("so-native-valid please", options);
    const events = await collect(stream);
    const result = await stream.result();
    expect(result.structuredOutput).toMatchObject({ source: "native", valid: true });
    expect(h.server.requests).toHaveLength(1);
    expect(events.filter((e) => e.type === "notice" && e.kind === "model.response")).toHaveLength(1);
    expect((JSON.parse(result.raw().terminal?.json ?? "{}") as { num_turns?: number }).num_turns).toBe(2);
    expect(result.numTurns).toBe(1);
  });

  it("native invalid (the CLI ignores format): RunError policy_violation with the Result and the errors", async () => {
    h = await harness(RULES);
    const stream = h.agent.stream("so-native-format please", { schemaJSON: answerJSON, schemaName: "Answer" });
    const events = await collect(stream);
    const err = await stream.result().catch((e: unknown) => e);
    expect(events.find((e) => e.type === "tool-result")).toMatchObject({ name: "StructuredOutput", isError: false });
    expect(err).toBeInstanceOf(RunError);
    expect(isError(err, ErrPolicyViolation)).toBe(true);
    const runError = err as RunError;
    expect(runError.reason).toBe("policy_violation");
    expect(runError.details).toMatchObject({
      source: "native",
      schemaName: "Answer",
      validationErrors: [{ path: "/answer", keyword: "format", message: 'must match format "email"' }],
    });
    expect(runError.result.structuredOutput).toMatchObject({ valid: false, value: { answer: "not-an-email" } });
    expect(runError.result.raw().terminal?.json).toContain('"structured_output":{"answer":"not-an-email"}');
    expect(events.at(-1)).toMatchObject({ type: "run-finished", ok: false, reason: "policy_violation" });
  });

  it("native invalid with returnInvalid: a success whose result says it is invalid and why", async () => {
    h = await harness(RULES);
    const result = await h.agent.run("so-native-format please", { schemaJSON: answerJSON, returnInvalid: true });
    expect(result.structuredOutput).toMatchObject({ source: "native", present: true, valid: false, value: { answer: "not-an-email" } });
    expect(result.structuredOutput?.errors[0]).toMatchObject({ path: "/answer", keyword: "format" });
    expect(() => result.decode()).toThrow(/invalid: \/answer: must match format "email"/);
  });

  it("native, the CLI out of retries (error_max_structured_output_retries): policy_violation with the last refused answer", async () => {
    h = await harness(RULES);
    const err = (await h.agent.run("so-native-wrapped please", { schemaJSON: answerJSON }).catch((e: unknown) => e)) as RunError;
    expect(err).toBeInstanceOf(RunError);
    expect(err.reason).toBe("policy_violation");
    expect(err.message).toContain("structured output (native) is invalid");
    expect(err.details).toMatchObject({
      source: "native",
      validationErrors: expect.arrayContaining([{ path: "", keyword: "required", message: "must have required property 'answer'" }]),
    });
    expect(err.result.structuredOutput).toMatchObject({ present: true, valid: false, value: { output: { answer: "a@b.co" } } });
    expect(JSON.parse(err.result.raw().terminal?.json ?? "{}")).toMatchObject({ subtype: "error_max_structured_output_retries" });
    expect(h.server.requests).toHaveLength(5);
    // The CLI's num_turns says 6: numTurns is the model responses.
    expect(err.result.numTurns).toBe(5);
  });

  it("native, the CLI out of retries, with returnInvalid: a success whose result says why", async () => {
    h = await harness(RULES);
    const result = await h.agent.run("so-native-wrapped please", { schemaJSON: answerJSON, returnInvalid: true });
    expect(result.status).toBe("completed");
    expect(result.structuredOutput).toMatchObject({ present: true, valid: false, value: { output: { answer: "a@b.co" } } });
    expect(result.structuredOutput?.errors).toContainEqual({
      path: "",
      keyword: "required",
      message: "must have required property 'answer'",
    });
    expect(() => result.decode()).toThrow(/invalid/);
  });

  it("prompt mode (forced) valid: instructions in the prompt, no StructuredOutput tool, final text parsed", async () => {
    h = await harness(RULES);
    extra = promptOnly(h);
    const result = await extra.run("so-prompt-valid please", { schema: Answer });
    expect(result.decode()).toEqual({ answer: "a@b.co" });
    expect(result.structuredOutput?.source).toBe("prompt");
    const request = h.server.requests[0];
    expect(request?.view.lastUserText).toContain("exactly one JSON value");
    expect(request?.view.lastUserText).toContain('"format":"email"');
    expect(request?.view.toolNames).not.toContain("StructuredOutput");
  });

  it("prompt mode (forced) invalid: prose around the JSON → policy_violation, the text kept", async () => {
    h = await harness(RULES);
    extra = promptOnly(h);
    const err = (await extra.run("so-prompt-prose please", { schema: Answer }).catch((e: unknown) => e)) as RunError;
    expect(err).toBeInstanceOf(RunError);
    expect(err.reason).toBe("policy_violation");
    expect(err.result.text).toBe('Here you go: {"answer":"a@b.co"}');
    expect(err.details.validationErrors).toEqual([{ path: "", keyword: "json", message: "the final text is not exactly one JSON value" }]);
  });

  it("bad schemas fail before any process starts: a recursive $ref (claude dialect), an unknown format", async () => {
    h = await harness(RULES);
    const recursive: RunOptions = {
      schemaJSON: {
        type: "object",
        properties: { node: { $ref: "#/$defs/node" } },
        $defs: { node: { type: "object", properties: { next: { $ref: "#/$defs/node" } } } },
      },
    };
    for (const options of [recursive, { schemaJSON: { type: "object", properties: { d: { type: "string", format: "sometime" } } } }]) {
      const stream = h.agent.stream("so-native-valid", options);
      const events = await collect(stream);
      const err = await stream.result().catch((e: unknown) => e);
      expect(err).toBeInstanceOf(InvalidOutputSchemaError);
      expect(isError(err, ErrInvalidOutputSchema)).toBe(true);
      expect(events.some((e) => e.type === "process")).toBe(false);
    }
    expect(h.server.requests).toHaveLength(0);
  });
});
