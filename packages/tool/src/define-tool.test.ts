import { describe, expect, expectTypeOf, it } from "vitest";
import { z } from "zod";
import { isError } from "@adaptor/errors";
import { defineTool, type ToolContext } from "./define-tool.js";
import { ErrInvalidDefinition } from "./errors/sentinels.js";

const ok = { name: "lookup_order", description: "Find an order", input: z.object({ id: z.string() }), handler: () => "x" };

describe("defineTool", () => {
  it("builds a tool: JSON Schemas made once, annotations and revision kept, no definition error", () => {
    const tool = defineTool({
      ...ok,
      output: z.object({ id: z.string() }),
      annotations: { readOnly: true, title: "Lookup" },
      revision: "2",
      handler: ({ id }) => ({ id }),
    });
    expect(tool.definitionError).toBeUndefined();
    expect(tool.inputSchema).toMatchObject({ type: "object", required: ["id"] });
    expect(tool.outputSchema).toMatchObject({ type: "object" });
    expect(tool.annotations).toEqual({ readOnly: true, title: "Lookup" });
    expect(tool.revision).toBe("2");
    expect(Object.isFrozen(tool)).toBe(true);
  });

  it("types the handler from zod: input and context in, output out", () => {
    defineTool({
      name: "t",
      description: "d",
      input: z.object({ id: z.string(), qty: z.number().optional() }),
      output: z.object({ total: z.number() }),
      handler: (input, context) => {
        expectTypeOf(input).toEqualTypeOf<{ id: string; qty?: number | undefined }>();
        expectTypeOf(context).toEqualTypeOf<ToolContext>();
        return { total: 1 };
      },
    });
    defineTool({ name: "j", description: "d", input: { type: "object" }, handler: (input) => expectTypeOf(input).toBeUnknown() });
  });

  it("a bad definition is kept, never thrown, and matches ErrInvalidDefinition with the reason", () => {
    const cases: [Record<string, unknown>, RegExp][] = [
      [{ name: "bad name" }, /name must match/],
      [{ name: "x".repeat(49) }, /name must match/],
      [{ description: " " }, /description/],
      [{ handler: "nope" }, /handler must be a function/],
      [{ input: z.string() }, /input schema: root must be type "object"/],
      [{ input: { type: "object", properties: { d: { type: "string", format: "nope" } } } }, /input schema: unknown format "nope"/],
      [{ input: '{"type":"object"} {}' }, /input schema: several JSON values/],
      [{ output: z.object({ f: z.function() }) }, /output schema: zod ZodFunction/],
      [{ annotations: { readOnly: "yes" } }, /annotation readOnly must be a boolean/],
      [{ annotations: { dangerous: true } }, /unknown annotation "dangerous"/],
      [{ revision: "" }, /revision/],
    ];
    for (const [patch, reason] of cases) {
      const tool = defineTool({ ...ok, ...patch } as never);
      expect(tool.definitionError, JSON.stringify(patch)).toBeDefined();
      expect(isError(tool.definitionError, ErrInvalidDefinition)).toBe(true);
      expect(tool.definitionError?.message).toMatch(reason);
    }
  });
});
