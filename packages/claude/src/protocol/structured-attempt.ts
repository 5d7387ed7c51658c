import type { TranscriptItem } from "@adaptor/driver";

/**
 * The `result` subtype of a turn Claude Code gave up on because the model's `StructuredOutput`
 * answers kept failing its own check of `--json-schema` (claude 2.1.332: after 5 tries; the line
 * has no `structured_output` and the process exits with code 1).
 */
export const STRUCTURED_RETRIES_SPENT = "error_max_structured_output_retries";

/** The tool Claude Code offers the model under `--json-schema`: its input is the structured answer. */
/** The tool the CLI offers the model under `--json-schema` to give its structured answer. */
export const STRUCTURED_OUTPUT_TOOL = "StructuredOutput";

/**
 * The structured answer of a turn Claude Code gave up on ({@link STRUCTURED_RETRIES_SPENT}): the
 * input of its last `StructuredOutput` call, the answer the CLI refused last. Undefined when the
 * model never called the tool.
 */
export function lastStructuredAttempt(transcript: readonly TranscriptItem[]): unknown {
  for (let i = transcript.length - 1; i >= 0; i--) {
    const item = transcript[i]!;
    if (item.kind === "tool-call" && item.toolName === STRUCTURED_OUTPUT_TOOL) return item.input;
  }
  return undefined;
}
