import { InvalidOptionError } from "@adaptor/errors";
import type { ApprovalDecision } from "@adaptor/driver";
import { compileJsonSchema, formatIssues, type CompiledSchema } from "@adaptor/tool/internal";

/** What the answer check reads of an `elicitation` ask: its mode and, for a form, its schema. */
export interface ElicitationFacts {
  /** `form` or `url`. */
  readonly mode: string;
  /** The form's JSON Schema, for `form`. */
  readonly requestedSchema?: Readonly<Record<string, unknown>> | undefined;
}

/** The {@link ElicitationFacts} in an ask's `details` (`mode`, `requestedSchema`); mode `form` when it names none. */
export function elicitationFactsOf(details: unknown): ElicitationFacts {
  const record = (typeof details === "object" && details !== null ? details : {}) as Record<string, unknown>;
  const schema = record["requestedSchema"];
  return {
    mode: record["mode"] === "url" ? "url" : "form",
    requestedSchema:
      typeof schema === "object" && schema !== null && !Array.isArray(schema) ? (schema as Record<string, unknown>) : undefined,
  };
}

/** Compiled form schemas by schema object (a request's schema is checked at each answer), or why one cannot compile. */
const compiled = new WeakMap<object, CompiledSchema | { readonly uncompilable: string }>();

function compiledSchema(schema: Readonly<Record<string, unknown>>): CompiledSchema | { readonly uncompilable: string } {
  let entry = compiled.get(schema);
  if (entry === undefined) {
    // An MCP form is a flat object of primitive fields: its `$schema` (often draft-07) only names a
    // dialect, which ajv's 2020-12 build refuses to compile; the fields validate the same without it.
    const { $schema: _dialect, ...rest } = schema;
    try {
      // A server's schema, not ours: keywords ajv does not know (MCP's `enumNames`) are ignored.
      entry = compileJsonSchema(rest, { strict: false });
    } catch (error) {
      entry = { uncompilable: error instanceof Error ? error.message : String(error) };
    }
    compiled.set(schema, entry);
  }
  return entry;
}

/**
 * Why an accepting `decision` (an approve, or `answer("accept")`) on an elicitation cannot be sent,
 * or undefined when it can: a `url` elicitation takes no content (`InvalidOptionError`, field
 * `updatedInput`); a form's content (the approve's `updatedInput`, `{}` without one) must be valid
 * against the requested schema, checked with ajv (`InvalidOptionError`, field `updatedInput`, its
 * `reason` listing the issues, e.g. `/: must have required property 'name'`). Nothing is sent for
 * a refused answer: the request stays pending. The schema's `$schema` is ignored (it is checked as
 * draft 2020-12, which a flat MCP form reads the same in any draft). A schema that still cannot be
 * compiled refuses every accepting answer (`InvalidOptionError`, field `updatedInput`, its `reason`
 * naming the compile error): content that cannot be checked is not sent; decline or cancel it.
 */
export function elicitationContentError(
  id: string,
  facts: ElicitationFacts,
  decision: ApprovalDecision,
  subject: string,
): InvalidOptionError | undefined {
  const accepting = decision.outcome === "approve" || (decision.outcome === "answer" && decision.choice === "accept");
  if (!accepting) return undefined;
  const content = decision.outcome === "approve" ? decision.updatedInput : undefined;
  if (facts.mode === "url") {
    if (content === undefined) return undefined;
    return new InvalidOptionError({
      subject,
      field: "updatedInput",
      reason: `approval ${id} is a URL elicitation, which takes no content (approve() without updatedInput once the page was opened)`,
    });
  }
  const schema = facts.requestedSchema === undefined ? undefined : compiledSchema(facts.requestedSchema);
  if (!schema) return undefined;
  if ("uncompilable" in schema) {
    return new InvalidOptionError({
      subject,
      field: "updatedInput",
      reason: `the requested schema of approval ${id} cannot be compiled (${schema.uncompilable}), so no content can be checked against it; decline or cancel it instead`,
    });
  }
  const issues = schema.validate(content ?? {});
  if (issues.length === 0) return undefined;
  return new InvalidOptionError({
    subject,
    field: "updatedInput",
    reason: `the form content of approval ${id} does not match the requested schema: ${formatIssues(issues)}`,
  });
}
