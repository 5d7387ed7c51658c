import { describe, expect, expectTypeOf, it } from "vitest";
import { z } from "zod";
import {
  Agent,
  ErrInvalidOption,
  ErrInvalidOutputSchema,
  ErrPolicyViolation,
  ErrStructuredOutputUnsupported,
  InvalidOptionError,
  InvalidOutputSchemaError,
  Result,
  RunError,
  StructuredOutputUnsupportedError,
  findError,
  isError,
  runAs,
  type RunOptions,
  type Runner,
  type Thread,
  type ValidationIssue,
} from "adaptor";
import { capabilityDriver } from "./support/capability-driver.js";

const NATIVE = { structuredOutput: { native: true, prompt: true } };
const PROMPT = { structuredOutput: { native: false, prompt: true } };
const answer = {
  type: "object",
  properties: { answer: { type: "string", format: "email" } },
  required: ["answer"],
  additionalProperties: false,
};

async function verdict(agent: Agent, prompt: string, options: RunOptions): Promise<unknown> {
  return agent.run(prompt, options).then(
    (result) => result,
    (error: unknown) => error,
  );
}

describe("structured output: schema errors before launch", () => {
  const badSchemas: [string, RunOptions, RegExp][] = [
    ["not JSON", { schemaJSON: "{type: object}" }, /^not JSON$/],
    ["several values", { schemaJSON: '{"type":"object"}\n{"type":"object"}' }, /^several JSON values$/],
    ["empty document", { schemaJSON: "   " }, /^empty document$/],
    [
      "unknown format",
      { schemaJSON: { type: "object", properties: { d: { type: "string", format: "date-ish" } } } },
      /unknown format "date-ish"/,
    ],
    ["unknown keyword", { schemaJSON: { type: "object", requried: ["a"] } }, /unknown keyword/],
    ["dangling $ref", { schemaJSON: { type: "object", properties: { a: { $ref: "#/$defs/none" } } } }, /can't resolve reference|resolve/],
    ["root not an object", { schemaJSON: "[1]" }, /must be a JSON object/],
    ["zod shape that cannot be converted", { schema: z.object({ when: z.date() }) }, /ZodDate cannot be converted/],
    ["zod 3 function", { schema: z.object({ f: z.function() }) }, /ZodFunction/],
    ["both schema and schemaJSON", { schema: z.object({}), schemaJSON: { type: "object" } }, /either schema or schemaJSON/],
    ["schema that is not zod", { schema: { type: "object" } as never }, /must be a zod schema/],
  ];
  for (const [kind, options, reason] of badSchemas) {
    it(`${kind} → InvalidOutputSchemaError { reason, cause }, no driver started`, async () => {
      const driver = capabilityDriver(NATIVE);
      const agent = new Agent(driver);
      const err = await verdict(agent, "p", options);
      expect(err).toBeInstanceOf(InvalidOutputSchemaError);
      expect(isError(err, ErrInvalidOutputSchema)).toBe(true);
      expect(err).not.toBeInstanceOf(RunError);
      const typed = findError(err, InvalidOutputSchemaError);
      expect(typed?.reason).toMatch(reason);
      if (!/^both|not zod/.test(kind)) expect(typed?.cause).toBeDefined();
      expect(driver.requests).toHaveLength(0);
      await agent.close();
    });
  }
});

describe("structured output: negotiation", () => {
  it("native when the descriptor declares it: outputSchema goes to the driver, the prompt is untouched", async () => {
    const driver = capabilityDriver(NATIVE, async () => ({ text: '{"answer":"a@b.co"}', structured: { answer: "a@b.co" } }));
    const agent = new Agent(driver);
    const result = await agent.run("question", { schemaJSON: answer });
    expect(driver.requests[0]?.outputSchema).toEqual(answer);
    expect(driver.requests[0]?.prompt).toBe("question");
    expect(result.structuredOutput).toMatchObject({ source: "native", valid: true, errors: [] });
    expect(result.decode()).toEqual({ answer: "a@b.co" });
  });

  it("native: schemaName and schemaDescription are the root title and description of the outputSchema; the schema checked is the caller's", async () => {
    const driver = capabilityDriver(NATIVE, async () => ({ text: '{"answer":"a@b.co"}', structured: { answer: "a@b.co" } }));
    const agent = new Agent(driver);
    const result = await agent.run("question", { schemaJSON: answer, schemaName: " Answer ", schemaDescription: " the reply " });
    expect(driver.requests[0]?.outputSchema).toEqual({ ...answer, title: "Answer", description: "the reply" });
    expect(result.structuredOutput).toMatchObject({ source: "native", valid: true, schemaName: "Answer", schema: answer });
  });

  it("native: a schema whose own root title and description are the same texts is sent unchanged", async () => {
    const driver = capabilityDriver(NATIVE, async () => ({ text: "{}", structured: { answer: "a@b.co" } }));
    const own = { ...answer, title: "Answer", description: "the reply" };
    await new Agent(driver).run("question", { schemaJSON: own, schemaName: "Answer", schemaDescription: "the reply" });
    expect(driver.requests[0]?.outputSchema).toEqual(own);
  });

  const replacing: [string, RunOptions, string][] = [
    ["schemaName, a JSON Schema with another root title", { schemaJSON: { ...answer, title: "Mine" }, schemaName: "Answer" }, "schemaName"],
    [
      "schemaDescription, a zod schema's .describe()",
      { schema: z.object({ a: z.string() }).describe("mine"), schemaDescription: "yours" },
      "schemaDescription",
    ],
  ];
  for (const [kind, options, field] of replacing) {
    for (const [mode, capabilities] of [
      ["native", NATIVE],
      ["prompt", PROMPT],
    ] as const) {
      it(`${mode}: ${kind} → InvalidOptionError { field: ${field} }, no driver started`, async () => {
        const driver = capabilityDriver(capabilities);
        const err = await verdict(new Agent(driver), "p", options);
        expect(isError(err, ErrInvalidOption)).toBe(true);
        expect(findError(err, InvalidOptionError)).toMatchObject({ subject: "run options", field });
        expect(driver.requests).toHaveLength(0);
      });
    }
  }

  it("prompt mode otherwise: instructions with the schema in the prompt, no outputSchema", async () => {
    const driver = capabilityDriver(PROMPT, async () => ({ text: '  {"answer":"a@b.co"}\n' }));
    const agent = new Agent(driver);
    const result = await agent.run("question", { schemaJSON: JSON.stringify(answer), schemaDescription: "the reply" });
    const request = driver.requests[0];
    expect(request?.outputSchema).toBeUndefined();
    expect(request?.prompt.startsWith("question\n\n")).toBe(true);
    expect(request?.prompt).toContain("exactly one JSON value");
    expect(request?.prompt).toContain(JSON.stringify(answer));
    expect(request?.prompt).toContain("the reply");
    expect(result.structuredOutput).toMatchObject({ source: "prompt", valid: true });
    expect(result.decode()).toEqual({ answer: "a@b.co" });
  });

  it("neither → StructuredOutputUnsupportedError { driver, reason } before launch", async () => {
    const driver = capabilityDriver({ structuredOutput: { native: false, prompt: false } });
    const err = await verdict(new Agent(driver), "p", { schemaJSON: answer });
    expect(err).toBeInstanceOf(StructuredOutputUnsupportedError);
    expect(isError(err, ErrStructuredOutputUnsupported)).toBe(true);
    expect(err).toMatchObject({ driver: "capability", reason: expect.stringContaining("neither") });
    expect(driver.requests).toHaveLength(0);
  });

  it("no schema: no negotiation, no structuredOutput, decode() parses the text", async () => {
    const driver = capabilityDriver({}, async () => ({ text: "[1,2]" }));
    const result = await new Agent(driver).run("p");
    expect(result.structuredOutput).toBeUndefined();
    expect(result.decode()).toEqual([1, 2]);
  });
});

describe("structured output: verdict", () => {
  it("native value invalid locally → RunError policy_violation with the Result and validation errors", async () => {
    const driver = capabilityDriver(NATIVE, async () => ({ text: '{"answer":"nope"}', structured: { answer: "nope" } }));
    const err = await verdict(new Agent(driver), "p", { schemaJSON: answer, schemaName: "Answer" });
    expect(err).toBeInstanceOf(RunError);
    const runError = err as RunError;
    expect(runError.reason).toBe("policy_violation");
    expect(isError(err, ErrPolicyViolation)).toBe(true);
    expect(runError.message).toMatch(/structured output \(native\) is invalid: \/answer: must match format "email"/);
    expect(runError.details).toMatchObject({ source: "native", schemaName: "Answer" });
    expect(runError.details.validationErrors).toEqual([
      { path: "/answer", message: 'must match format "email"', keyword: "format" },
    ] satisfies ValidationIssue[]);
    expect(runError.result).toBeInstanceOf(Result);
    expect(runError.result.structuredOutput).toMatchObject({ valid: false, present: true, value: { answer: "nope" } });
    expect(() => runError.result.decode()).toThrow(/structured output \(native\) is invalid/);
  });

  it("native run without a value → policy_violation (missing)", async () => {
    const driver = capabilityDriver(NATIVE, async () => ({ text: "I refuse." }));
    const err = (await verdict(new Agent(driver), "p", { schemaJSON: answer })) as RunError;
    expect(err.reason).toBe("policy_violation");
    expect(err.result.structuredOutput).toMatchObject({ present: false, valid: false, errors: [{ keyword: "missing" }] });
  });

  it("prompt mode parses only the final text as exactly one JSON value (no fences, no scanning)", async () => {
    for (const text of ['```json\n{"answer":"a@b.co"}\n```', 'Sure! {"answer":"a@b.co"}', '{"answer":"a@b.co"} {"answer":"a@b.co"}', ""]) {
      const driver = capabilityDriver(PROMPT, async () => ({ text }));
      const err = (await verdict(new Agent(driver), "p", { schemaJSON: answer })) as RunError;
      expect(err.reason, text).toBe("policy_violation");
      expect(err.result.text).toBe(text);
      expect(err.result.structuredOutput?.present).toBe(false);
    }
  });

  it("returnInvalid: true → success whose result says it is invalid and why", async () => {
    const driver = capabilityDriver(PROMPT, async () => ({ text: '{"answer":42}' }));
    const result = await new Agent(driver).run("p", { schemaJSON: answer, returnInvalid: true });
    expect(result.structuredOutput).toMatchObject({ source: "prompt", present: true, valid: false, value: { answer: 42 } });
    expect(result.structuredOutput?.errors).toEqual([{ path: "/answer", message: "must be string", keyword: "type" }]);
    expect(() => result.decode()).toThrow(/invalid: \/answer: must be string/);
  });

  it("a driver failure wins: no validation, the driver's RunError", async () => {
    const driver = capabilityDriver(NATIVE, async () => ({ failure: { reason: "agent_error", message: "boom" } }));
    const err = (await verdict(new Agent(driver), "p", { schemaJSON: answer })) as RunError;
    expect(err.reason).toBe("agent_error");
    expect(err.result.structuredOutput).toBeUndefined();
  });

  it("zod schemas also run zod's own checks (refinements) and decode to zod's parsed output", async () => {
    const schema = z.object({
      n: z.number().refine((n) => n % 2 === 0, "must be even"),
      tag: z.string().transform((s) => s.toUpperCase()),
    });
    const good = capabilityDriver(NATIVE, async () => ({ structured: { n: 2, tag: "ok" } }));
    expect((await new Agent(good).run("p", { schema })).decode()).toEqual({ n: 2, tag: "OK" });
    const odd = capabilityDriver(NATIVE, async () => ({ structured: { n: 3, tag: "ok" } }));
    const err = (await verdict(new Agent(odd), "p", { schema })) as RunError;
    expect(err.reason).toBe("policy_violation");
    expect(err.details.validationErrors).toEqual([{ path: "/n", message: "must be even", keyword: "schema" }]);
  });
});

describe("runAs", () => {
  const Order = z.object({ id: z.string(), total: z.number(), status: z.enum(["open", "paid"]) });

  it("resolves { value, result } with value typed by the zod schema", async () => {
    const driver = capabilityDriver(NATIVE, async () => ({ structured: { id: "o1", total: 9.5, status: "paid" } }));
    const { value, result } = await runAs(new Agent(driver), "p", Order, { schemaName: "Order" });
    expectTypeOf(value).toEqualTypeOf<{ id: string; total: number; status: "open" | "paid" }>();
    expectTypeOf(result).toEqualTypeOf<Result>();
    expect(value).toEqual({ id: "o1", total: 9.5, status: "paid" });
    expect(driver.requests[0]?.outputSchema).toMatchObject({ type: "object", required: ["id", "total", "status"] });
  });

  it("rejects with the policy_violation RunError for an invalid value", async () => {
    const driver = capabilityDriver(NATIVE, async () => ({ structured: { id: "o1", total: "9.5", status: "paid" } }));
    const err = await runAs(new Agent(driver), "p", Order).catch((e: unknown) => e);
    expect(isError(err, ErrPolicyViolation)).toBe(true);
  });

  it("takes an Agent or a Thread as its runner", () => {
    expectTypeOf<Agent>().toMatchTypeOf<Runner>();
    expectTypeOf<Thread>().toMatchTypeOf<Runner>();
  });

  it("types zod 4 schemas too", async () => {
    const { z: z4 } = await import("zod/v4");
    const driver = capabilityDriver(NATIVE, async () => ({ structured: { ok: true } }));
    const { value } = await runAs(new Agent(driver), "p", z4.object({ ok: z4.boolean() }));
    expectTypeOf(value).toEqualTypeOf<{ ok: boolean }>();
    expect(value).toEqual({ ok: true });
  });
});
