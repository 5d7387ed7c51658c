import type { PromptImageType } from "@adaptor/driver";

/**
 * The image type an image's first bytes show: PNG, JPEG, GIF or WebP (a WebP: `RIFF`, 4 bytes of
 * size, `WEBP`), else undefined. Reads at most the first 12 bytes.
 */
export function sniffImageType(bytes: Uint8Array): PromptImageType | undefined {
  const starts = (...prefix: number[]): boolean => prefix.every((byte, i) => bytes[i] === byte);
  if (starts(0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a)) return "image/png";
  if (starts(0xff, 0xd8, 0xff)) return "image/jpeg";
  if (starts(0x47, 0x49, 0x46, 0x38)) return "image/gif";
  if (starts(0x52, 0x49, 0x46, 0x46) && bytes[8] === 0x57 && bytes[9] === 0x45 && bytes[10] === 0x42 && bytes[11] === 0x50)
    return "image/webp";
  return undefined;
}
