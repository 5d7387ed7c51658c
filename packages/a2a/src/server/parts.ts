import { Role, type Message, type Part } from "@a2a-js/sdk";
import { randomUUID } from "node:crypto";

/** A text part. */
export function textPart(text: string): Part {
  return { content: { $case: "text", value: text }, metadata: undefined, filename: "", mediaType: "text/plain" };
}

/** A JSON data part. */
export function dataPart(value: unknown): Part {
  return { content: { $case: "data", value }, metadata: undefined, filename: "", mediaType: "application/json" };
}

/** A message from the agent on task `taskId`. */
export function agentMessage(taskId: string, contextId: string, parts: Part[], metadata?: Record<string, unknown>): Message {
  return { messageId: randomUUID(), contextId, taskId, role: Role.ROLE_AGENT, parts, metadata, extensions: [], referenceTaskIds: [] };
}

/** The text parts of a message, joined; data parts are ignored. */
export function messageText(message: Message | undefined): string {
  return (message?.parts ?? []).map((part) => (part.content?.$case === "text" ? part.content.value : "")).join("");
}

/** The first data part's value that is an object, else `undefined`. */
export function messageData(message: Message | undefined): Record<string, unknown> | undefined {
  for (const part of message?.parts ?? []) {
    const value = part.content?.$case === "data" ? (part.content.value as unknown) : undefined;
    if (typeof value === "object" && value !== null && !Array.isArray(value)) return value as Record<string, unknown>;
  }
  return undefined;
}
