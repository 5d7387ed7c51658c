import type { DriverSink } from "@adaptor/driver";
import { stripOptionalNulls } from "./strict-output-schema.js";

/**
 * The structured value of a turn's final message under the caller's `outputSchema`: the message
 * parsed as JSON with the strict-mode nulls removed ({@link stripOptionalNulls}). Undefined when
 * there is no schema or no text, and when the text is not JSON (a `notice` on `sink` says so).
 */
export function structuredAnswer(text: string, outputSchema: Readonly<Record<string, unknown>> | undefined, sink: DriverSink): unknown {
  if (!outputSchema || !text) return undefined;
  try {
    return stripOptionalNulls(JSON.parse(text) as unknown, outputSchema);
  } catch {
    sink.emit({ type: "notice", kind: "runtime", message: "structured output: the final message is not JSON" });
    return undefined;
  }
}
