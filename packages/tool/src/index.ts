// Public surface of @adaptor/tool: host-defined tools and their errors (docs/errors.md "Host tool errors").

export { ErrInvalidDefinition, ErrInvalidInput, ErrInvalidOutput } from "./errors/sentinels.js";
export { defineTool, Tool, type ToolDefinition, type ToolAnnotations, type ToolContext, type ToolOutput } from "./define-tool.js";
export { reject, asRejection, type Rejection } from "./rejection.js";
export type { SchemaSource, JsonSchemaSource, JsonSchemaObject, StandardSchemaLike, InferSchema } from "./schema/schema-source.js";
export type { ValidationIssue } from "./schema/compile.js";
