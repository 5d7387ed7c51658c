import { describe, expect, it } from "vitest";
import { ErrInvalidOutputSchema, InvalidOutputSchemaError } from "@adaptor/driver";
import { isError } from "@adaptor/errors";
import { stripOptionalNulls, toStrictOutputSchema } from "./strict-output-schema.js";

describe("toStrictOutputSchema", () => {
  it("closes every object, requires every property and makes optional ones nullable", () => {
    const input = {
      $schema: "https://json-schema.org/draft/2020-12/schema",
      type: "object",
      properties: {
        answer: { type: "string", description: "the answer" },
        note: { type: "string", default: "x" },
        level: { enum: ["low", "high"], type: "string" },
        tags: { type: "array", items: { type: "object", properties: { name: { type: "string" } } } },
        meta: { $ref: "#/$defs/Meta" },
      },
      required: ["answer", "tags"],
      $defs: { Meta: { type: "object", properties: { at: { type: "integer" } }, required: ["at"] } },
    };
    const frozen = JSON.stringify(input);
    expect(toStrictOutputSchema(input)).toEqual({
      type: "object",
      properties: {
        answer: { type: "string", description: "the answer" },
        note: { type: ["string", "null"] },
        level: { enum: ["low", "high", null], type: ["string", "null"] },
        tags: {
          type: "array",
          items: {
            type: "object",
            properties: { name: { type: ["string", "null"] } },
            required: ["name"],
            additionalProperties: false,
          },
        },
        meta: { anyOf: [{ $ref: "#/$defs/Meta" }, { type: "null" }] },
      },
      required: ["answer", "note", "level", "tags", "meta"],
      additionalProperties: false,
      $defs: { Meta: { type: "object", properties: { at: { type: "integer" } }, required: ["at"], additionalProperties: false } },
    });
    expect(JSON.stringify(input)).toBe(frozen);
  });

  it("keeps an already strict schema as it is and appends null to an optional anyOf once", () => {
    const strict = { type: "object", properties: { a: { type: "number" } }, required: ["a"], additionalProperties: false };
    expect(toStrictOutputSchema(strict)).toEqual(strict);
    const union = { type: "object", properties: { u: { anyOf: [{ type: "string" }, { type: "number" }] } } };
    expect(toStrictOutputSchema(union).properties).toEqual({ u: { anyOf: [{ type: "string" }, { type: "number" }, { type: "null" }] } });
  });

  it.each([
    ["a non-object root", { type: "array", items: { type: "string" } }, /root must be type "object"/],
    ["oneOf", { type: "object", properties: { a: { oneOf: [{ type: "string" }, { type: "number" }] } } }, /"oneOf" cannot be expressed/],
    ["allOf", { type: "object", allOf: [{ properties: {} }] }, /"allOf"/],
    ["an open map", { type: "object", additionalProperties: { type: "string" } }, /open map/],
    ["tuple items", { type: "object", properties: { t: { type: "array", items: [{ type: "string" }] } } }, /tuple/],
    ["a remote $ref", { type: "object", properties: { r: { $ref: "https://example.com/s.json" } } }, /non-local \$ref/],
    ["patternProperties", { type: "object", patternProperties: { "^x": { type: "string" } } }, /patternProperties/],
  ])("refuses %s with InvalidOutputSchemaError", (_name, schema, message) => {
    const err = (() => {
      try {
        toStrictOutputSchema(schema);
      } catch (e) {
        return e;
      }
      return undefined;
    })();
    expect(err).toBeInstanceOf(InvalidOutputSchemaError);
    expect(isError(err, ErrInvalidOutputSchema)).toBe(true);
    expect((err as Error).message).toMatch(message);
  });

  it("refuses a cyclic value as not JSON, keeping the cause", () => {
    const cyclic: Record<string, unknown> = { type: "object" };
    cyclic.self = cyclic;
    const err = (() => {
      try {
        toStrictOutputSchema(cyclic);
      } catch (e) {
        return e as InvalidOutputSchemaError;
      }
      return undefined;
    })();
    expect(err?.reason).toBe("not JSON");
    expect(err?.cause).toBeInstanceOf(TypeError);
  });
});

describe("stripOptionalNulls", () => {
  const schema = {
    type: "object",
    properties: {
      answer: { type: "string" },
      note: { type: "string" },
      maybe: { type: ["string", "null"] },
      items: { type: "array", items: { $ref: "#/$defs/Item" } },
    },
    required: ["answer"],
    $defs: { Item: { type: "object", properties: { n: { type: "number" }, label: { type: "string" } }, required: ["n"] } },
  };

  it("drops nulls the strict form allowed where the original does not, and keeps the rest", () => {
    expect(
      stripOptionalNulls(
        {
          answer: "a",
          note: null,
          maybe: null,
          items: [
            { n: 1, label: null },
            { n: 2, label: "x" },
          ],
        },
        schema,
      ),
    ).toEqual({ answer: "a", maybe: null, items: [{ n: 1 }, { n: 2, label: "x" }] });
  });

  it("leaves a required null and unknown keys alone (validation reports them)", () => {
    expect(stripOptionalNulls({ answer: null, extra: null }, schema)).toEqual({ answer: null, extra: null });
    expect(stripOptionalNulls("not an object", schema)).toBe("not an object");
  });
});
