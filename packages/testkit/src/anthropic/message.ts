import type { ReplyUsage, TextReply, ToolUseReply } from "./reply.js";
import { isToolUseReply } from "./reply.js";

/** A content block of a rendered assistant message, in Messages API shape. */
export type ContentBlock =
  | { type: "thinking"; thinking: string; signature: string }
  | { type: "text"; text: string }
  | { type: "tool_use"; id: string; name: string; input: unknown };

/** Usage as the Messages API reports it. */
export interface MessageUsage extends ReplyUsage {
  readonly cache_creation_input_tokens: number;
  readonly cache_read_input_tokens: number;
}

/** A complete assistant message, the non-streaming response body of `POST /v1/messages`. */
export interface AssistantMessage {
  readonly id: string;
  readonly type: "message";
  readonly role: "assistant";
  readonly model: string;
  readonly content: ContentBlock[];
  readonly stop_reason: "end_turn" | "tool_use";
  readonly stop_sequence: null;
  readonly usage: MessageUsage;
}

/** What {@link renderMessage} needs besides the reply. */
export interface RenderContext {
  /** Message id, e.g. `msg_fake_3`. */
  readonly id: string;
  /** Model echoed back (the request's model). */
  readonly model: string;
  /** Message count of the request (for the default input usage). */
  readonly messageCount: number;
  /** Makes the id of a tool_use block whose reply gives none. */
  readonly nextToolUseId: () => string;
}

/** Rough token count of a text: characters / 4, rounded up, at least 1. */
export function roughTokens(text: string): number {
  return Math.max(1, Math.ceil(text.length / 4));
}

/** Turns a text or tool-use {@link Reply} into the assistant message the API would return. */
export function renderMessage(reply: TextReply | ToolUseReply, context: RenderContext): AssistantMessage {
  const content: ContentBlock[] = [];
  if (isToolUseReply(reply)) {
    if (reply.text !== undefined && reply.text !== "") content.push({ type: "text", text: reply.text });
    content.push({
      type: "tool_use",
      id: reply.toolUse.id ?? context.nextToolUseId(),
      name: reply.toolUse.name,
      input: reply.toolUse.input ?? {},
    });
  } else {
    if (reply.thinking !== undefined) {
      const signature = Buffer.from(`fake-signature:${context.id}`).toString("base64");
      content.push({ type: "thinking", thinking: reply.thinking, signature });
    }
    content.push({ type: "text", text: reply.text });
  }
  const outputText = content
    .map((block) => (block.type === "text" ? block.text : block.type === "thinking" ? block.thinking : JSON.stringify(block.input)))
    .join("");
  return {
    id: context.id,
    type: "message",
    role: "assistant",
    model: context.model,
    content,
    stop_reason: isToolUseReply(reply) ? "tool_use" : "end_turn",
    stop_sequence: null,
    usage: {
      input_tokens: reply.usage?.input_tokens ?? 100 + context.messageCount,
      output_tokens: reply.usage?.output_tokens ?? roughTokens(outputText),
      cache_creation_input_tokens: 0,
      cache_read_input_tokens: 0,
    },
  };
}
