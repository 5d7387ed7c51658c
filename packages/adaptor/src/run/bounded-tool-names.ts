import type { ApprovalAsk, DriverEvent } from "@adaptor/driver";
import { boundLength, boundToolName, TOOL_NAME_MAX_LENGTH } from "@adaptor/driver/kit";

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

/**
 * The longest approval title the SDK carries (`ApprovalRequest.title`), in UTF-16 code units: an ACP
 * agent's title is its own text (it also names the tool of an agent that sends no tool name), kept
 * bounded so that it cannot grow every approval event and notice that shows it.
 */
export const APPROVAL_TITLE_MAX_LENGTH = 1000;

/** `title` cut to {@link APPROVAL_TITLE_MAX_LENGTH} characters, ending `…` (never splitting a surrogate pair); as it is when it fits. */
function boundTitle(title: string): string {
  return title.length <= APPROVAL_TITLE_MAX_LENGTH ? title : `${boundLength(title, APPROVAL_TITLE_MAX_LENGTH - 1)}…`;
}

/**
 * `ask` with its `toolName` cut to {@link TOOL_NAME_MAX_LENGTH} characters and its `title` to
 * {@link APPROVAL_TITLE_MAX_LENGTH}; `ask` itself when both fit.
 */
export function askWithBoundedToolName(ask: ApprovalAsk): ApprovalAsk {
  const name: unknown = ask.toolName;
  const title: unknown = ask.title;
  const longName = typeof name === "string" && name.length > TOOL_NAME_MAX_LENGTH;
  const longTitle = typeof title === "string" && title.length > APPROVAL_TITLE_MAX_LENGTH;
  if (!longName && !longTitle) return ask;
  return {
    ...ask,
    ...(longName ? { toolName: boundToolName(name) } : {}),
    ...(longTitle ? { title: boundTitle(title) } : {}),
  };
}
