import type { DriverEvent, TranscriptItem, Usage } from "@adaptor/driver";
import type { ContentBlock, ResultLine } from "./stream-json-lines.js";
import { contextCompactedNotice, sessionInitNotice } from "./system-notices.js";
import { boundToolName } from "../tool-call/bound-tool-name.js";

/** The model Claude Code names on a message it wrote itself, without a model call. */
const SYNTHETIC_MODEL = "<synthetic>";

type Emit = (event: DriverEvent) => void;

/** Options of a {@link StreamJsonTurn}. */
export interface StreamJsonTurnOptions {
  /**
   * Tool names the CLI also takes under an older name, old → current (Claude Code runs a model's
   * `Task` call as its `Agent` tool): events and the transcript use the current name, the one
   * approvals and hooks carry.
   */
  readonly toolAliases?: Readonly<Record<string, string>>;
}

/** The `command_lifecycle` states of a prompt claude runs normally (ignored: `system init` and `result` say the same). */
const COMMAND_STATES: ReadonlySet<string> = new Set(["queued", "started", "completed"]);

/**
 * The usage a stream-json `result` line reports (its `usage`), in the SDK's terms: undefined when
 * it reports neither input nor output tokens, zeros kept as zeros.
 */
export function resultUsage(line: ResultLine): Usage | undefined {
  const u = line.usage;
  if (!u || (u.input_tokens === undefined && u.output_tokens === undefined)) return undefined;
  return {
    inputTokens: u.input_tokens ?? 0,
    outputTokens: u.output_tokens ?? 0,
    ...(u.cache_read_input_tokens !== undefined ? { cacheReadTokens: u.cache_read_input_tokens } : {}),
    ...(u.cache_creation_input_tokens !== undefined ? { cacheWriteTokens: u.cache_creation_input_tokens } : {}),
  };
}

/** The `message` of a `message_start` event or an `assistant` line: its id and the model that wrote it. */
type ResponseMessage = { id?: unknown; model?: unknown };

/**
 * Translates the Claude-Code-style stream-json lines of one turn (`system`, `stream_event`,
 * `assistant`, `user`, `result`; Claude Code and CodeBuddy Code write them) into driver events,
 * and keeps what the response needs: transcript, session id, model, the first `result` line (a
 * second one is ignored). Control messages (`control_request`, ...) are the caller's.
 */
export class StreamJsonTurn {
  readonly transcript: TranscriptItem[] = [];
  sessionId: string | undefined;
  model: string | undefined;
  /**
   * Models that answered the turn's main-conversation model requests, in the order they first
   * answered, as the responses name them (`message.model` of `message_start` / `assistant`).
   */
  readonly answeredBy: string[] = [];
  /** The model of the turn's last main-conversation response (the one that gave its answer). */
  lastResponseModel: string | undefined;
  /** How many main-conversation model responses the turn has read: one per `model.response` notice. */
  get responses(): number {
    return this.#responses.size;
  }
  /**
   * `uuid` of the last main-conversation message (assistant or user line, not a subagent's) of the
   * turn: the point a later turn resumes at.
   */
  lastMessageId: string | undefined;
  /** The official terminal line and its exact JSON text; set once. */
  terminal: { line: ResultLine; json: string } | undefined;
  readonly #emit: Emit;
  readonly #toolAliases: Readonly<Record<string, string>>;
  readonly #toolNames = new Map<string, string>();
  /** Tool call id → the id of the delegation whose subagent made it (`parent_tool_use_id`). */
  readonly #toolParents = new Map<string, string>();
  /** Subagent id (`agent_id`, a `task_started` line's `task_id`) → the id of the delegation that started it. */
  readonly #agentParents = new Map<string, string>();
  readonly #toolInputs = new Map<string, unknown>();
  /** Message ids whose text/thinking already streamed as deltas. */
  readonly #streamed = new Set<string>();
  /** Content block index → tool call (id, name) of the streaming message. */
  readonly #streamingTools = new Map<number, { id: string; name: string; parentToolCallId?: string }>();
  #streamingMessageId: string | undefined;
  /** Ids of the main conversation's model responses seen so far (one `model.response` notice each). */
  readonly #responses = new Set<string>();
  /** The `key` of each `system` `notification` line of the turn (e.g. Claude Code's `stop-hook-block-cap`). */
  readonly notificationKeys = new Set<string>();

