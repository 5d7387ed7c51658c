import type { RunAgentInput } from "@ag-ui/core";
import { RunAgentInputSchema } from "@ag-ui/core/schemas";
import type { ImagePart } from "adaptor";
import { HttpError } from "../http/http-error.js";
import { checkWireId } from "./wire-id.js";
import { wirePrompt, type WirePart, type WirePromptLimits } from "./wire-prompt.js";

/**
 * Checks an AG-UI `RunAgentInput` and takes the prompt from its last message, which must be a
 * user message with text or images: text parts are joined by a newline; an `image` part must
 * carry its bytes (`source: { type: "data", value: <base64>, mimeType }`, or a base64 `data:` URL
 * source). A `binary` part with an image `mimeType` and base64 `data` (the content part of
 * AG-UI clients before 1.0, which the 1.0 schema no longer knows) is read as such an image part.
 * A resume run (one with `resume` entries) continues a suspended turn with its own prompt, so it
 * needs none: its prompt is `""` and its messages are not read.
 * @throws HttpError 400 naming what is wrong; 400 `invalid_id` for a `runId` or `threadId` that is
 *   empty, longer than 256 characters or holds control characters (a `runId` must be printable
 *   ASCII, and not `.` or `..`; a `threadId` must also be a thread key: see `checkWireId`); 400 `image_source_refused` for an image by URL or provider file (the bridge fetches
 *   nothing for a client); the image errors of the raw protocol (`unsupported_image_type`,
 *   `too_many_images`, `image_too_large`).
 */
export function parseAgUiInput(
  body: unknown,
  limits: WirePromptLimits,
): { readonly input: RunAgentInput; readonly prompt: string; readonly images: readonly ImagePart[] } {
  const parsed = RunAgentInputSchema.safeParse(withImageParts(body));
  if (!parsed.success) {
    throw new HttpError(
      400,
      "bad_request",
      "not an AG-UI RunAgentInput: " +
        parsed.error.issues
          .slice(0, 3)
          .map((issue) => `${issue.path.join(".") || "body"}: ${issue.message}`)
          .join("; "),
    );
  }
  const input = parsed.data as RunAgentInput;
  checkWireId("runId", input.runId, { visibleAscii: true, pathSegment: true });
  checkWireId("threadId", input.threadId, { threadKey: true });
  if (input.resume !== undefined && input.resume.length > 0) return { input, prompt: "", images: [] };
  const last = input.messages.at(-1);
  if (!last || last.role !== "user") throw new HttpError(400, "bad_request", "the last message must be a user message with the prompt");
  const content: unknown = last.content;
  const { text, images } =
    typeof content === "string"
      ? { text: content, images: [] }
      : Array.isArray(content)
        ? wirePrompt(content.map(wirePart), limits, "content", "\n")
        : { text: "", images: [] };
  if (images.length === 0 && text.trim() === "") throw new HttpError(400, "bad_request", "the prompt is empty");
  return { input, prompt: text, images };
}

/** One content part of the last user message as a wire part (text, or an image with its bytes). */
function wirePart(part: { type?: unknown; text?: unknown; source?: unknown }, index: number): WirePart {
  if (part.type === "text") return { type: "text", text: String(part.text ?? "") };
  if (part.type !== "image")
    throw new HttpError(400, "bad_request", `the prompt may only hold text and image parts, got a part of type ${String(part.type)}`);
  const source = part.source as { type: string; value: string; mimeType?: string };
  if (source.type === "data") return { type: "image", data: source.value, mimeType: source.mimeType ?? "" };
  const dataUrl = source.type === "url" ? /^data:([^;,]+);base64,(.*)$/s.exec(source.value) : null;
  if (dataUrl) return { type: "image", data: dataUrl[2]!, mimeType: source.mimeType ?? dataUrl[1]! };
  throw new HttpError(
    400,
    "image_source_refused",
    `content[${index}] names its image by ${source.type === "url" ? "URL" : "a provider file"}; send its bytes: source { type: "data", value: <base64>, mimeType }`,
  );
}

/** The body with each message's `binary` image parts (AG-UI before 1.0) as 1.0 `image` parts with a data source. */
function withImageParts(body: unknown): unknown {
  if (typeof body !== "object" || body === null || !Array.isArray((body as { messages?: unknown }).messages)) return body;
  const messages = (body as { messages: unknown[] }).messages.map((message) => {
    const content = (message as { content?: unknown } | null)?.content;
    if (!Array.isArray(content) || !content.some(isBinaryImage)) return message;
    return {
      ...(message as object),
      content: content.map((part: unknown) =>
        isBinaryImage(part) ? { type: "image", source: { type: "data", value: part.data, mimeType: part.mimeType } } : part,
      ),
    };
  });
  return { ...body, messages };
}

function isBinaryImage(part: unknown): part is { type: "binary"; mimeType: string; data: string } {
  if (typeof part !== "object" || part === null) return false;
  const { type, mimeType, data } = part as Record<string, unknown>;
  return type === "binary" && typeof mimeType === "string" && mimeType.startsWith("image/") && typeof data === "string";
}
