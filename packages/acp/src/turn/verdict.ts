import type { StopReason } from "@agentclientprotocol/sdk";
import type { DriverFailure } from "@adaptor/driver";

/**
 * The verdict of a `session/prompt` stop reason: `end_turn` succeeds; `cancelled` (the agent
 * stopped the turn itself, the host did not abort) is `cancelled`; `refusal`, `max_tokens` and
 * `max_turn_requests` are `agent_error` with `details.stopReason`.
 */
export function stopReasonFailure(stopReason: StopReason | string): DriverFailure | undefined {
  switch (stopReason) {
    case "end_turn":
      return undefined;
    case "cancelled":
      return { reason: "cancelled", message: "the agent cancelled the turn", details: { stopReason } };
    case "refusal":
      return { reason: "agent_error", message: "the agent refused to continue (stop reason refusal)", details: { stopReason } };
    case "max_tokens":
      return { reason: "agent_error", message: "the model reached its token limit (stop reason max_tokens)", details: { stopReason } };
    case "max_turn_requests":
      return {
        reason: "agent_error",
        message: "the turn reached the agent's limit of model requests (stop reason max_turn_requests)",
        details: { stopReason },
      };
    default:
      return { reason: "agent_error", message: `the turn ended with stop reason ${JSON.stringify(stopReason)}`, details: { stopReason } };
  }
}

/**
 * The prompt with instructions to answer with one JSON value matching `schema` (no ACP agent
 * enforces a schema itself; the value is checked locally after the turn).
 */
export function withSchemaInstructions(prompt: string, schema: Readonly<Record<string, unknown>>): string {
  return `${prompt}\n\nAnswer with only one JSON value, no prose and no code fence, that matches this JSON Schema:\n${JSON.stringify(schema)}`;
}

/** `{ structured }` when the final text is one JSON value (a ```json fence around it is allowed), else `{}`. */
export function parseStructured(text: string): { structured?: unknown } {
  const trimmed = text.trim();
  const fenced = /^```(?:json)?\s*([\s\S]*?)\s*```$/.exec(trimmed);
  try {
    return { structured: JSON.parse(fenced?.[1] ?? trimmed) as unknown };
  } catch {
    return {};
  }
}
