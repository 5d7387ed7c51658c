/**
 * One framed stdout line (JSON Lines). `json` when the line parsed as any JSON value (`value` is the
 * parsed value, `text` the raw line); `text` when it did not parse. `text` never holds the line
 * terminator (`\n` or `\r\n`).
 */
export type OutputLine =
  { readonly kind: "json"; readonly value: unknown; readonly text: string } | { readonly kind: "text"; readonly text: string };
