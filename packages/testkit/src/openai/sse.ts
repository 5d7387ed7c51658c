import type { ResponsesReplyUsage } from "./reply.js";

/** One output item of a rendered response, in Responses API shape. */
export type ResponseOutputItem =
  | { type: "reasoning"; id: string; summary: { type: "summary_text"; text: string }[] }
  | {
      type: "message";
      id: string;
      status: "completed";
      role: "assistant";
      content: { type: "output_text"; text: string; annotations: [] }[];
    }
  | { type: "function_call"; id: string; call_id: string; name: string; namespace?: string; arguments: string; status: "completed" }
  | { type: "custom_tool_call"; id: string; call_id: string; name: string; input: string; status: "completed" };

/** A complete response object, as carried by `response.completed`. */
export interface ResponseObject {
  readonly id: string;
  readonly object: "response";
  readonly created_at: number;
  readonly status: "completed";
  readonly model: string;
  readonly output: ResponseOutputItem[];
  readonly usage: {
    input_tokens: number;
    input_tokens_details: { cached_tokens: number };
    output_tokens: number;
    output_tokens_details: { reasoning_tokens: number };
    total_tokens: number;
  };
}

/** Builds the `usage` object of a response. */
export function responseUsage(usage: ResponsesReplyUsage): ResponseObject["usage"] {
  return {
    input_tokens: usage.input_tokens,
    input_tokens_details: { cached_tokens: 0 },
    output_tokens: usage.output_tokens,
    output_tokens_details: { reasoning_tokens: usage.reasoning_tokens ?? 0 },
    total_tokens: usage.input_tokens + usage.output_tokens,
  };
}

/** Splits `text` into at most `parts` non-empty chunks of about equal length (by code point). */
export function splitChunks(text: string, parts = 2): string[] {
  const chars = Array.from(text);
  if (chars.length === 0) return [];
  const size = Math.ceil(chars.length / Math.min(parts, chars.length));
  const chunks: string[] = [];
  for (let i = 0; i < chars.length; i += size) chunks.push(chars.slice(i, i + size).join(""));
  return chunks;
}

/**
 * The SSE frames (`event: <type>\ndata: <json>\n\n`, with `sequence_number`) of a streamed
 * response, in API order: `response.created`, `response.in_progress`, then per output item
 * `response.output_item.added` → its deltas (`response.reasoning_summary_*`,
 * `response.content_part.added` / `response.output_text.delta` / `.done` / `response.content_part.done`,
 * `response.function_call_arguments.delta|done`, `response.custom_tool_call_input.delta|done`) →
 * `response.output_item.done`, and last `response.completed` with the usage.
 */
export function responseToSse(response: ResponseObject): string[] {
  let sequence = 0;
  const frames: string[] = [];
  const frame = (type: string, data: Record<string, unknown>): void => {
    frames.push(`event: ${type}\ndata: ${JSON.stringify({ type, sequence_number: sequence++, ...data })}\n\n`);
  };
  const pending = { ...response, status: "in_progress", output: [], usage: null };
  frame("response.created", { response: pending });
  frame("response.in_progress", { response: pending });
  response.output.forEach((item, output_index) => {
    const item_id = item.id;
    switch (item.type) {
      case "reasoning": {
        frame("response.output_item.added", { output_index, item: { ...item, summary: [] } });
        item.summary.forEach((part, summary_index) => {
          frame("response.reasoning_summary_part.added", {
            item_id,
            output_index,
            summary_index,
            part: { type: "summary_text", text: "" },
          });
          for (const delta of splitChunks(part.text)) {
            frame("response.reasoning_summary_text.delta", { item_id, output_index, summary_index, delta });
          }
          frame("response.reasoning_summary_text.done", { item_id, output_index, summary_index, text: part.text });
          frame("response.reasoning_summary_part.done", { item_id, output_index, summary_index, part });
        });
        break;
      }
      case "message": {
        frame("response.output_item.added", { output_index, item: { ...item, status: "in_progress", content: [] } });
        item.content.forEach((part, content_index) => {
          frame("response.content_part.added", { item_id, output_index, content_index, part: { ...part, text: "" } });
          for (const delta of splitChunks(part.text)) {
            frame("response.output_text.delta", { item_id, output_index, content_index, delta, logprobs: [] });
          }
          frame("response.output_text.done", { item_id, output_index, content_index, text: part.text, logprobs: [] });
          frame("response.content_part.done", { item_id, output_index, content_index, part });
        });
        break;
      }
      case "function_call": {
        frame("response.output_item.added", { output_index, item: { ...item, arguments: "", status: "in_progress" } });
        for (const delta of splitChunks(item.arguments)) {
          frame("response.function_call_arguments.delta", { item_id, output_index, delta });
        }
        frame("response.function_call_arguments.done", { item_id, output_index, arguments: item.arguments });
        break;
      }
      case "custom_tool_call": {
        frame("response.output_item.added", { output_index, item: { ...item, input: "", status: "in_progress" } });
        for (const delta of splitChunks(item.input)) {
          frame("response.custom_tool_call_input.delta", { item_id, output_index, delta });
        }
        frame("response.custom_tool_call_input.done", { item_id, output_index, input: item.input });
        break;
      }
    }
    frame("response.output_item.done", { output_index, item });
  });
  frame("response.completed", { response });
  return frames;
}
