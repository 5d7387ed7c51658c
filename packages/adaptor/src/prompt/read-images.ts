import { constants } from "node:fs";
import { open } from "node:fs/promises";
import { resolve } from "node:path";
import { InvalidOptionError } from "@adaptor/errors";
import type { PromptImage, PromptImageType } from "@adaptor/driver";
import type { PendingImage } from "./prompt.js";
import { sniffImageType } from "./sniff-image-type.js";

/** Most bytes one prompt image may hold (the Anthropic API's per-image limit). */
export const MAX_PROMPT_IMAGE_BYTES = 5 * 1024 * 1024;

/**
 * Reads the images of a prompt into bytes: files (refusing anything but a regular file, and
 * reading at most one byte past the limit), `data:` URLs (base64), bytes (copied). Each must be a
 * PNG, JPEG, GIF or WebP by its first bytes, match a given `mimeType`, and hold at most
 * {@link MAX_PROMPT_IMAGE_BYTES}. An image read from a file keeps its path, made absolute.
 * @throws InvalidOptionError (subject `run`, field `prompt[i]`, the image's part) naming what is wrong.
 */
export async function readImages(pending: readonly PendingImage[], signal?: AbortSignal): Promise<PromptImage[]> {
  const images: PromptImage[] = [];
  for (const { part, field } of pending) {
    signal?.throwIfAborted();
    const { bytes, declared } = part.data
      ? { bytes: new Uint8Array(part.data), declared: part.mimeType }
      : part.path !== undefined
        ? { bytes: await readCapped(part.path, field), declared: part.mimeType }
        : decodeDataUrl(part.url ?? "", field, part.mimeType);
    if (bytes.byteLength > MAX_PROMPT_IMAGE_BYTES) refuse(field, `holds ${bytes.byteLength} bytes; at most ${MAX_PROMPT_IMAGE_BYTES}`);
    const sniffed = sniffImageType(bytes);
    if (!sniffed) refuse(field, "is not a PNG, JPEG, GIF or WebP image");
    if (declared !== undefined && declared !== sniffed) refuse(field, `is declared ${declared} but its bytes are ${sniffed}`);
    images.push({ mimeType: sniffed, data: bytes, ...(part.path !== undefined ? { path: resolve(part.path) } : {}) });
  }
  return images;
}

/**
 * A regular file's bytes. Opened without blocking (a FIFO at the path is refused, not waited on),
 * refused by its size before anything is read when over the limit, and read into a buffer of that
 * size (plus one byte, to see a file that grew meanwhile).
 */
async function readCapped(path: string, field: string): Promise<Uint8Array> {
  let handle;
  try {
    handle = await open(path, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (cause) {
    throw new InvalidOptionError({ subject: "run", field, reason: `cannot be read from ${path}: ${(cause as Error).message}` });
  }
  try {
    const stat = await handle.stat();
    if (!stat.isFile()) refuse(field, `${path} is not a regular file`);
    if (stat.size > MAX_PROMPT_IMAGE_BYTES) refuse(field, `holds ${stat.size} bytes; at most ${MAX_PROMPT_IMAGE_BYTES}`);
    const bytes = new Uint8Array(stat.size + 1);
    let length = 0;
    while (length < bytes.length) {
      const { bytesRead } = await handle.read(bytes, length, bytes.length - length, null);
      if (bytesRead === 0) break;
      length += bytesRead;
    }
    if (length > stat.size) refuse(field, `${path} changed while it was read`);
    return bytes.subarray(0, length);
  } finally {
    await handle.close();
  }
}

function decodeDataUrl(
  url: string,
  field: string,
  declared: PromptImageType | undefined,
): { bytes: Uint8Array; declared: PromptImageType | undefined } {
  const match = /^data:([^;,]+)?((?:;[^;,]*)*?);base64,(.*)$/s.exec(url);
  if (!match) refuse(field, "must be a base64 data: URL (data:<type>;base64,<content>)");
  const content = match[3] ?? "";
  // Base64 is 4/3 of the bytes: refuse an oversized URL before decoding it.
  if (content.length > Math.ceil((MAX_PROMPT_IMAGE_BYTES * 4) / 3) + 4) refuse(field, `holds more than ${MAX_PROMPT_IMAGE_BYTES} bytes`);
  const type = match[1] as PromptImageType | undefined;
  if (declared !== undefined && type !== undefined && declared !== type) refuse(field, `is declared ${declared} but its URL says ${type}`);
  return { bytes: new Uint8Array(Buffer.from(content, "base64")), declared: declared ?? type };
}

function refuse(field: string, reason: string): never {
  throw new InvalidOptionError({ subject: "run", field, reason });
}
