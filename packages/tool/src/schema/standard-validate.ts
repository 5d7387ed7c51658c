import type { ValidationIssue } from "./compile.js";
import type { StandardSchemaLike } from "./schema-source.js";

/**
 * Runs a Standard Schema's own `validate` (for zod: `safeParse`, refinements and transforms
 * included): the parsed value, or its issues as {@link ValidationIssue}s (keyword `"schema"`,
 * messages cut at 100 characters). Rejects only if the schema's validate itself throws.
 */
export async function standardValidate(
  schema: StandardSchemaLike,
  value: unknown,
): Promise<{ value: unknown } | { issues: ValidationIssue[] }> {
  const result = (await schema["~standard"].validate(value)) as
    | { value: unknown; issues?: undefined }
    | { issues: readonly { message: string; path?: readonly (PropertyKey | { key: PropertyKey })[] }[] };
  if (!result.issues) return { value: result.value };
  return {
    issues: result.issues.map((issue) => ({
      path: (issue.path ?? []).map((part) => `/${String(typeof part === "object" ? part.key : part)}`).join(""),
      message: issue.message.length > 100 ? `${issue.message.slice(0, 99)}…` : issue.message,
      keyword: "schema",
    })),
  };
}
