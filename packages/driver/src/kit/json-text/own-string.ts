/** The longest slice V8 copies rather than pointing into its string (`SlicedString::kMinLength` is 13). */
export const SHORT_SLICE = 12;

/**
 * `value` as a string of its own: a copy when it may be a slice of a longer string (V8 makes a
 * substring of 13 or more characters a view into the string it was cut from), so that keeping it
 * does not keep that string alive. A value a driver cuts from a stdout line and keeps past the line
 * (an item id, a line prefix it compares with) would otherwise keep the whole decoded stdout chunk
 * the line came in, for as long as it is kept. Costs a copy: for values kept, not for every line.
 */
export function ownString(value: string): string {
  return value.length > SHORT_SLICE ? (JSON.parse(JSON.stringify(value)) as string) : value;
}
