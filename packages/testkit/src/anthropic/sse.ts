import type { AssistantMessage, ContentBlock } from "./message.js";

/** One server-sent event frame: `event: <type>\ndata: <json>\n\n`. */
export function sseFrame(type: string, data: unknown): string {
  return `event: ${type}\ndata: ${JSON.stringify(data)}\n\n`;
}

/** Splits `text` into at most `parts` non-empty chunks of about equal length (by code point). */
export function splitChunks(text: string, parts = 3): string[] {
  const chars = Array.from(text);
  if (chars.length === 0) return [];
  const size = Math.ceil(chars.length / Math.min(parts, chars.length));
  const chunks: string[] = [];
  for (let i = 0; i < chars.length; i += size) chunks.push(chars.slice(i, i + size).join(""));
  return chunks;
}

function blockFrames(block: ContentBlock, index: number): string[] {
  const start = (contentBlock: unknown): string =>
    sseFrame("content_block_start", { type: "content_block_start", index, content_block: contentBlock });
  const delta = (payload: unknown): string => sseFrame("content_block_delta", { type: "content_block_delta", index, delta: payload });
  const frames: string[] = [];
  switch (block.type) {
    case "thinking":
      frames.push(start({ type: "thinking", thinking: "", signature: "" }));
      for (const chunk of splitChunks(block.thinking)) frames.push(delta({ type: "thinking_delta", thinking: chunk }));
      frames.push(delta({ type: "signature_delta", signature: block.signature }));
      break;
    case "text":
      frames.push(start({ type: "text", text: "" }));
      for (const chunk of splitChunks(block.text)) frames.push(delta({ type: "text_delta", text: chunk }));
      break;
    case "tool_use":
      frames.push(start({ type: "tool_use", id: block.id, name: block.name, input: {} }));
      for (const chunk of splitChunks(JSON.stringify(block.input))) {
        frames.push(delta({ type: "input_json_delta", partial_json: chunk }));
      }
      break;
  }
  frames.push(sseFrame("content_block_stop", { type: "content_block_stop", index }));
  return frames;
}

/**
 * The SSE frames of a streamed `POST /v1/messages` answer for `message`, in API order:
 * `message_start` (usage with the input tokens) → `ping` → per block `content_block_start`,
 * a few `content_block_delta` (`thinking_delta` + `signature_delta`, `text_delta`, or
 * `input_json_delta`), `content_block_stop` → `message_delta` (stop_reason, output tokens) →
 * `message_stop`.
 */
export function messageToSse(message: AssistantMessage): string[] {
  const { usage } = message;
  const frames = [
    sseFrame("message_start", {
      type: "message_start",
      message: { ...message, content: [], stop_reason: null, usage: { ...usage, output_tokens: 1 } },
    }),
    sseFrame("ping", { type: "ping" }),
  ];
  message.content.forEach((block, index) => frames.push(...blockFrames(block, index)));
  frames.push(
    sseFrame("message_delta", {
      type: "message_delta",
      delta: { stop_reason: message.stop_reason, stop_sequence: null },
      usage: { output_tokens: usage.output_tokens },
    }),
    sseFrame("message_stop", { type: "message_stop" }),
  );
  return frames;
}
