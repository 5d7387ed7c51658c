import type { DriverResponse } from "@adaptor/driver";
import type { ValidationIssue } from "@adaptor/tool";
import { standardValidate } from "@adaptor/tool/internal";
import type { OutputSchema } from "./output-schema.js";
import { StructuredOutput, type StructuredOutputSource } from "./structured-output.js";

/**
 * Checks a run's answer against its schema. Native: the value the CLI returned
 * (`response.structured`), validated again locally. Prompt: only the final text, parsed as exactly
 * one JSON value (no fence stripping, no scanning). Then ajv, then the zod schema when there is
 * one (its parsed output becomes the value). Never throws for a bad value: it is reported in
 * `errors`.
 */
export async function checkStructuredOutput(
  schema: OutputSchema,
  source: StructuredOutputSource,
  response: DriverResponse,
): Promise<StructuredOutput> {
  const base = { source, schema: schema.json, schemaName: schema.name };
  let value: unknown;
  if (source === "native") {
    if (response.structured === undefined) {
      return new StructuredOutput({ ...base, present: false, errors: [issue("missing", "the CLI returned no structured value")] });
    }
    value = response.structured;
  } else {
    if (response.text.trim() === "") {
      return new StructuredOutput({ ...base, present: false, errors: [issue("missing", "the final text is empty")] });
    }
    try {
      value = JSON.parse(response.text) as unknown;
    } catch {
      return new StructuredOutput({ ...base, present: false, errors: [issue("json", "the final text is not exactly one JSON value")] });
    }
  }
  const errors = [...schema.compiled.validate(value)];
  if (errors.length === 0 && schema.standard) {
    const checked = await standardValidate(schema.standard, value);
    if ("issues" in checked) errors.push(...checked.issues);
    else value = checked.value;
  }
  return new StructuredOutput({ ...base, present: true, value, errors });
}

function issue(keyword: string, message: string): ValidationIssue {
  return { path: "", message, keyword };
}
