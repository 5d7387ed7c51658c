/**
 * The longest tool name the SDK carries, in UTF-16 code units: 200, the length Claude Code cuts a
 * model's tool name to. Real tool names are far shorter (model APIs allow 64 characters); a longer
 * one is the model's text, kept bounded so that it cannot grow every event, approval and span that
 * names the call.
 */
export const TOOL_NAME_MAX_LENGTH = 200;

/**
 * `name` cut to its first {@link TOOL_NAME_MAX_LENGTH} UTF-16 code units (one fewer when the cut
 * would split a surrogate pair); a name that fits is returned as it is.
 */
export function boundToolName(name: string): string {
  if (name.length <= TOOL_NAME_MAX_LENGTH) return name;
  const last = name.charCodeAt(TOOL_NAME_MAX_LENGTH - 1);
  const splitsPair = last >= 0xd800 && last <= 0xdbff;
  return name.slice(0, splitsPair ? TOOL_NAME_MAX_LENGTH - 1 : TOOL_NAME_MAX_LENGTH);
}
