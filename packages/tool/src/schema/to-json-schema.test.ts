import { describe, expect, it } from "vitest";
import { z } from "zod";
import * as z4 from "zod/v4";
import { compileJsonSchema } from "./compile.js";
import { SchemaError } from "./schema-error.js";
import { toJsonSchema } from "./to-json-schema.js";

function reasonOf(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(SchemaError);
    return (error as SchemaError).reason;
  }
  throw new Error("expected a SchemaError");
}

describe("toJsonSchema", () => {
  it("converts a zod 3 schema with zod-to-json-schema (no $schema, 2020-12 compatible)", () => {
    const json = toJsonSchema(z.object({ email: z.string().email(), tags: z.array(z.string()).optional() }));
    expect(json).toEqual({
      type: "object",
      properties: { email: { type: "string", format: "email" }, tags: { type: "array", items: { type: "string" } } },
      required: ["email"],
      additionalProperties: false,
    });
    expect(compileJsonSchema(json).validate({ email: "a@b.co" })).toEqual([]);
  });

  it("converts a zod 4 schema with zod's own toJSONSchema (draft 2020-12)", () => {
    const json = toJsonSchema(z4.object({ n: z4.number().int() }));
    expect(json).toMatchObject({ type: "object", properties: { n: { type: "integer" } }, required: ["n"] });
    expect(compileJsonSchema(json).validate({ n: 1.5 })).not.toEqual([]);
  });

  it("keeps a zod 4 schema's metadata (description, title) from the caller's copy of zod", () => {
    const json = toJsonSchema(
      z4.object({ id: z4.string().describe("order id"), qty: z4.number().meta({ title: "Quantity", examples: [2] }) }).describe("an order"),
    );
    expect(json).toMatchObject({
      description: "an order",
      properties: { id: { type: "string", description: "order id" }, qty: { type: "number", title: "Quantity", examples: [2] } },
    });
  });

  it("refuses shapes that cannot be converted, zod 3 and zod 4", () => {
    expect(reasonOf(() => toJsonSchema(z.object({ f: z.function() })))).toMatch(/ZodFunction cannot be converted.*\/properties\/f/);
    expect(reasonOf(() => toJsonSchema(z.object({ at: z.date() })))).toMatch(/ZodDate/);
    expect(reasonOf(() => toJsonSchema(z.bigint()))).toMatch(/ZodBigInt/);
    expect(reasonOf(() => toJsonSchema(z4.object({ n: z4.bigint() })))).toMatch(/cannot be converted/);
  });

  it("parses JSON text: exactly one JSON object", () => {
    expect(toJsonSchema('{"type":"string"}')).toEqual({ type: "string" });
    expect(reasonOf(() => toJsonSchema(""))).toBe("empty document");
    expect(reasonOf(() => toJsonSchema("  \n"))).toBe("empty document");
    expect(reasonOf(() => toJsonSchema("{type: string}"))).toBe("not JSON");
    expect(reasonOf(() => toJsonSchema('{"type":"string"} {"type":"number"}'))).toBe("several JSON values");
    expect(reasonOf(() => toJsonSchema('["a"]\n["b"]'))).toBe("several JSON values");
    expect(reasonOf(() => toJsonSchema("42"))).toMatch(/must be a JSON object/);
  });

  it("copies an object source, so later edits do not leak in", () => {
    const source: Record<string, unknown> = { type: "object" };
    const json = toJsonSchema(source);
    source.type = "string";
    expect(json).toEqual({ type: "object" });
  });
});

describe("compileJsonSchema", () => {
  it("is strict: unknown format, unknown keyword, dangling $ref are compile errors", () => {
    expect(() => compileJsonSchema({ type: "string", format: "zipcode" })).toThrow(/unknown format "zipcode"/);
    expect(() => compileJsonSchema({ type: "object", requried: ["a"] })).toThrow(/unknown keyword/);
    expect(() => compileJsonSchema({ $ref: "#/$defs/missing" })).toThrow(SchemaError);
  });

  it("reports every issue with its path, applies no defaults", () => {
    const compiled = compileJsonSchema({
      type: "object",
      properties: { a: { type: "string", default: "x" }, b: { type: "integer", minimum: 1 } },
      required: ["a", "b"],
      additionalProperties: false,
    });
    const value = { b: 0, c: true };
    expect(
      compiled
        .validate(value)
        .map((i) => `${i.path}:${i.keyword}`)
        .sort(),
    ).toEqual(["/b:minimum", ":additionalProperties", ":required"]);
    expect(value).toEqual({ b: 0, c: true });
  });
});

describe("toJsonSchema wording", () => {
  it("a standard schema of another vendor is refused naming the vendor", () => {
    const arktype = { "~standard": { version: 1, vendor: "arktype", validate: () => ({ value: 1 }) } };
    expect(reasonOf(() => toJsonSchema(arktype as never))).toBe("only zod schemas can be converted, got a schema from arktype");
  });
});
