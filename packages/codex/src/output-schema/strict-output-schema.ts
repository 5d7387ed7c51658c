import { InvalidOutputSchemaError } from "@adaptor/driver";

type Schema = Record<string, unknown>;

/** Keywords strict structured outputs cannot express; a schema using one is refused. */
const REFUSED_KEYWORDS = [
  "oneOf",
  "allOf",
  "not",
  "if",
  "then",
  "else",
  "patternProperties",
  "dependentSchemas",
  "dependentRequired",
  "unevaluatedProperties",
  "unevaluatedItems",
  "propertyNames",
  "prefixItems",
  "contains",
] as const;

/** Annotations dropped from the copy sent to the provider (they constrain nothing). */
const DROPPED_KEYWORDS = new Set(["$schema", "$id", "default", "examples", "$comment"]);

function isSchema(value: unknown): value is Schema {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * Rewrites a JSON Schema into the form the OpenAI Responses API accepts for strict structured
 * output (codex sends the turn's `outputSchema` as `text.format` `json_schema` with
 * `strict: true`, seen on codex 0.171.0):
 * - every object is closed (`additionalProperties: false`) and lists every property in `required`;
 * - a property the input did not require is made nullable (`"null"` added to its `type` / `enum`,
 *   or the schema wrapped in `anyOf: [schema, {type: "null"}]`); {@link stripOptionalNulls} undoes
 *   that on the answer;
 * - `$schema`, `$id`, `$comment`, `default` and `examples` are dropped; `$defs` / `definitions` are
 *   normalised in place so local `$ref`s keep working.
 * The input is not modified; the result is a fresh, JSON-serialisable object.
 *
 * @throws InvalidOutputSchemaError before anything is launched when the schema cannot be expressed:
 * not a JSON object (or not JSON at all: cycles, functions), a root that is not `type: "object"`,
 * a keyword strict mode lacks (`oneOf`, `allOf`, `not`, `if`/`then`/`else`, `patternProperties`,
 * `dependent*`, `unevaluated*`, `propertyNames`, `prefixItems`, `contains`), an open map
 * (`additionalProperties` given as a schema), tuple `items` (an array), or a non-local `$ref`.
 */
export function toStrictOutputSchema(schema: Readonly<Record<string, unknown>>): Record<string, unknown> {
  let copy: unknown;
  try {
    copy = JSON.parse(JSON.stringify(schema)) as unknown;
  } catch (err) {
    throw new InvalidOutputSchemaError("not JSON", { cause: err });
  }
  if (!isSchema(copy)) throw new InvalidOutputSchemaError("not a JSON object");
  const rootType = copy.type;
  if (rootType !== "object" && !(rootType === undefined && isSchema(copy.properties))) {
    throw new InvalidOutputSchemaError(`root must be type "object" for strict structured output, got ${JSON.stringify(rootType ?? null)}`);
  }
  return normalise(copy, "#");
}

function normalise(schema: Schema, path: string): Schema {
  for (const keyword of REFUSED_KEYWORDS) {
    if (keyword in schema) throw new InvalidOutputSchemaError(`${path}: "${keyword}" cannot be expressed in a strict schema`);
  }
  const out: Schema = {};
  for (const [key, value] of Object.entries(schema)) {
    if (DROPPED_KEYWORDS.has(key)) continue;
    out[key] = value;
  }
  if (typeof out.$ref === "string" && !out.$ref.startsWith("#")) {
    throw new InvalidOutputSchemaError(`${path}: non-local $ref ${JSON.stringify(out.$ref)}`);
  }
  for (const defs of ["$defs", "definitions"]) {
    if (isSchema(out[defs])) {
      out[defs] = Object.fromEntries(Object.entries(out[defs]).map(([name, sub]) => [name, normaliseSub(sub, `${path}/${defs}/${name}`)]));
    }
  }
  if (Array.isArray(out.anyOf)) out.anyOf = out.anyOf.map((sub, i) => normaliseSub(sub, `${path}/anyOf/${i}`));
  if (out.items !== undefined) {
    if (Array.isArray(out.items)) throw new InvalidOutputSchemaError(`${path}: tuple "items" (an array) cannot be expressed`);
    out.items = normaliseSub(out.items, `${path}/items`);
  }
  const type = out.type;
  const isObject = type === "object" || (Array.isArray(type) && type.includes("object")) || isSchema(out.properties);
  if (isObject) {
    if (out.additionalProperties !== undefined && typeof out.additionalProperties !== "boolean") {
      throw new InvalidOutputSchemaError(`${path}: "additionalProperties" as a schema (an open map) cannot be expressed`);
    }
    const properties = isSchema(out.properties) ? out.properties : {};
    const required = new Set(Array.isArray(out.required) ? out.required.filter((k): k is string => typeof k === "string") : []);
    const closed: Schema = {};
    for (const [name, sub] of Object.entries(properties)) {
      const strict = normaliseSub(sub, `${path}/properties/${name}`);
      closed[name] = required.has(name) ? strict : nullable(strict);
    }
    out.properties = closed;
    out.required = Object.keys(closed);
    out.additionalProperties = false;
  }
  return out;
}

function normaliseSub(sub: unknown, path: string): Schema {
  if (sub === true) return {};
  if (!isSchema(sub)) throw new InvalidOutputSchemaError(`${path}: not a schema object`);
  return normalise(sub, path);
}

function nullable(schema: Schema): Schema {
  const type = schema.type;
  if (typeof type === "string" || Array.isArray(type)) {
    const types = Array.isArray(type) ? [...(type as unknown[])] : [type];
    const out: Schema = { ...schema, type: types.includes("null") ? types : [...types, "null"] };
    if (Array.isArray(schema.enum) && !schema.enum.includes(null)) out.enum = [...schema.enum, null];
    if ("const" in schema) return { anyOf: [schema, { type: "null" }] };
    return out;
  }
  if (Array.isArray(schema.anyOf)) {
    const hasNull = schema.anyOf.some((branch) => isSchema(branch) && branch.type === "null");
    return hasNull ? schema : { ...schema, anyOf: [...schema.anyOf, { type: "null" }] };
  }
  return { anyOf: [schema, { type: "null" }] };
}

/**
 * Removes the `null`s that {@link toStrictOutputSchema} made possible: walks `value` along the
 * caller's original `schema` (properties, items, local `$ref`s) and deletes an object key whose
 * value is `null` when the original did not require that property and its schema does not allow
 * `null`. Everything else is returned unchanged (a new object where something was removed).
 */
export function stripOptionalNulls(value: unknown, schema: Readonly<Record<string, unknown>>): unknown {
  return strip(value, schema, schema, 0);
}

function resolveRef(schema: Schema, root: Readonly<Record<string, unknown>>): Schema {
  let current = schema;
  for (let hops = 0; typeof current.$ref === "string" && hops < 32; hops++) {
    const ref = current.$ref as string;
    if (ref === "#") return root as Schema;
    const match = /^#\/(\$defs|definitions)\/(.+)$/.exec(ref);
    const defs = match ? root[match[1] as string] : undefined;
    const target = isSchema(defs) ? defs[decodeURIComponent((match?.[2] ?? "").replace(/~1/g, "/").replace(/~0/g, "~"))] : undefined;
    if (!isSchema(target)) return current;
    current = target;
  }
  return current;
}

function allowsNull(schema: unknown): boolean {
  if (!isSchema(schema)) return true;
  const type = schema.type;
  if (type === "null" || (Array.isArray(type) && type.includes("null"))) return true;
  if (schema.nullable === true) return true;
  if (Array.isArray(schema.enum)) return schema.enum.includes(null);
  if ("const" in schema) return schema.const === null;
  for (const key of ["anyOf", "oneOf"]) {
    const branches = schema[key];
    if (Array.isArray(branches)) return branches.some(allowsNull);
  }
  return type === undefined && schema.$ref === undefined;
}

function strip(value: unknown, schema: unknown, root: Readonly<Record<string, unknown>>, depth: number): unknown {
  if (!isSchema(schema) || depth > 64) return value;
  const resolved = resolveRef(schema, root);
  if (Array.isArray(value)) {
    const items = resolved.items;
    return isSchema(items) ? value.map((item) => strip(item, items, root, depth + 1)) : value;
  }
  if (!isSchema(value)) return value;
  const properties = isSchema(resolved.properties) ? resolved.properties : undefined;
  if (!properties) return value;
  const required = new Set(Array.isArray(resolved.required) ? resolved.required : []);
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    const sub = resolveRefOrSelf(properties[key], root);
    if (item === null && sub !== undefined && !required.has(key) && !allowsNull(sub)) continue;
    out[key] = sub === undefined ? item : strip(item, sub, root, depth + 1);
  }
  return out;
}

function resolveRefOrSelf(schema: unknown, root: Readonly<Record<string, unknown>>): unknown {
  return isSchema(schema) ? resolveRef(schema, root) : schema;
}
