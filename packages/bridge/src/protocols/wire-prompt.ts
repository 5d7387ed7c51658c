import type { ImagePart, Prompt } from "adaptor";
import { sniffImageType } from "adaptor/internal";
import { HttpError } from "../http/http-error.js";

/** The media types an image of a bridge prompt may have. */
export const WIRE_IMAGE_TYPES: readonly string[] = Object.freeze(["image/png", "image/jpeg", "image/gif", "image/webp"]);

/** Limits on the images of one prompt. */
export interface WirePromptLimits {
  /** Most images one prompt may carry. */
  readonly maxImages: number;
  /** Most bytes one image may hold, decoded. */
  readonly maxImageBytes: number;
}

/** A part of a prompt as it crosses the wire: text, or an image carried inline as base64. */
export type WirePart =
  { readonly type: "text"; readonly text: string } | { readonly type: "image"; readonly data: string; readonly mimeType: string };

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/** A prompt as the bridge read it: its text and its images (each a base64 `data:` URL, JSON all through). */
export interface WirePrompt {
  readonly text: string;
  readonly images: readonly ImagePart[];
}

/**
 * Checks the parts of a prompt and splits them into the text (`join` joins the text parts) and
 * the images. `field` names the parts in messages.
 * @throws HttpError 400 `bad_request` (a part that is not text nor an inline image, bad base64,
 *   empty image data), 400 `unsupported_image_type` (not PNG, JPEG, GIF or WebP, or bytes that
 *   do not start as the declared type does), 413
 *   `too_many_images`, 413 `image_too_large` (decoded bytes).
 */
export function wirePrompt(parts: readonly WirePart[], limits: WirePromptLimits, field: string, join: string): WirePrompt {
  const texts: string[] = [];
  const images: ImagePart[] = [];
  parts.forEach((part, index) => {
    const at = `${field}[${index}]`;
    if (part.type === "text") {
      texts.push(part.text);
      return;
    }
    if (!WIRE_IMAGE_TYPES.includes(part.mimeType))
      throw new HttpError(
        400,
        "unsupported_image_type",
        `${at}.mimeType must be one of ${WIRE_IMAGE_TYPES.join(", ")}, got ${part.mimeType}`,
      );
    const data = part.data.replace(/\s+/g, "");
    if (data.length % 4 !== 0 || !BASE64.test(data)) throw new HttpError(400, "bad_request", `${at}.data is not base64`);
    const bytes = (data.length / 4) * 3 - (data.endsWith("==") ? 2 : data.endsWith("=") ? 1 : 0);
    if (bytes === 0) throw new HttpError(400, "bad_request", `${at}.data is empty`);
    if (sniffImageType(Buffer.from(data.slice(0, 16), "base64")) !== part.mimeType)
      throw new HttpError(
        400,
        "unsupported_image_type",
        `${at}.data is not a ${part.mimeType} image (its first bytes are not that format's)`,
      );
    if (bytes > limits.maxImageBytes)
      throw new HttpError(
        413,
        "image_too_large",
        `${at} holds ${bytes} bytes; this bridge takes at most ${limits.maxImageBytes} per image`,
      );
    images.push({ type: "image", url: `data:${part.mimeType};base64,${data}` });
  });
  if (images.length > limits.maxImages)
    throw new HttpError(413, "too_many_images", `the prompt holds ${images.length} images; this bridge takes at most ${limits.maxImages}`);
  return { text: texts.join(join), images };
}

/** The SDK's prompt of a read prompt: the text alone without images, else the text (when any) and the images. */
export function sdkPrompt(text: string, images: readonly ImagePart[]): Prompt {
  if (images.length === 0) return text;
  return text === "" ? images : [{ type: "text", text }, ...images];
}

/**
 * The raw protocol's `prompt`: a string, or an array of `{ "type": "text", "text" }` and
 * `{ "type": "image", "data": <base64>, "mimeType" }` parts.
 * @throws HttpError as {@link wirePrompt} does; 400 `image_source_refused` for an image named by
 *   `path` or `url` (the bridge reads no file and fetches nothing for a client).
 */
export function parseRawPrompt(prompt: unknown, limits: WirePromptLimits): WirePrompt {
  if (typeof prompt === "string") return { text: prompt, images: [] };
  if (!Array.isArray(prompt) || prompt.length === 0)
    throw new HttpError(400, "bad_request", "prompt must be a non-empty string or a non-empty array of text and image parts");
  const parts = (prompt as unknown[]).map((part, index): WirePart => {
    const at = `prompt[${index}]`;
    if (typeof part !== "object" || part === null || Array.isArray(part))
      throw new HttpError(400, "bad_request", `${at} must be { "type": "text", "text" } or { "type": "image", "data", "mimeType" }`);
    const { type, ...fields } = part as Record<string, unknown>;
    if (type === "text") {
      const { text, ...rest } = fields;
      if (typeof text !== "string") throw new HttpError(400, "bad_request", `${at}.text must be a string`);
      refuseUnknown(rest, at);
      return { type, text };
    }
    if (type !== "image")
      throw new HttpError(400, "bad_request", `${at} has type ${JSON.stringify(type)}; a prompt part is "text" or "image"`);
    const { data, mimeType, ...rest } = fields;
    if ("path" in rest || "url" in rest)
      throw new HttpError(
        400,
        "image_source_refused",
        `${at} names its image by ${"path" in rest ? "path" : "url"}; a bridge prompt carries images inline: { "type": "image", "data": <base64>, "mimeType" }`,
      );
    refuseUnknown(rest, at);
    if (typeof data !== "string") throw new HttpError(400, "bad_request", `${at}.data must be the image as a base64 string`);
    if (typeof mimeType !== "string") throw new HttpError(400, "bad_request", `${at}.mimeType must be a string`);
    return { type, data, mimeType };
  });
  return wirePrompt(parts, limits, "prompt", "\n\n");
}

function refuseUnknown(rest: Record<string, unknown>, at: string): void {
  const unknown = Object.keys(rest)[0];
  if (unknown !== undefined) throw new HttpError(400, "bad_request", `${at} has an unknown field ${JSON.stringify(unknown)}`);
}
