// `@adaptor/tool/internal`: SDK plumbing shared with `adaptor` (schema conversion and compilation,
// the tool-call runtime). Not a stable API: no semver promise.

export { toJsonSchema } from "./schema/to-json-schema.js";
export { compileJsonSchema, formatIssues, type CompiledSchema, type ValidationIssue } from "./schema/compile.js";
export { standardValidate } from "./schema/standard-validate.js";
export { SchemaError } from "./schema/schema-error.js";
export { isStandardSchema } from "./schema/schema-source.js";
export { toolInternals, type ToolInternals } from "./define-tool.js";
export { invokeTool, GENERIC_FAILURE_TEXT, type ToolOutcome } from "./runtime/invoke-tool.js";
