import { stripVTControlCharacters } from "node:util";

/**
 * `text` without terminal escape codes, fit to put into an error message: ANSI/VT sequences (colours,
 * cursor moves, OSC hyperlinks and titles) are removed, carriage-return overwrites keep their last
 * segment, and any other control character except newline and tab is dropped. Printable text,
 * including non-ASCII, is kept as is.
 */
export function stripTerminalEscapes(text: string): string {
  return (
    stripVTControlCharacters(text)
      .split("\n")
      .map((line) => {
        const trimmed = line.endsWith("\r") ? line.slice(0, -1) : line;
        const cr = trimmed.lastIndexOf("\r");
        return cr === -1 ? trimmed : trimmed.slice(cr + 1);
      })
      .join("\n")
      // eslint-disable-next-line no-control-regex -- removing control characters is the point
      .replace(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g, "")
  );
}
