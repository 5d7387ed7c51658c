import type { ApprovalAsk, DriverEvent } from "@adaptor/driver";
import { boundDepth, boundLength, boundToolName, TOOL_NAME_MAX_LENGTH } from "@adaptor/driver/kit";

/**
 * `event` with what a driver passes on from the agent or model bounded: its tool name (a
 * `tool-call`'s `name`, a `tool-result`'s) cut to {@link TOOL_NAME_MAX_LENGTH} characters (the
 * name is the model's text, and a driver repeats it on every event of the call, so a long one must
 * not grow each of them), and a `tool-call`'s `input` or a notice's `data` nested deeper than
 * `JSON_DEPTH_MAX` levels cut there (see `boundDepth`), so that every consumer of the event
 * can encode it as JSON. `event` itself when all fits.
 */
export function withBoundedValues(event: DriverEvent): DriverEvent {
  if (event.type === "notice") {
    const data = boundDepth(event.data);
    return data === event.data ? event : { ...event, data };
  }
  if (event.type !== "tool-call" && event.type !== "tool-result") return event;
  const name: unknown = event.name;
  const longName = typeof name === "string" && name.length > TOOL_NAME_MAX_LENGTH;
  // boundDepth returns the value itself when it fits: one walk decides and cuts.
  const input = event.type === "tool-call" ? boundDepth(event.input) : undefined;
  const deepInput = event.type === "tool-call" && input !== event.input;
  if (!longName && !deepInput) return event;
  return {
    ...event,
    ...(longName ? { name: boundToolName(name) } : {}),
    ...(deepInput ? { input } : {}),
  } as DriverEvent;
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

/** The asks {@link boundedAsk} returned with their `input` or `details` cut in depth. */
const depthCut = new WeakSet<ApprovalAsk>();

/**
 * Whether {@link boundedAsk} cut `ask`'s `input` or `details` in depth: part of what the CLI would
 * run is then shown to nobody (a handler, a rule), so the ask is denied without asking.
 */
export function askCutInDepth(ask: ApprovalAsk): boolean {
  return depthCut.has(ask);
}

/**
 * `ask` with its `toolName` cut to {@link TOOL_NAME_MAX_LENGTH} characters, its `title` to
 * {@link APPROVAL_TITLE_MAX_LENGTH}, and its `input` and `details` nested deeper than
 * `JSON_DEPTH_MAX` levels cut there (see `boundDepth`; {@link askCutInDepth} then says so); `ask`
 * itself when all fits.
 */
export function boundedAsk(ask: ApprovalAsk): ApprovalAsk {
  const name: unknown = ask.toolName;
  const title: unknown = ask.title;
  const longName = typeof name === "string" && name.length > TOOL_NAME_MAX_LENGTH;
  const longTitle = typeof title === "string" && title.length > APPROVAL_TITLE_MAX_LENGTH;
  const input = boundDepth(ask.input);
  const details = boundDepth(ask.details);
  const deepInput = input !== ask.input;
  const deepDetails = details !== ask.details;
  if (!longName && !longTitle && !deepInput && !deepDetails) return ask;
  const bounded: ApprovalAsk = {
    ...ask,
    ...(longName ? { toolName: boundToolName(name) } : {}),
    ...(longTitle ? { title: boundTitle(title) } : {}),
    ...(deepInput ? { input } : {}),
    ...(deepDetails ? { details } : {}),
  };
  if (deepInput || deepDetails) depthCut.add(bounded);
  return bounded;
}
