import { InvalidOptionError, assertWellFormedString } from "@adaptor/errors";
import type { PromptImageType } from "@adaptor/driver";

/** A piece of text of a prompt. */
export interface TextPart {
  readonly type: "text";
  /** The text. */
  readonly text: string;
}

/**
 * An image of a prompt: exactly one of `data` (bytes), `path` (a file read when the run starts) or
 * `url` (a `data:` URL with base64 content). `mimeType` is required with `data` and `path` unless
 * the bytes show it; whatever is given must match the bytes (PNG, JPEG, GIF or WebP).
 */
export interface ImagePart {
  readonly type: "image";
  /** The image bytes. */
  readonly data?: Uint8Array;
  /** A file holding the image, read when the run starts (absolute, or relative to the process's cwd). */
  readonly path?: string;
  /** A `data:<type>;base64,<content>` URL. */
  readonly url?: string;
  /** Its media type; checked against the bytes. */
  readonly mimeType?: PromptImageType;
}

/** One part of a prompt: a string is a text part. */
export type PromptPart = string | TextPart | ImagePart;

/**
 * What a run is asked: text, or a list of parts (text and images). The images go to the model
 * before the text (the text parts joined by a blank line), on a driver that takes images.
 */
export type Prompt = string | readonly PromptPart[];

/** Most images one prompt may carry. */
export const MAX_PROMPT_IMAGES = 20;

/** An image of a prompt, not yet read, with the field that names it in errors (`prompt[i]`). */
export interface PendingImage {
  readonly part: ImagePart;
  readonly field: string;
}

/** A prompt split into its text and its (not yet read) images. */
export interface SplitPrompt {
  readonly text: string;
  readonly images: readonly PendingImage[];
}

/**
 * Checks a prompt's shape and splits it; reads nothing.
 * @throws InvalidOptionError (subject `run`, field `prompt` or `prompt[i]`) for a value that is not
 * a string or an array of parts, an unknown part, an image with not exactly one source, more than
 * {@link MAX_PROMPT_IMAGES} images, or a list without any part; `MalformedStringError` for text
 * with a lone surrogate.
 */
export function splitPrompt(prompt: unknown): SplitPrompt {
  if (typeof prompt === "string") {
    assertWellFormedString("run", "prompt", prompt, { allowNul: true });
    return { text: prompt, images: [] };
  }
  if (!Array.isArray(prompt)) refuse("prompt", `must be a string or an array of parts, got ${prompt === null ? "null" : typeof prompt}`);
  if (prompt.length === 0) refuse("prompt", "must hold at least one part");
  const texts: string[] = [];
  const images: PendingImage[] = [];
  (prompt as unknown[]).forEach((part, index) => {
    const field = `prompt[${index}]`;
    if (typeof part === "string" || (isObject(part) && part.type === "text")) {
      const text = typeof part === "string" ? part : part.text;
      if (typeof text !== "string") refuse(`${field}.text`, "must be a string");
      assertWellFormedString("run", field, text, { allowNul: true });
      texts.push(text);
      return;
    }
    if (!isObject(part) || part.type !== "image") refuse(field, 'must be a string, { type: "text", text } or { type: "image", ... }');
    const sources = (["data", "path", "url"] as const).filter((key) => part[key] !== undefined);
    if (sources.length !== 1) refuse(field, "an image needs exactly one of data, path and url");
    if (part.data !== undefined && !(part.data instanceof Uint8Array)) refuse(`${field}.data`, "must be a Uint8Array");
    if (part.path !== undefined && (typeof part.path !== "string" || part.path === ""))
      refuse(`${field}.path`, "must be a non-empty string");
    if (part.url !== undefined && (typeof part.url !== "string" || !part.url.startsWith("data:")))
      refuse(`${field}.url`, "must be a data: URL (data:<type>;base64,<content>)");
    images.push({ part: { ...(part as unknown as ImagePart) }, field });
  });
  if (images.length > MAX_PROMPT_IMAGES) refuse("prompt", `holds ${images.length} images; at most ${MAX_PROMPT_IMAGES}`);
  return { text: texts.join("\n\n"), images };
}

/**
 * Checks that a user's prompt asks something: text that is not only whitespace, or an image.
 * @throws InvalidOptionError (subject `run`, field `prompt`) for an empty or whitespace-only text
 * without any image.
 */
export function assertPromptHasContent(prompt: SplitPrompt): void {
  if (prompt.images.length === 0 && prompt.text.trim() === "")
    refuse("prompt", "must hold text (not only whitespace) or an image: an empty prompt asks the model nothing");
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null;
}

function refuse(field: string, reason: string): never {
  throw new InvalidOptionError({ subject: "run", field, reason });
}
