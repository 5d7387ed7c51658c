/**
 * The last `maxBytes` UTF-8 bytes of `text`, never starting inside a character, trimmed.
 * `maxBytes <= 0` gives `""`.
 */
export function utf8Tail(text: string, maxBytes: number): string {
  if (!(maxBytes > 0)) return "";
  // Every UTF-16 code unit encodes to at least one byte, so the tail lies within the last maxBytes units.
  let slice = text.length > maxBytes ? text.slice(-maxBytes) : text;
  const first = slice.charCodeAt(0);
  if (first >= 0xdc00 && first <= 0xdfff) slice = slice.slice(1); // half of a surrogate pair
  let bytes = Buffer.from(slice, "utf8");
  if (bytes.length > maxBytes) {
    let start = bytes.length - maxBytes;
    while (start < bytes.length && ((bytes[start] ?? 0) & 0xc0) === 0x80) start++; // continuation bytes
    bytes = bytes.subarray(start);
  }
  return bytes.toString("utf8").trim();
}
