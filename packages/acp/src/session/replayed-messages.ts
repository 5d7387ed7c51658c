import type * as acp from "@agentclientprotocol/sdk";
import type { SessionMessage, SessionToolCall, SessionToolResult } from "@adaptor/driver";
import {
  decodeSessionCursor,
  encodeSessionCursor,
  knownInput,
  MAX_SESSION_MESSAGE_BYTES,
  MAX_SESSION_PAGE_BYTES,
} from "@adaptor/driver/kit";
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
  /** Bytes of content it keeps (UTF-8 text, tool inputs as JSON, tool outputs). */
  bytes: number;
  /** Whether a piece did not fit its byte cap: it keeps nothing more. */
  full: boolean;
}

/** A kept tool call of the window, by id. */
interface KeptCall {
  readonly draft: Draft;
  readonly call: Draft["toolCalls"][number];
  /** Bytes of its input as JSON, counted in its message's. */
  inputBytes: number;
  resulted: boolean;
}

/** The byte caps of a page of replayed messages. */
export interface ReplayCaps {
  /** Bytes one message keeps at most: content past it is left out. */
  readonly message: number;
  /** Bytes the page keeps: once it holds this many, after at least one message, the next message begins the next page. */
  readonly page: number;
}

const utf8Bytes = (text: string): number => Buffer.byteLength(text, "utf8");
const jsonBytes = (value: unknown): number => utf8Bytes(JSON.stringify(value) ?? "");

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
 * Only the window's messages keep content, and its bytes are counted as a Claude Code transcript
 * page's are: a message keeps at most `caps.message` bytes (16 MiB; a piece past it and everything
 * after it is left out), and once the page holds `caps.page` bytes (64 MiB) after at least one
 * message, the page ends there and the next page begins at the next message.
 */
export class ReplayedMessages {
  readonly #nameOf: (call: acp.ToolCallUpdate) => string;
  readonly #offset: number;
  readonly #limit: number;
  readonly #kept: Draft[] = [];
  readonly #window = new Set<Draft>();
  /** The calls of the window's messages, by id. */
  readonly #calls = new Map<string, KeptCall>();
  readonly #caps: ReplayCaps;
  /** Messages of the replay so far, the current one included. */
  #count = 0;
  #current: Draft | undefined;
  /** Bytes the window's messages keep. */
  #pageBytes = 0;
  /** The index of the message the page ended before, its bytes past `caps.page`; `undefined` while it has room. */
  #cut: number | undefined;

  constructor(
    nameOf: (call: acp.ToolCallUpdate) => string,
    offset: number,
    limit: number,
    caps: ReplayCaps = { message: MAX_SESSION_MESSAGE_BYTES, page: MAX_SESSION_PAGE_BYTES },
  ) {
    this.#nameOf = nameOf;
    this.#offset = offset;
    this.#limit = limit;
    this.#caps = caps;
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
        const text = update.content.text;
        if (this.#inWindow(draft) && this.#fits(draft, utf8Bytes(text))) draft.text += text;
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
          const inputBytes = jsonBytes(call.input);
          if (!this.#fits(draft, inputBytes)) return;
          draft.toolCalls.push(call);
          this.#calls.set(update.toolCallId, { draft, call, inputBytes, resulted: false });
          this.#result(update);
          return;
        }
        if (known === undefined) return;
        if (knownInput(update.rawInput)) {
          const inputBytes = jsonBytes(update.rawInput);
          if (this.#fits(known.draft, inputBytes - known.inputBytes)) {
            known.call.input = update.rawInput;
            known.inputBytes = inputBytes;
          }
        }
        this.#result(update);
        return;
      }
      default:
        return;
    }
  }

  /** The window's messages, and the index of the message the next page begins at (`undefined` when none follows). */
  done(): { messages: SessionMessage[]; next: number | undefined } {
    const messages = this.#kept.map((draft) => ({
      role: draft.role,
      text: draft.text,
      ...(draft.toolCalls.length > 0 ? { toolCalls: draft.toolCalls.map((call): SessionToolCall => ({ ...call })) } : {}),
      ...(draft.toolResults.length > 0 ? { toolResults: draft.toolResults } : {}),
      ...(draft.messageId !== undefined ? { id: draft.messageId } : {}),
    }));
    const end = this.#offset + this.#limit;
    return { messages, next: this.#cut ?? (this.#count > end ? end : undefined) };
  }

  #begin(role: Draft["role"], messageId: string | undefined): Draft {
    const draft: Draft = { role, text: "", toolCalls: [], toolResults: [], messageId, called: false, bytes: 0, full: false };
    const index = this.#count++;
    if (index >= this.#offset && index < this.#offset + this.#limit && this.#cut === undefined) {
      if (this.#kept.length > 0 && this.#pageBytes >= this.#caps.page) this.#cut = index;
      else {
        this.#kept.push(draft);
        this.#window.add(draft);
      }
    }
    this.#current = draft;
    return draft;
  }

  /** Whether `bytes` more fit `draft` (counted if so); a piece that does not fit leaves the message full. */
  #fits(draft: Draft, bytes: number): boolean {
    if (draft.full || draft.bytes + bytes > this.#caps.message) {
      draft.full = true;
      return false;
    }
    draft.bytes += bytes;
    this.#pageBytes += bytes;
    return true;
  }

  #inWindow(draft: Draft): boolean {
    return this.#window.has(draft);
  }

  #result(update: acp.ToolCallUpdate): void {
    const known = this.#calls.get(update.toolCallId);
    if (!known || known.resulted || (update.status !== "completed" && update.status !== "failed")) return;
    known.resulted = true;
    const output = toolCallText(update);
    if (!this.#fits(known.draft, utf8Bytes(output))) return;
    known.draft.toolResults.push({ toolCallId: update.toolCallId, output, isError: update.status === "failed" });
  }
}
