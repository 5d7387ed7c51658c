/**
 * `text` with every occurrence of each of `values` replaced by `[redacted]`: the values of
 * credentials the host knows (its secret environment variables) never leave it in a message or
 * stored text. Empty values are skipped (they would match everywhere).
 */
export function redactValues(text: string, values: readonly string[]): string {
  let out = text;
  for (const value of values) if (value !== "" && out.includes(value)) out = out.split(value).join("[redacted]");
  return out;
}
