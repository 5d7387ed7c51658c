import type { OverrideCallback } from "zod-to-json-schema";
import type { $ZodType } from "zod/v4/core";
import { SchemaError } from "./schema-error.js";
import { isStandardSchema, type JsonSchemaObject, type SchemaSource, type StandardSchemaLike } from "./schema-source.js";
import { schemaMetadata, zodStack } from "./schema-stack.js";

/** zod 3 kinds with no JSON value (or no JSON Schema for it): converting them would silently accept anything. */
const UNREPRESENTABLE_V3 = new Set([
  "ZodFunction",
  "ZodSymbol",
  "ZodBigInt",
  "ZodDate",
  "ZodMap",
  "ZodSet",
  "ZodPromise",
  "ZodUndefined",
  "ZodVoid",
  "ZodNaN",
]);

const refuseUnrepresentable: OverrideCallback = (def, refs) => {
  const kind = (def as { typeName?: unknown }).typeName;
  if (typeof kind === "string" && UNREPRESENTABLE_V3.has(kind)) {
    const at = refs.currentPath.slice(1).join("/");
    throw new SchemaError(`zod ${kind} cannot be converted to JSON Schema${at ? ` (at /${at})` : ""}`);
  }
  return zodStack().ignoreOverride;
};

/** Draft URIs a converter may stamp; any other `$schema` is kept and refused by the compiler. */
const DRAFT_2020_12 = "https://json-schema.org/draft/2020-12/schema";

/**
 * Turns a schema option into a JSON Schema object (draft 2020-12), without compiling it:
 * - a zod 3 schema through zod-to-json-schema (target 2019-09, whose output is 2020-12 compatible
 *   for what zod emits; `$schema` dropped), describing the *input* side of effects;
 * - a zod 4 schema (`zod/v4` or zod 4.x) through zod's own `toJSONSchema` (draft 2020-12, input side);
 * - a JSON text: exactly one JSON value, which must be an object;
 * - an object: deep-copied, so later edits by the caller change nothing.
 *
 * @throws SchemaError with reason `"empty document"`, `"several JSON values"`, `"not JSON"`,
 *   `"schema must be a JSON object"`, `"... cannot be converted to JSON Schema"` (function, bigint,
 *   date, symbol, map, set, promise, undefined, void, NaN) or `"only zod schemas can be converted"`.
 */
export function toJsonSchema(source: SchemaSource): JsonSchemaObject {
  if (typeof source === "string") return asObject(parseJsonText(source));
  if (isStandardSchema(source)) return fromStandardSchema(source);
  if (typeof source !== "object" || source === null) {
    throw new SchemaError(`schema must be a zod schema, a JSON Schema object or its JSON text, got ${describeType(source)}`);
  }
  let copy: unknown;
  try {
    copy = JSON.parse(JSON.stringify(source)) as unknown;
  } catch (cause) {
    throw new SchemaError("schema object is not JSON-serialisable", { cause });
  }
  return asObject(copy);
}

function fromStandardSchema(schema: StandardSchemaLike): JsonSchemaObject {
  if (schema["~standard"].vendor !== "zod") {
    throw new SchemaError(`only zod schemas can be converted, got a schema from ${schema["~standard"].vendor}`);
  }
  const { toJSONSchema, zodToJsonSchema, globalRegistry } = zodStack();
  let converted: unknown;
  try {
    if ("_zod" in schema) {
      converted = toJSONSchema(schema as unknown as $ZodType, {
        target: "draft-2020-12",
        unrepresentable: "throw",
        io: "input",
        metadata: schemaMetadata(globalRegistry),
      });
    } else {
      converted = zodToJsonSchema(schema as never, {
        target: "jsonSchema2019-09",
        $refStrategy: "root",
        effectStrategy: "input",
        override: refuseUnrepresentable,
      });
    }
  } catch (cause) {
    if (cause instanceof SchemaError) throw cause;
    throw new SchemaError(`zod schema cannot be converted to JSON Schema: ${cause instanceof Error ? cause.message : String(cause)}`, {
      cause,
    });
  }
  const object = { ...asObject(converted) } as Record<string, unknown>;
  if (typeof object.$schema === "string" && object.$schema !== DRAFT_2020_12) delete object.$schema;
  return object;
}

/** Parses a JSON Schema document held as text: exactly one JSON value. */
function parseJsonText(text: string): unknown {
  if (text.trim() === "") throw new SchemaError("empty document");
  try {
    return JSON.parse(text) as unknown;
  } catch (cause) {
    if (firstValueEnd(text) !== undefined) throw new SchemaError("several JSON values", { cause });
    throw new SchemaError("not JSON", { cause });
  }
}

/**
 * When `text` starts with a complete JSON object or array followed by more non-blank text,
 * the index just past that first value; else `undefined`.
 */
function firstValueEnd(text: string): number | undefined {
  const start = text.length - text.trimStart().length;
  const open = text[start];
  if (open !== "{" && open !== "[") return undefined;
  let depth = 0;
  let inString = false;
  for (let i = start; i < text.length; i++) {
    const ch = text[i];
    if (inString) {
      if (ch === "\\") i++;
      else if (ch === '"') inString = false;
      continue;
    }
    if (ch === '"') inString = true;
    else if (ch === "{" || ch === "[") depth++;
    else if (ch === "}" || ch === "]") {
      depth--;
      if (depth === 0) {
        const end = i + 1;
        if (text.slice(end).trim() === "") return undefined;
        try {
          JSON.parse(text.slice(start, end));
          return end;
        } catch {
          return undefined;
        }
      }
    }
  }
  return undefined;
}

function asObject(value: unknown): JsonSchemaObject {
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new SchemaError(`schema must be a JSON object, got ${describeType(value)}`);
  }
  return value as JsonSchemaObject;
}

function describeType(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  return typeof value;
}
