import type { JsonSchemaObject, ValidationIssue } from "@adaptor/tool";

/** How the value was obtained: the CLI enforced the schema itself, or the prompt asked for JSON. */
export type StructuredOutputSource = "native" | "prompt";

/** Fields of a {@link StructuredOutput}. */
export interface StructuredOutputInit {
  /** See {@link StructuredOutput.source}. */
  readonly source: StructuredOutputSource;
  /** See {@link StructuredOutput.schema}. */
  readonly schema: JsonSchemaObject;
  /** See {@link StructuredOutput.schemaName}. */
  readonly schemaName?: string | undefined;
  /** See {@link StructuredOutput.present}. */
  readonly present: boolean;
  /** See {@link StructuredOutput.value}. */
  readonly value?: unknown;
  /** See {@link StructuredOutput.errors}. */
  readonly errors: readonly ValidationIssue[];
}

/**
 * The checked structured answer of a run with a schema: what was found, whether it
 * satisfies the schema, and why not. Read it from `result.structuredOutput`; `result.decode()`
 * returns {@link value} only when {@link valid}. Immutable.
 */
export class StructuredOutput {
  /** `"native"` (the CLI enforced the schema; the SDK validated again) or `"prompt"` (instructions + local validation). */
  readonly source: StructuredOutputSource;
  /** The JSON Schema (draft 2020-12) the value was validated against. */
  readonly schema: JsonSchemaObject;
  /** `schemaName` of the call, trimmed. */
  readonly schemaName: string | undefined;
  /** True when a value was found: native, the CLI returned one; prompt, the final text was exactly one JSON value. */
  readonly present: boolean;
  /** True when a value was found and it satisfies the schema (and the zod schema, when one was given). */
  readonly valid: boolean;
  /**
   * The value: when valid and the schema is a zod schema, zod's parsed output; otherwise the JSON
   * value as found (invalid values included). `undefined` when none was found.
   */
  readonly value: unknown;
  /** Why it is invalid: a missing value, unparseable text, or each schema violation. Empty when valid. */
  readonly errors: readonly ValidationIssue[];

  /** @internal Made by the SDK after the run. */
  constructor(init: StructuredOutputInit) {
    this.source = init.source;
    this.schema = init.schema;
    this.schemaName = init.schemaName;
    this.present = init.present;
    this.errors = Object.freeze(init.errors.map((issue) => Object.freeze({ ...issue })));
    this.valid = init.present && this.errors.length === 0;
    this.value = init.value;
    Object.freeze(this);
  }
}
