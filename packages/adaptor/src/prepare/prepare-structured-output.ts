import type { DriverResponse } from "@adaptor/driver";
import { formatIssues } from "@adaptor/tool/internal";
import type { Preparation } from "./preparation.js";
import { checkStructuredOutput } from "../structured-output/check-output.js";
import { negotiateStructuredOutput } from "../structured-output/negotiate.js";
import { resolveOutputSchema } from "../structured-output/output-schema.js";
import { withOutputInstructions } from "../structured-output/prompt-instructions.js";
import type { StructuredOutput } from "../structured-output/structured-output.js";
import { SPAN } from "../telemetry/span-names.js";

/**
 * Preparation step for structured output: compiles the call's schema
 * (`InvalidOutputSchemaError`; `InvalidOptionError` for a `schemaName` / `schemaDescription` that
 * would replace the schema's own root `title` / `description`), negotiates native vs prompt
 * (`StructuredOutputUnsupportedError`), then either passes `outputSchema` to the driver (with
 * `schemaName` and `schemaDescription` as its root `title` and `description`) or appends
 * instructions naming and describing the schema to the prompt. After the
 * run, the answer is checked; an invalid or missing value fails the run as `policy_violation`
 * (`details`: `validationErrors`, `source`, `schemaName`) with the Result kept, unless
 * `returnInvalid` is set. The checked value is on `result.structuredOutput`.
 */
export function prepareStructuredOutput(prep: Preparation): void {
  const schema = resolveOutputSchema(prep.options);
  if (!schema) return;
  const source = negotiateStructuredOutput(prep.driver.descriptor);
  prep.request =
    source === "native"
      ? { ...prep.request, outputSchema: schema.annotated }
      : { ...prep.request, prompt: withOutputInstructions(prep.request.prompt, schema) };
  const returnInvalid = prep.options.returnInvalid === true;
  prep.onResponse(async (response): Promise<DriverResponse> => {
    // An interrupted turn's partial answer is not held to the schema.
    if (response.failure || response.interrupted) return response;
    const check = (): Promise<StructuredOutput> => checkStructuredOutput(schema, source, response);
    const checked = prep.telemetry
      ? await prep.telemetry.span(
          SPAN.structuredOutput,
          { "adaptor.structured_output.source": source, ...(schema.name ? { "adaptor.structured_output.schema": schema.name } : {}) },
          check,
          (result) => ({
            "adaptor.structured_output.present": result.present,
            "adaptor.structured_output.valid": result.valid,
            "adaptor.structured_output.error_count": result.errors.length,
          }),
        )
      : await check();
    if (checked.valid || returnInvalid) return { ...response, structured: checked };
    return {
      ...response,
      structured: checked,
      failure: {
        reason: "policy_violation",
        message: `structured output (${source}) is ${checked.present ? "invalid" : "missing"}: ${formatIssues(checked.errors)}`,
        details: {
          validationErrors: checked.errors,
          source,
          ...(schema.name ? { schemaName: schema.name } : {}),
        },
      },
    };
  });
}
