import type { ErrorObject, ValidateFunction } from "ajv/dist/2020.js";
import { SchemaError } from "./schema-error.js";
import type { JsonSchemaObject } from "./schema-source.js";
import { ajvStack } from "./schema-stack.js";

/** One reason a value failed its schema, in the words of the validator. */
export interface ValidationIssue {
  /** JSON Pointer of the offending value, `""` for the root, e.g. `"/items/0/price"`. */
  readonly path: string;
  /** What is wrong, e.g. `"must be string"`, `"must match format \"email\""`. */
  readonly message: string;
  /** The JSON Schema keyword that failed, e.g. `"type"`, `"required"`, `"format"`. */
  readonly keyword: string;
}

/** A JSON Schema compiled once, ready to validate values. Immutable. */
export interface CompiledSchema {
  /** The schema document that was compiled (draft 2020-12). */
  readonly json: JsonSchemaObject;
  /** Every issue of `value` against the schema; empty when it is valid. Never throws. */
  validate(value: unknown): readonly ValidationIssue[];
}

/**
 * Compiles `json` as JSON Schema draft 2020-12 with ajv 8 and every ajv-formats format, in strict
 * mode: an unknown keyword or `format`, a `$ref` that resolves nowhere, or a malformed keyword is a
 * compile error. Validation reports all errors, applies no defaults and coerces no types.
 * `options.strict: false` compiles a schema written by someone else (an MCP server's form): unknown
 * keywords and formats are ignored instead of refused.
 *
 * @throws SchemaError whose `reason` is ajv's message (e.g. `unknown format "zip" ignored in schema
 *   at path "#/properties/code"`) and whose `cause` is ajv's error.
 */
export function compileJsonSchema(json: JsonSchemaObject, options: { readonly strict?: boolean } = {}): CompiledSchema {
  const strict = options.strict ?? true;
  const { Ajv2020, addFormats } = ajvStack();
  const ajv = new Ajv2020({
    strict,
    strictTypes: false,
    strictTuples: false,
    strictRequired: false,
    allErrors: true,
    useDefaults: false,
    coerceTypes: false,
    logger: false,
  });
  addFormats(ajv);
  let check: ValidateFunction;
  try {
    check = ajv.compile(json as Record<string, unknown>);
  } catch (cause) {
    throw new SchemaError(cause instanceof Error ? cause.message : String(cause), { cause });
  }
  return Object.freeze({
    json,
    validate(value: unknown): readonly ValidationIssue[] {
      if (check(value)) return [];
      return Object.freeze((check.errors ?? []).map(toIssue));
    },
  });
}

function toIssue(error: ErrorObject): ValidationIssue {
  let message = error.message ?? "is invalid";
  if (error.keyword === "additionalProperties") {
    const extra = (error.params as { additionalProperty?: unknown }).additionalProperty;
    if (typeof extra === "string") message = `${message}: ${JSON.stringify(extra)}`;
  }
  return Object.freeze({ path: error.instancePath, message, keyword: error.keyword });
}

/**
 * The issues as one short line for people (and, for tool input, for the model):
 * `"/id: must be string; /qty: must be >= 1"`, at most `max` issues (default 5), then `"; +N more"`.
 */
export function formatIssues(issues: readonly ValidationIssue[], max = 5): string {
  const shown = issues.slice(0, max).map((issue) => `${issue.path || "/"}: ${issue.message}`);
  const more = issues.length - shown.length;
  return shown.join("; ") + (more > 0 ? `; +${more} more` : "");
}
