/**
 * A Standard Schema (https://standardschema.dev) value, as zod 3.24+ and zod 4 schemas are. Only
 * zod schemas (`vendor: "zod"`) can be converted to JSON Schema; other vendors are refused.
 */
export interface StandardSchemaLike<Output = unknown> {
  readonly "~standard": {
    readonly version: 1;
    readonly vendor: string;
    readonly validate: (value: unknown) => unknown;
    readonly types?: { readonly input: unknown; readonly output: Output } | undefined;
  };
}

/** A JSON Schema document: a parsed object, or its JSON text (exactly one JSON value). */
export type JsonSchemaSource = Readonly<Record<string, unknown>> | string;

/** What a schema option accepts: a zod schema (v3 or v4) or a JSON Schema (draft 2020-12). */
export type SchemaSource = StandardSchemaLike | JsonSchemaSource;

/** A JSON Schema object (draft 2020-12), as the SDK sends it to a CLI or an MCP client. */
export type JsonSchemaObject = Readonly<Record<string, unknown>>;

/**
 * The value type a schema describes: a zod schema's output type, `unknown` for a JSON Schema.
 * @example
 * type Order = InferSchema<typeof orderSchema>; // { id: string; total: number }
 */
export type InferSchema<S> = S extends { readonly "~standard": { readonly types?: infer T } }
  ? NonNullable<T> extends { readonly output: infer O }
    ? O
    : unknown
  : unknown;

/** True for a Standard Schema value (a zod schema, or another vendor's). */
export function isStandardSchema(value: unknown): value is StandardSchemaLike {
  if ((typeof value !== "object" && typeof value !== "function") || value === null) return false;
  const standard = (value as { "~standard"?: unknown })["~standard"];
  return typeof standard === "object" && standard !== null && typeof (standard as { validate?: unknown }).validate === "function";
}
