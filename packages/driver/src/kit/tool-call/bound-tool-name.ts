/**
 * The longest tool name the SDK carries, in UTF-16 code units: 200, the length Claude Code cuts a
 * model's tool name to. Real tool names are far shorter (model APIs allow 64 characters); a longer
 * one is the model's text, kept bounded so that it cannot grow every event, approval and span that
 * names the call.
 */
export const TOOL_NAME_MAX_LENGTH = 200;

/**
 * `text` cut to its first `max` UTF-16 code units (one fewer when the cut would split a surrogate
 * pair); a text that fits is returned as it is.
 * @param max the most code units kept, a positive integer.
 */
export function boundLength(text: string, max: number): string {
  if (text.length <= max) return text;
  const last = text.charCodeAt(max - 1);
  const splitsPair = last >= 0xd800 && last <= 0xdbff;
  return text.slice(0, splitsPair ? max - 1 : max);
}

/**
 * `name` cut to its first {@link TOOL_NAME_MAX_LENGTH} UTF-16 code units (one fewer when the cut
 * would split a surrogate pair); a name that fits is returned as it is.
 */
export function boundToolName(name: string): string {
  return boundLength(name, TOOL_NAME_MAX_LENGTH);
}
