import { AdaptorError } from "@adaptor/errors";
import { toolInternals, type Tool, type ToolContext } from "../define-tool.js";
import { ErrInvalidInput, ErrInvalidOutput } from "../errors/sentinels.js";
import { asRejection, type Rejection } from "../rejection.js";
import { formatIssues, type ValidationIssue } from "../schema/compile.js";
import { standardValidate } from "../schema/standard-validate.js";

/** Longest `invalid_input` hint the model gets, in characters. */
const HINT_LIMIT = 300;

/** Generic text the model gets for every failure that is not a rejection or invalid input. */
export const GENERIC_FAILURE_TEXT = "tool_error: the tool failed; the details are not shared";

/**
 * How one tool call ended. `modelText` is exactly what the agent sees; `error` (failures) is the
 * full error for the host, never sent to the model.
 */
export type ToolOutcome =
  | {
      readonly kind: "success";
      readonly modelText: string;
      /** The validated value as JSON (after a JSON round trip). */
      readonly value: unknown;
      /** The value as MCP `structuredContent`, when an output schema is declared and the value is an object. */
      readonly structured?: Readonly<Record<string, unknown>>;
    }
  | { readonly kind: "rejected"; readonly modelText: string; readonly error: Rejection }
  | {
      readonly kind: "invalid_input" | "invalid_output";
      readonly modelText: string;
      readonly error: AdaptorError;
      readonly issues: readonly ValidationIssue[];
    }
  | { readonly kind: "failed"; readonly modelText: string; readonly error: unknown };

/**
 * Runs one call of `tool` at the host boundary (docs/errors.md "Host tool errors"): validates
 * `args` (omitted → `{}`; ajv, then the zod schema when there is one) → `invalid_input` with a
 * short hint; runs the handler; JSON-encodes and validates its value → `invalid_output`. A
 * {@link reject} rejection reaches the model as `"<code>: <message>"`; every other failure as
 * {@link GENERIC_FAILURE_TEXT}. Never throws.
 */
export async function invokeTool(tool: Tool, args: unknown, context: ToolContext): Promise<ToolOutcome> {
  const internals = toolInternals(tool);
  if (!internals || tool.definitionError) {
    return {
      kind: "failed",
      modelText: GENERIC_FAILURE_TEXT,
      error: tool.definitionError ?? new Error("not a tool of this @adaptor/tool copy"),
    };
  }
  const input = args === undefined || args === null ? {} : args;
  const inputIssues = [...(internals.input?.validate(input) ?? [])];
  let parsed: unknown = input;
  if (inputIssues.length === 0 && internals.inputStandard) {
    const checked = await standardValidate(internals.inputStandard, input);
    if ("issues" in checked) inputIssues.push(...checked.issues);
    else parsed = checked.value;
  }
  if (inputIssues.length > 0) {
    const hint = formatIssues(inputIssues, 3);
    return {
      kind: "invalid_input",
      modelText: `invalid_input: ${hint.length > HINT_LIMIT ? `${hint.slice(0, HINT_LIMIT - 1)}…` : hint}`,
      error: new AdaptorError(`tool ${tool.name}: invalid input: ${formatIssues(inputIssues)}`, { sentinel: ErrInvalidInput }),
      issues: inputIssues,
    };
  }

  let returned: unknown;
  try {
    context.signal.throwIfAborted();
    returned = await internals.handler(parsed, context);
  } catch (error) {
    return failure(error);
  }
  if (asRejection(returned)) return failure(returned);

  let json: unknown;
  try {
    const text = JSON.stringify(returned === undefined ? null : returned);
    json = JSON.parse(text) as unknown;
  } catch (cause) {
    const error = new AdaptorError(`tool ${tool.name}: output is not JSON-serialisable`, { sentinel: ErrInvalidOutput, cause });
    return { kind: "invalid_output", modelText: GENERIC_FAILURE_TEXT, error, issues: [] };
  }
  const outputIssues = [...(internals.output?.validate(json) ?? [])];
  if (outputIssues.length === 0 && internals.outputStandard) {
    const checked = await standardValidate(internals.outputStandard, returned);
    if ("issues" in checked) outputIssues.push(...checked.issues);
  }
  if (outputIssues.length > 0) {
    const error = new AdaptorError(`tool ${tool.name}: invalid output: ${formatIssues(outputIssues)}`, { sentinel: ErrInvalidOutput });
    return { kind: "invalid_output", modelText: GENERIC_FAILURE_TEXT, error, issues: outputIssues };
  }
  const structured =
    internals.output && typeof json === "object" && json !== null && !Array.isArray(json)
      ? (json as Readonly<Record<string, unknown>>)
      : undefined;
  return {
    kind: "success",
    modelText: typeof json === "string" ? json : JSON.stringify(json),
    value: json,
    ...(structured ? { structured } : {}),
  };
}

function failure(error: unknown): ToolOutcome {
  const rejection = asRejection(error);
  if (rejection) return { kind: "rejected", modelText: `${rejection.code}: ${rejection.message}`, error: rejection };
  return { kind: "failed", modelText: GENERIC_FAILURE_TEXT, error };
}
