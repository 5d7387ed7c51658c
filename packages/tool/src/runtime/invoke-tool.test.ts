import { describe, expect, it } from "vitest";
import { z } from "zod";
import { isError } from "@adaptor/errors";
import { defineTool } from "../define-tool.js";
import { ErrInvalidInput, ErrInvalidOutput } from "../errors/sentinels.js";
import { reject } from "../rejection.js";
import { GENERIC_FAILURE_TEXT, invokeTool } from "./invoke-tool.js";

const context = { signal: new AbortController().signal, runId: "run-1", toolCallId: "toolu_1", notice: () => undefined };

describe("invokeTool", () => {
  it("validates input (zod parse applied), runs the handler with the context, delivers JSON text", async () => {
    const seen: unknown[] = [];
    const tool = defineTool({
      name: "add",
      description: "Add",
      input: z.object({ a: z.number(), b: z.number().default(10) }),
      output: z.object({ sum: z.number() }),
      handler: (input, ctx) => {
        seen.push(input, ctx.toolCallId, ctx.runId);
        return { sum: input.a + input.b };
      },
    });
    const outcome = await invokeTool(tool, { a: 1 }, context);
    expect(outcome).toEqual({ kind: "success", modelText: '{"sum":11}', value: { sum: 11 }, structured: { sum: 11 } });
    expect(seen).toEqual([{ a: 1, b: 10 }, "toolu_1", "run-1"]);
  });

  it("invalid input: handler not run, invalid_input hint for the model, ErrInvalidInput for the host", async () => {
    let ran = false;
    const tool = defineTool({ name: "t", description: "d", input: z.object({ id: z.string() }), handler: () => (ran = true) });
    const outcome = await invokeTool(tool, { id: 7 }, context);
    expect(ran).toBe(false);
    expect(outcome.kind).toBe("invalid_input");
    expect(outcome.modelText).toBe("invalid_input: /id: must be string");
    expect("error" in outcome && isError(outcome.error, ErrInvalidInput)).toBe(true);
  });

  it("reject() reaches the model verbatim as code and message", async () => {
    const tool = defineTool({
      name: "t",
      description: "d",
      input: { type: "object" },
      handler: () => {
        throw reject("not_found", "no such order");
      },
    });
    expect(await invokeTool(tool, {}, context)).toMatchObject({ kind: "rejected", modelText: "not_found: no such order" });
  });

  it("secret in a thrown message: the model gets generic text, the host keeps the error", async () => {
    const secret = new Error("connect failed: password=hunter2");
    const tool = defineTool({
      name: "t",
      description: "d",
      input: { type: "object" },
      handler: () => {
        throw new Error("wrapped", { cause: secret });
      },
    });
    const outcome = await invokeTool(tool, {}, context);
    expect(outcome.kind).toBe("failed");
    expect(outcome.modelText).toBe(GENERIC_FAILURE_TEXT);
    expect(outcome.modelText).not.toContain("hunter2");
    expect("error" in outcome && (outcome.error as Error).cause).toBe(secret);
  });

  it("invalid output or a value that is not JSON: ErrInvalidOutput, generic text for the model", async () => {
    const bad = defineTool({
      name: "t",
      description: "d",
      input: { type: "object" },
      output: z.object({ n: z.number() }),
      handler: () => ({ n: "one" }) as never,
    });
    const outcome = await invokeTool(bad, {}, context);
    expect(outcome).toMatchObject({ kind: "invalid_output", modelText: GENERIC_FAILURE_TEXT });
    expect("error" in outcome && isError(outcome.error, ErrInvalidOutput)).toBe(true);
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    const notJson = defineTool({ name: "c", description: "d", input: { type: "object" }, handler: () => cyclic });
    expect(await invokeTool(notJson, {}, context)).toMatchObject({ kind: "invalid_output" });
  });

  it("omitted arguments are {}; a string result is delivered as is", async () => {
    const tool = defineTool({ name: "t", description: "d", input: { type: "object" }, handler: () => "plain text" });
    expect(await invokeTool(tool, undefined, context)).toMatchObject({ kind: "success", modelText: "plain text" });
  });
});
