import { describe, expect, it } from "vitest";
import { ErrInvalidOutputSchema, InvalidOutputSchemaError } from "@adaptor/driver";
import { isError } from "@adaptor/errors";
import { jsonSchemaArgs, MAX_JSON_SCHEMA_BYTES, toClaudeJsonSchema } from "./json-schema.js";

function refusal(schema: Record<string, unknown>): InvalidOutputSchemaError {
  try {
    toClaudeJsonSchema(schema);
  } catch (error) {
    expect(error).toBeInstanceOf(InvalidOutputSchemaError);
    expect(isError(error, ErrInvalidOutputSchema)).toBe(true);
    return error as InvalidOutputSchemaError;
  }
  throw new Error("expected InvalidOutputSchemaError");
}

describe("claude --json-schema dialect", () => {
  it("inlines local $refs ($defs, definitions, nested pointers) and drops $defs, $schema, $id", () => {
    const schema = {
      $schema: "https://json-schema.org/draft/2020-12/schema",
      $id: "urn:order",
      type: "object",
      properties: {
        billing: { $ref: "#/$defs/address" },
        shipping: { $ref: "#/$defs/address", description: "where to" },
        legacy: { $ref: "#/definitions/money" },
        city: { $ref: "#/$defs/address/properties/city" },
        literal: { const: { $ref: "#/not/a/ref" } },
      },
      required: ["billing"],
      $defs: { address: { type: "object", properties: { city: { type: "string" } } } },
      definitions: { money: { type: "number", minimum: 0 } },
    };
    const before = JSON.stringify(schema);
    expect(toClaudeJsonSchema(schema)).toEqual({
      type: "object",
      properties: {
        billing: { type: "object", properties: { city: { type: "string" } } },
        shipping: { description: "where to", allOf: [{ type: "object", properties: { city: { type: "string" } } }] },
        legacy: { type: "number", minimum: 0 },
        city: { type: "string" },
        literal: { const: { $ref: "#/not/a/ref" } },
      },
      required: ["billing"],
    });
    expect(JSON.stringify(schema)).toBe(before);
  });

  it("a $ref used twice is inlined twice (not mistaken for recursion)", () => {
    const out = toClaudeJsonSchema({
      type: "object",
      properties: { a: { $ref: "#/$defs/n" }, b: { type: "array", items: { $ref: "#/$defs/n" } } },
      $defs: { n: { type: "integer" } },
    });
    expect(out).toEqual({ type: "object", properties: { a: { type: "integer" }, b: { type: "array", items: { type: "integer" } } } });
  });

  it("refuses recursive $refs (direct, mutual, to the root) with InvalidOutputSchemaError", () => {
    expect(refusal({ type: "object", properties: { next: { $ref: "#" } } }).reason).toMatch(/recursive \$ref "#"/);
    expect(
      refusal({
        type: "object",
        properties: { tree: { $ref: "#/$defs/node" } },
        $defs: { node: { type: "object", properties: { children: { type: "array", items: { $ref: "#/$defs/node" } } } } },
      }).reason,
    ).toMatch(/recursive \$ref "#\/\$defs\/node"/);
    expect(
      refusal({
        type: "object",
        properties: { a: { $ref: "#/$defs/a" } },
        $defs: { a: { properties: { b: { $ref: "#/$defs/b" } } }, b: { properties: { a: { $ref: "#/$defs/a" } } } },
      }).reason,
    ).toMatch(/recursive/);
  });

  it("refuses remote, dangling and dynamic refs, a non-object root, and an oversized schema", () => {
    expect(refusal({ type: "object", properties: { a: { $ref: "https://example.com/s.json" } } }).reason).toMatch(/not local/);
    expect(refusal({ type: "object", properties: { a: { $ref: "#/$defs/missing" } } }).reason).toMatch(/resolves nowhere/);
    expect(refusal({ type: "object", properties: { a: { $dynamicRef: "#meta" } } }).reason).toMatch(/\$dynamicRef/);
    expect(refusal({ type: "array" }).reason).toMatch(/root of type "object"/);
    const big = { type: "object", description: "x".repeat(MAX_JSON_SCHEMA_BYTES) };
    expect(() => jsonSchemaArgs({ runId: "r", prompt: "p", outputSchema: big })).toThrow(InvalidOutputSchemaError);
  });

  it("jsonSchemaArgs: the flag and compact JSON only when the request has an output schema", () => {
    expect(jsonSchemaArgs({ runId: "r", prompt: "p" })).toEqual([]);
    expect(jsonSchemaArgs({ runId: "r", prompt: "p", outputSchema: { type: "object", properties: { a: { type: "string" } } } })).toEqual([
      "--json-schema",
      '{"type":"object","properties":{"a":{"type":"string"}}}',
    ]);
  });
});
