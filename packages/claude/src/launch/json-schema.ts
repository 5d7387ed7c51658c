import { InvalidOutputSchemaError, type DriverRequest } from "@adaptor/driver";

/** Longest `--json-schema` argument in bytes; Linux refuses a single argv string over 128 KiB. */
export const MAX_JSON_SCHEMA_BYTES = 100 * 1024;

/** Keywords whose values are data, not subschemas: never searched for `$ref`. */
const DATA_KEYWORDS = new Set(["const", "enum", "default", "examples"]);

/**
 * Normalises an output schema into the dialect `claude --json-schema` accepts (claude 2.1.332),
 * in one place: every local `$ref` (`#`, `#/$defs/…`, `#/definitions/…`, any JSON Pointer into the
 * document) is inlined, `$defs` / `definitions`, `$schema` and `$id` are dropped. A `$ref` beside
 * other keywords becomes `allOf: [<target>]` next to them. The input is not modified.
 *
 * @throws InvalidOutputSchemaError (before any process starts) for a recursive `$ref` (the CLI
 *   cannot take one inlined), a `$ref` that is not local or resolves nowhere, `$dynamicRef`, a
 *   root that is not `type: "object"` (the CLI offers the schema as a tool input), or a result
 *   over {@link MAX_JSON_SCHEMA_BYTES}.
 */
export function toClaudeJsonSchema(schema: Readonly<Record<string, unknown>>): Record<string, unknown> {
  if (schema.type !== "object") {
    throw new InvalidOutputSchemaError(`claude --json-schema needs a root of type "object", got ${JSON.stringify(schema.type)}`);
  }
  const inlined = inline(schema, schema, []) as Record<string, unknown>;
  for (const key of ["$defs", "definitions", "$schema", "$id"]) delete inlined[key];
  return inlined;
}

/** The `--json-schema <json>` arguments of a request, or none without an output schema. @throws see {@link toClaudeJsonSchema}. */
export function jsonSchemaArgs(request: DriverRequest): string[] {
  if (!request.outputSchema) return [];
  const text = JSON.stringify(toClaudeJsonSchema(request.outputSchema));
  if (Buffer.byteLength(text) > MAX_JSON_SCHEMA_BYTES) {
    throw new InvalidOutputSchemaError(
      `schema is ${Buffer.byteLength(text)} bytes inlined, over the ${MAX_JSON_SCHEMA_BYTES}-byte limit of --json-schema`,
    );
  }
  return ["--json-schema", text];
}

function inline(node: unknown, root: Readonly<Record<string, unknown>>, expanding: readonly string[]): unknown {
  if (Array.isArray(node)) return node.map((item) => inline(item, root, expanding));
  if (typeof node !== "object" || node === null) return node;
  const object = node as Record<string, unknown>;
  if (typeof object.$dynamicRef === "string")
    throw new InvalidOutputSchemaError(`$dynamicRef ${JSON.stringify(object.$dynamicRef)} is not supported`);
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(object)) {
    if (key === "$ref" && typeof value === "string") continue;
    out[key] = DATA_KEYWORDS.has(key) ? value : inline(value, root, expanding);
  }
  const ref = object.$ref;
  if (typeof ref !== "string") return out;
  if (!ref.startsWith("#")) throw new InvalidOutputSchemaError(`$ref ${JSON.stringify(ref)} is not local`);
  if (expanding.includes(ref)) throw new InvalidOutputSchemaError(`recursive $ref ${JSON.stringify(ref)}`);
  const target = resolvePointer(root, ref);
  if (target === undefined) throw new InvalidOutputSchemaError(`$ref ${JSON.stringify(ref)} resolves nowhere`);
  const expanded = inline(target, root, [...expanding, ref]);
  if (typeof expanded === "object" && expanded !== null && !Array.isArray(expanded)) {
    for (const key of ["$defs", "definitions", "$schema", "$id"]) delete (expanded as Record<string, unknown>)[key];
  }
  delete out.$defs;
  delete out.definitions;
  if (Object.keys(out).length === 0) return expanded;
  const allOf = Array.isArray(out.allOf) ? out.allOf : [];
  return { ...out, allOf: [...allOf, expanded] };
}

/** The value at a `#/a/b` fragment (RFC 6901, percent-decoded), else `undefined`. */
function resolvePointer(root: unknown, ref: string): unknown {
  let pointer: string;
  try {
    pointer = decodeURIComponent(ref.slice(1));
  } catch {
    return undefined;
  }
  if (pointer === "") return root;
  if (!pointer.startsWith("/")) return undefined;
  let node: unknown = root;
  for (const raw of pointer.slice(1).split("/")) {
    const key = raw.replace(/~1/g, "/").replace(/~0/g, "~");
    if (typeof node !== "object" || node === null || !Object.hasOwn(node, key)) return undefined;
    node = (node as Record<string, unknown>)[key];
  }
  return node;
}
