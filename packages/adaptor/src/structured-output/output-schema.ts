import { InvalidOutputSchemaError } from "@adaptor/driver";
import { InvalidOptionError } from "@adaptor/errors";
import type { JsonSchemaObject, JsonSchemaSource, StandardSchemaLike } from "@adaptor/tool";
import { compileJsonSchema, isStandardSchema, SchemaError, toJsonSchema, type CompiledSchema } from "@adaptor/tool/internal";

/** The schema options of one call, as {@link resolveOutputSchema} reads them. */
export interface OutputSchemaOptions {
  readonly schema?: StandardSchemaLike | undefined;
  readonly schemaJSON?: JsonSchemaSource | undefined;
  readonly schemaName?: string | undefined;
  readonly schemaDescription?: string | undefined;
}

/** A call's output schema, converted and compiled before launch. */
export interface OutputSchema {
  /** The JSON Schema (draft 2020-12) the answer is validated against. */
  readonly json: JsonSchemaObject;
  readonly compiled: CompiledSchema;
  /** The zod schema, when the call gave one: its own validation runs after ajv's. */
  readonly standard: StandardSchemaLike | undefined;
  /** Trimmed `schemaName`, `undefined` when blank. */
  readonly name: string | undefined;
  /** Trimmed `schemaDescription`, `undefined` when blank. */
  readonly description: string | undefined;
  /**
   * What a driver enforcing the schema natively is given: {@link json} with {@link name} as its root
   * `title` and {@link description} as its root `description` (the keywords a CLI hands the model
   * with the schema). {@link json} itself when the call names and describes nothing.
   */
  readonly annotated: JsonSchemaObject;
}

/**
 * Derives and compiles the call's output schema, before any process starts.
 * Returns `undefined` when the call has no schema.
 *
 * @throws InvalidOptionError `{ subject: "run options", field: "schemaName" | "schemaDescription" }`
 *   (`ErrInvalidOption`) when the schema's own root `title` / `description` is a different text
 *   (the option would replace it): give one of the two.
 * @throws InvalidOutputSchemaError `{ reason, cause }` (`ErrInvalidOutputSchema`): both `schema` and
 *   `schemaJSON` given; a `schema` that is not a zod schema or cannot be converted; JSON text that
 *   is empty, not JSON or several values; a root that is not an object; anything ajv refuses when
 *   compiling as draft 2020-12 (unknown `format` or keyword, dangling `$ref`, malformed keyword).
 */
export function resolveOutputSchema(options: OutputSchemaOptions): OutputSchema | undefined {
  const { schema, schemaJSON } = options;
  if (schema === undefined && schemaJSON === undefined) return undefined;
  if (schema !== undefined && schemaJSON !== undefined) {
    throw new InvalidOutputSchemaError("give either schema or schemaJSON, not both");
  }
  if (schema !== undefined && !isStandardSchema(schema)) {
    throw new InvalidOutputSchemaError("schema must be a zod schema (use schemaJSON for a JSON Schema)");
  }
  let json: JsonSchemaObject;
  let compiled: CompiledSchema;
  try {
    json = toJsonSchema(schema ?? (schemaJSON as JsonSchemaSource));
    compiled = compileJsonSchema(json);
  } catch (error) {
    if (error instanceof SchemaError) throw new InvalidOutputSchemaError(error.reason, { cause: error });
    throw new InvalidOutputSchemaError(error instanceof Error ? error.message : String(error), { cause: error });
  }
  const name = trimmed(options.schemaName);
  const description = trimmed(options.schemaDescription);
  return Object.freeze({
    json,
    compiled,
    standard: schema,
    name,
    description,
    annotated: annotate(json, { title: [name, "schemaName"], description: [description, "schemaDescription"] }),
  });
}

/** `json` with each given text as its root keyword; refuses to replace a different text already there. */
function annotate(json: JsonSchemaObject, texts: Record<"title" | "description", [string | undefined, string]>): JsonSchemaObject {
  let out = json;
  for (const [keyword, [text, option]] of Object.entries(texts)) {
    if (text === undefined) continue;
    const own = json[keyword];
    if (own !== undefined && own !== text) {
      throw new InvalidOptionError({
        subject: "run options",
        field: option,
        reason: `differs from the schema's own root "${keyword}" (${JSON.stringify(own)}), which it would replace: give one of the two`,
      });
    }
    out = { ...out, [keyword]: text };
  }
  return out;
}

function trimmed(value: string | undefined): string | undefined {
  const text = typeof value === "string" ? value.trim() : "";
  return text === "" ? undefined : text;
}