  constructor(emit: Emit, options: StreamJsonTurnOptions = {}) {
    this.#emit = emit;
    this.#toolAliases = options.toolAliases ?? {};
  }

  /** Handles one stdout JSON value that is not a control message; returns true for the first `result`. */
  accept(value: Record<string, unknown>, json: string): boolean {
    switch (value.type) {
      case "system":
        if (value.subtype === "init") {
          this.sessionId = str(value.session_id) ?? this.sessionId;
          this.model = str(value.model) ?? this.model;
          this.#emit({ type: "notice", kind: "lifecycle", message: "init", data: { sessionId: this.sessionId, model: this.model } });
          this.#emit(sessionInitNotice(value));
        } else {
          if (value.subtype === "notification" && typeof value.key === "string") this.notificationKeys.add(value.key);
          if (value.subtype === "task_started") this.#noteAgent(str(value.task_id), str(value.tool_use_id));
          this.#emit({ type: "notice", kind: "runtime", message: String(value.subtype), data: value });
          if (value.subtype === "compact_boundary") this.#emit(contextCompactedNotice(value));
        }
        return false;
      case "stream_event": {
        const event = value.event as Record<string, unknown> | undefined;
        if (event?.type === "message_start" && isMain(value)) this.#modelResponse(event.message as ResponseMessage | undefined);
        this.#streamEvent(event, parentOf(value));
        return false;
      }
      case "assistant":
        this.#noteMessage(value);
        if (value.is_api_error_message === true) {
          // Claude Code's synthetic message for a failed API call ("API Error: 400 …", model
          // "<synthetic>"): not the model's text. The error result carries the same text as the
          // failure's message; streaming it would hand the provider's raw error to every client.
          this.#emit({
            type: "notice",
            kind: "runtime",
            message: "api error",
            data: { apiErrorStatus: value.api_error_status, apiErrorType: value.api_error_type },
          });
          return false;
        }
        if (isMain(value)) this.#modelResponse(value.message as ResponseMessage | undefined);
        this.#assistant(value.message as { id?: string; content?: ContentBlock[] } | undefined, parentOf(value));
        return false;
      case "user":
        this.#noteMessage(value);
        this.#user(value.message as { content?: ContentBlock[] | string } | undefined, parentOf(value));
        return false;
      case "result":
        if (this.terminal) {
          this.#emit({ type: "notice", kind: "runtime", message: "second result line ignored" });
          return false;
        }
        this.terminal = { line: value as unknown as ResultLine, json };
        this.sessionId = str(value.session_id) ?? this.sessionId;
        return true;
      case "command_lifecycle":
        // claude 2.1.332 reports each prompt it reads as `queued`, `started`, `completed`
        // (`command_uuid`: the uuid of the user message it records). The turn's start and end are
        // already known from `system init` and `result`: those states are ignored; any other is
        // reported, as it may say why a prompt was not run.
        if (!COMMAND_STATES.has(String(value.state))) {
          this.#emit({ type: "notice", kind: "runtime", message: `command ${String(value.state)}`, data: value });
        }
        return false;
      default:
        this.#emit({ type: "notice", kind: "runtime", message: `unhandled line type ${String(value.type)}` });
        return false;
    }
  }

  /** Usage from the terminal line: undefined when unreported, zeros kept as zeros. */
  usage(): Usage | undefined {
    return this.terminal ? resultUsage(this.terminal.line) : undefined;
  }

  /** The input the model gave a tool call, as the assistant message carried it. */
  toolInput(toolUseId: string | undefined): unknown {
    return toolUseId ? this.#toolInputs.get(toolUseId) : undefined;
  }

  /** Name of the tool a call id belongs to. */
  toolName(toolUseId: string | undefined): string | undefined {
    return toolUseId ? this.#toolNames.get(toolUseId) : undefined;
  }

  /** The delegation's tool call id when a subagent made the call `toolUseId` (see `ToolCallEvent.parentToolCallId`). */
  parentToolCallId(toolUseId: string | undefined): string | undefined {
    return toolUseId ? this.#toolParents.get(toolUseId) : undefined;
  }

  /**
   * The id of the delegation's tool call that started the subagent `agentId` (Claude Code's
   * `agent_id`, which its hook callbacks carry), once a `task_started` line or a line of the
   * subagent named it.
   */
  delegationOf(agentId: string | undefined): string | undefined {
    return agentId ? this.#agentParents.get(agentId) : undefined;
  }

  #noteAgent(agentId: string | undefined, parent: string | undefined): void {
    if (agentId !== undefined && parent !== undefined) this.#agentParents.set(agentId, parent);
  }

  /** A tool call's name (current, for an alias) and parent, noted for later lines; the event fields for it. */
  #noteTool(id: string, rawName: string, parent: string | undefined): { name: string; parentToolCallId?: string } {
    // The model's name, cut as Claude Code cuts it in its assistant lines, so start, args and end agree.
    const name = boundToolName(this.#toolAliases[rawName] ?? rawName);
    this.#toolNames.set(id, name);
    if (parent !== undefined) this.#toolParents.set(id, parent);
    return parent !== undefined ? { name, parentToolCallId: parent } : { name };
  }

  /**
   * One `model.response` notice per model response of the main conversation (a subagent's are the
   * CLI's own business, as its turn limit counts them): at its `message_start` when partial
   * messages stream, else at its first assistant line. A message the CLI wrote itself (model
   * `<synthetic>`, e.g. the answer of a local slash command such as `/rename`) made no model call:
   * no notice, not counted; it only names the turn's model.
   */
  #modelResponse(message: ResponseMessage | undefined): void {
    const id = message?.id;
    if (typeof id !== "string" || this.#responses.has(id)) return;
    if (message?.model === SYNTHETIC_MODEL) {
      this.lastResponseModel ??= SYNTHETIC_MODEL;
      return;
    }
    this.#responses.add(id);
    const model = str(message?.model);
    if (model !== undefined) {
      this.lastResponseModel = model;
      if (!this.answeredBy.includes(model)) this.answeredBy.push(model);
    }
    this.#emit({ type: "notice", kind: "model.response", data: { messageId: id, ...(model !== undefined ? { model } : {}) } });
  }

  #noteMessage(value: Record<string, unknown>): void {
    this.#noteAgent(str(value.agent_id), parentOf(value));
    const subagent = value.parent_tool_use_id !== undefined && value.parent_tool_use_id !== null;
    if (!subagent && value.isReplay !== true) this.lastMessageId = str(value.uuid) ?? this.lastMessageId;
  }

  #streamEvent(event: Record<string, unknown> | undefined, parent: string | undefined): void {
    if (!event) return;
    if (event.type === "message_start") {
      this.#streamingMessageId = str((event.message as { id?: unknown } | undefined)?.id);
      this.#streamingTools.clear();
      return;
    }
    const messageId = this.#streamingMessageId;
    const index = typeof event.index === "number" ? event.index : -1;
    if (event.type === "content_block_start") {
      const block = event.content_block as { type?: string; id?: string; name?: string } | undefined;
      if (block?.type === "tool_use" && block.id && block.name) {
        const tool = this.#noteTool(block.id, block.name, parent);
        this.#streamingTools.set(index, { id: block.id, ...tool });
        this.#emit({ type: "tool-call", phase: "start", id: block.id, ...tool });
      }
      return;
    }
    if (event.type !== "content_block_delta") return;
    const delta = event.delta as { type?: string; text?: string; thinking?: string; partial_json?: string } | undefined;
    if (delta?.type === "text_delta" && delta.text) {
      this.textDelta(delta.text);
    } else if (delta?.type === "thinking_delta" && delta.thinking) {
      if (messageId) this.#streamed.add(messageId);
      this.#emit(
        messageId ? { type: "thinking-delta", text: delta.thinking, messageId } : { type: "thinking-delta", text: delta.thinking },
      );
    } else if (delta?.type === "input_json_delta" && delta.partial_json) {
      const tool = this.#streamingTools.get(index);
      if (tool) this.#emit({ type: "tool-call", phase: "args", ...tool, argsDelta: delta.partial_json });
    }
  }

  /**
   * Handles the `text_delta` of a `content_block_delta` stream event (non-empty `text`), as
   * {@link accept} does for such a line: a `text-delta` event of the streaming message.
   */
  textDelta(text: string): void {
    const messageId = this.#streamingMessageId;
    if (messageId) this.#streamed.add(messageId);
    this.#emit(messageId ? { type: "text-delta", text, messageId } : { type: "text-delta", text });
  }

  #assistant(message: { id?: string; content?: ContentBlock[] } | undefined, parent: string | undefined): void {
    const streamed = message?.id !== undefined && this.#streamed.has(message.id);
    for (const block of message?.content ?? []) {
      if (block.type === "text" && typeof block.text === "string") {
        this.transcript.push({ kind: "assistant", text: block.text });
        if (!streamed) this.#emit({ type: "text-delta", text: block.text, ...(message?.id ? { messageId: message.id } : {}) });
      } else if (block.type === "thinking" && typeof block.thinking === "string") {
        this.transcript.push({ kind: "thinking", text: block.thinking });
        if (!streamed) this.#emit({ type: "thinking-delta", text: block.thinking });
      } else if (block.type === "tool_use") {
        const { id, name: rawName, input } = block as { id: string; name: string; input: unknown };
        const known = this.#toolNames.has(id);
        const tool = this.#noteTool(id, rawName, parent);
        this.#toolInputs.set(id, input);
        this.transcript.push({ kind: "tool-call", toolCallId: id, toolName: tool.name, input });
        if (!known) this.#emit({ type: "tool-call", phase: "start", id, ...tool });
        this.#emit({ type: "tool-call", phase: "end", id, ...tool, input });
      }
    }
  }

  /**
   * A user line: its tool results, and its text unless it is a subagent's prompt (`parent` set:
   * the delegation's tool call id), which the Agent call's input holds.
   */
  #user(message: { content?: ContentBlock[] | string } | undefined, parent: string | undefined): void {
    const main = parent === undefined;
    const content = message?.content;
    if (typeof content === "string" || !content) {
      if (typeof content === "string" && main) this.transcript.push({ kind: "user", text: content });
      return;
    }
    for (const block of content) {
      if (block.type === "tool_result") {
        const result = block as { tool_use_id: string; content?: unknown; is_error?: boolean };
        const output = toolResultText(result.content);
        const name = this.#toolNames.get(result.tool_use_id);
        const isError = result.is_error === true;
        this.transcript.push({
          kind: "tool-result",
          toolCallId: result.tool_use_id,
          text: output,
          isError,
          ...(name ? { toolName: name } : {}),
        });
        this.#emit({
          type: "tool-result",
          id: result.tool_use_id,
          output,
          isError,
          ...(name ? { name } : {}),
          ...(parent !== undefined ? { parentToolCallId: parent } : {}),
        });
      } else if (block.type === "text" && typeof block.text === "string" && main) {
        this.transcript.push({ kind: "user", text: block.text });
      }
    }
  }
}

function str(value: unknown): string | undefined {
  return typeof value === "string" && value !== "" ? value : undefined;
}

/**
 * The text of a `tool_result` block's `content` (a string, or content blocks whose `text` parts are
 * joined); `""` for anything else.
 */
export function toolResultText(content: unknown): string {
  if (typeof content === "string") return content;
  if (Array.isArray(content)) {
    return content
      .map((part) =>
        typeof part === "object" && part && typeof (part as { text?: unknown }).text === "string" ? (part as { text: string }).text : "",
      )
      .join("");
  }
  return "";
}

/** True for a line of the main conversation (not a subagent's). */
function isMain(value: Record<string, unknown>): boolean {
  return value.parent_tool_use_id === undefined || value.parent_tool_use_id === null;
}

/** A subagent's line: the id of the delegation's tool call (`parent_tool_use_id`); undefined for the main conversation's. */
function parentOf(value: Record<string, unknown>): string | undefined {
  return str(value.parent_tool_use_id);
}
