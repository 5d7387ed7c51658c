import type { ApprovalAsk, DriverEvent } from "@adaptor/driver";
import { boundToolName, TOOL_NAME_MAX_LENGTH } from "@adaptor/driver/kit";

/**
 * `event` with its tool name (a `tool-call`'s `name`, a `tool-result`'s) cut to
 * {@link TOOL_NAME_MAX_LENGTH} characters: the name is the model's text, and a driver repeats it on
 * every event of the call (each `args` fragment), so a long one must not grow each of them.
 * `event` itself when its name fits.
 */
export function withBoundedToolName(event: DriverEvent): DriverEvent {
  if (event.type !== "tool-call" && event.type !== "tool-result") return event;
  const name: unknown = event.name;
  if (typeof name !== "string" || name.length <= TOOL_NAME_MAX_LENGTH) return event;
  return { ...event, name: boundToolName(name) };
}

/** `ask` with its `toolName` cut to {@link TOOL_NAME_MAX_LENGTH} characters; `ask` itself when it fits. */
export function askWithBoundedToolName(ask: ApprovalAsk): ApprovalAsk {
  const name: unknown = ask.toolName;
  if (typeof name !== "string" || name.length <= TOOL_NAME_MAX_LENGTH) return ask;
  return { ...ask, toolName: boundToolName(name) };
}
