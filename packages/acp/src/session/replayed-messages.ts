import type * as acp from "@agentclientprotocol/sdk";
import type { SessionMessage, SessionToolCall, SessionToolResult } from "@adaptor/driver";
import { decodeSessionCursor, encodeSessionCursor, knownInput } from "@adaptor/driver/kit";
import { toolCallText } from "../turn/tool-call.js";

/** A message of the replay being put together (the window's only). */
interface Draft {
  readonly role: "user" | "assistant";
  text: string;
  readonly toolCalls: { toolCallId: string; toolName: string; input: unknown }[];
  readonly toolResults: SessionToolResult[];
  readonly messageId: string | undefined;
  /** Whether a tool call joined it (recorded for every message, in the window or not: text after a call begins a new one). */
  called: boolean;
}

/** The cursor of a read of an ACP session's messages: how many messages of the replay were given. */
export function encodeReplayCursor(next: number): string {
  return encodeSessionCursor([next]);
}

/**
 * How many messages a cursor of {@link encodeReplayCursor} says were given.
 * @throws InvalidOptionError (subject `"getSessionMessages query"`, field `cursor`) for anything else.
 */
export function decodeReplayCursor(cursor: string): number {
  return decodeSessionCursor(
    cursor,
    (value) =>
      Array.isArray(value) && value.length === 1 && Number.isSafeInteger(value[0]) && (value[0] as number) > 0
        ? (value[0] as number)
        : undefined,
    "an ACP session's messages",
    "getSessionMessages query",
  );
}

/**
 * The messages of a session an ACP agent replays as `session/update`s on `session/load`, kept for
 * one page only: messages `[offset, offset + limit)` of the replay, and whether more follow, so a
 * long history is counted, not held. A `user_message_chunk` run is a user message; an
 * `agent_message_chunk` run an assistant message (a new one after its tool calls, or when the
 * agent's `messageId` changes); a `tool_call` joins the assistant message it follows (one of text
 * `""` right after the user's), its name from `nameOf` (as on the run's `tool-call` events), its
 * input the most complete `rawInput` its updates carried, and its result once it is `completed`
 * or `failed` (`isError` for `failed`). Thoughts, plans and other updates are not shown.
 */
export class ReplayedMessages {
  readonly #nameOf: (call: acp.ToolCallUpdate) => string;
  readonly #offset: number;
  readonly #limit: number;
  readonly #kept: Draft[] = [];
  readonly #window = new Set<Draft>();
  /** The calls of the window's messages, by id. */
  readonly #calls = new Map<string, { draft: Draft; call: Draft["toolCalls"][number]; resulted: boolean }>();
  /** Messages of the replay so far, the current one included. */
  #count = 0;
  #current: Draft | undefined;

  constructor(nameOf: (call: acp.ToolCallUpdate) => string, offset: number, limit: number) {
    this.#nameOf = nameOf;
    this.#offset = offset;
    this.#limit = limit;
  }

  /** Takes one replayed update. */
  add(update: acp.SessionUpdate): void {
    switch (update.sessionUpdate) {
      case "user_message_chunk":
      case "agent_message_chunk": {
        if (update.content.type !== "text") return;
        const role = update.sessionUpdate === "user_message_chunk" ? "user" : "assistant";
        const messageId = update.messageId ?? undefined;
        const current = this.#current;
        const same =
          current?.role === role &&
          !current.called &&
          (messageId === undefined || current.messageId === undefined || messageId === current.messageId);
        const draft = same ? current : this.#begin(role, messageId);
        draft.text += update.content.text;
        return;
      }
      case "tool_call":
      case "tool_call_update": {
        const known = this.#calls.get(update.toolCallId);
        if (known === undefined && update.sessionUpdate === "tool_call") {
          const draft = this.#current?.role === "assistant" ? this.#current : this.#begin("assistant", undefined);
          draft.called = true;
          if (!this.#inWindow(draft)) return;
          const call = { toolCallId: update.toolCallId, toolName: this.#nameOf(update), input: update.rawInput ?? {} };
          draft.toolCalls.push(call);
          this.#calls.set(update.toolCallId, { draft, call, resulted: false });
          this.#result(update);
          return;
        }
        if (known === undefined) return;
        if (knownInput(update.rawInput)) known.call.input = update.rawInput;
        this.#result(update);
        return;
      }
      default:
        return;
    }
  }

  /** The window's messages and whether the replay holds more after them. */
  done(): { messages: SessionMessage[]; more: boolean } {
    const messages = this.#kept.map((draft) => ({
      role: draft.role,
      text: draft.text,
      ...(draft.toolCalls.length > 0 ? { toolCalls: draft.toolCalls.map((call): SessionToolCall => ({ ...call })) } : {}),
      ...(draft.toolResults.length > 0 ? { toolResults: draft.toolResults } : {}),
      ...(draft.messageId !== undefined ? { id: draft.messageId } : {}),
    }));
    return { messages, more: this.#count > this.#offset + this.#limit };
  }

  #begin(role: Draft["role"], messageId: string | undefined): Draft {
    const draft: Draft = { role, text: "", toolCalls: [], toolResults: [], messageId, called: false };
    const index = this.#count++;
    if (index >= this.#offset && index < this.#offset + this.#limit) {
      this.#kept.push(draft);
      this.#window.add(draft);
    }
    this.#current = draft;
    return draft;
  }

  #inWindow(draft: Draft): boolean {
    return this.#window.has(draft);
  }

  #result(update: acp.ToolCallUpdate): void {
    const known = this.#calls.get(update.toolCallId);
    if (!known || known.resulted || (update.status !== "completed" && update.status !== "failed")) return;
    known.resulted = true;
    known.draft.toolResults.push({ toolCallId: update.toolCallId, output: toolCallText(update), isError: update.status === "failed" });
  }
}
