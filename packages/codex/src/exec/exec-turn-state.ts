import type { DriverEvent, Usage } from "@adaptor/driver";
import { sessionInit, TranscriptLog } from "@adaptor/driver/kit";
import type { ExecEvent, ExecItem, ExecUsage } from "./exec-events.js";
import { leftToCodex, retryAnnouncement } from "../retry-announcement.js";
import { STILL_RUNNING } from "../turn-end.js";

type Emit = (event: DriverEvent) => void;

const TOOL_NAMES: Readonly<Record<string, string>> = {
  command_execution: "shell",
  file_change: "apply_patch",
  mcp_tool_call: "mcp",
  web_search: "web_search",
};

/**
 * Translates `codex exec --json` lines into driver events (whole items, no deltas) and keeps what
 * the response needs: thread id, terminal line, usage, transcript, last agent message. A long
 * turn is mostly agent messages, one transcript item each: the transcript keeps their texts packed
 * and makes the items when they are first read ({@link TranscriptLog}). The first terminal decides
 * the turn: a tool call still open then gets its `tool-result` first (see {@link STILL_RUNNING}),
 * and lines after it are only counted ({@link late}).
 */
export class ExecTurnState {
  readonly transcript = new TranscriptLog();
  threadId: string | undefined;
  /** `"completed"` after `turn.completed`, `"failed"` after `turn.failed`. */
  status: "completed" | "failed" | undefined;
  errorMessage: string | undefined;
  terminal: { event: string; json: string } | undefined;
  lastAgentText: string | undefined;
  /** Set when codex announced more consecutive model-call retries than allowed (see the constructor). */
  gaveUp: { readonly message: string; readonly retries: number } | undefined;
  #usage: ExecUsage | undefined;
  readonly #emit: Emit;
  readonly #started = new Set<string>();
  /** Tool calls reported as started and not yet answered by a `tool-result`: their latest item, by id. */
  readonly #open = new Map<string, ExecItem>();
  readonly #maxRetries: number;
  /** Consecutive retry announcements codex does not count itself, since the last item. */
  #retries = 0;

  /**
   * @param maxRetries how many consecutive retry announcements (an `error` line whose message
   * starts with codex's `Reconnecting...`, see {@link retryAnnouncement}) may arrive with no item in
   * between; the next one ends the turn ({@link gaveUp}, {@link accept} returns true). The first
   * tries of a retry codex counts itself (`Reconnecting... n/m`, see {@link leftToCodex}) are not
   * counted: codex ends those at `m`, by failing the turn or by falling back from a websocket to HTTP. Each `error` line is a notice `error` with
   * `data.willRetry` (and `attempt` / `maxAttempts` when codex counts them). Default: no bound.
   */
  constructor(emit: Emit, maxRetries = Number.POSITIVE_INFINITY) {
    this.#emit = emit;
    this.#maxRetries = maxRetries;
  }

  /** Usage from `turn.completed`; undefined when none was reported. */
  usage(): Usage | undefined {
    const u = this.#usage;
    if (!u) return undefined;
    return {
      inputTokens: u.input_tokens,
      outputTokens: u.output_tokens,
      ...(u.cached_input_tokens !== undefined ? { cacheReadTokens: u.cached_input_tokens } : {}),
      ...(u.cache_write_input_tokens !== undefined ? { cacheWriteTokens: u.cache_write_input_tokens } : {}),
      ...(u.reasoning_output_tokens !== undefined ? { reasoningTokens: u.reasoning_output_tokens } : {}),
    };
  }

  /**
   * Lines that came after the turn's end (its terminal, or the retry announcement that gave up)
   * and were dropped: the first terminal decides the turn's text and verdict.
   */
  late = 0;

  /** True once the turn ended: its terminal was read, or codex's retries exceeded the bound. */
  get ended(): boolean {
    return this.terminal !== undefined || this.gaveUp !== undefined;
  }

  /**
   * Handles one line; returns true for the terminal (`turn.completed` / `turn.failed`). After the
   * turn ended ({@link ended}) a line is only counted in {@link late}.
   */
  accept(event: ExecEvent, json: string): boolean {
    if (this.ended) {
      this.late++;
      return false;
    }
    switch (event.type) {
      case "thread.started":
        this.threadId = event.thread_id;
        this.#emit({ type: "notice", kind: "lifecycle", message: "thread started", data: { threadId: event.thread_id } });
        this.#emit(sessionInit({ sessionId: event.thread_id }));
        return false;
      case "turn.started":
        this.#emit({ type: "notice", kind: "lifecycle", message: "turn started" });
        return false;
      case "item.started":
        this.#retries = 0;
        this.#start(event.item);
        return false;
      case "item.updated":
        if (this.#open.has(event.item.id)) this.#open.set(event.item.id, event.item);
        return false;
      case "item.completed":
        this.#retries = 0;
        this.#complete(event.item);
        return false;
      case "turn.completed":
        this.#closeOpenCalls();
        this.status = "completed";
        this.#usage = event.usage;
        this.terminal = { event: event.type, json };
        return true;
      case "turn.failed":
        this.#closeOpenCalls();
        this.status = "failed";
        this.errorMessage = event.error.message;
        this.terminal = { event: event.type, json };
        return true;
      case "error": {
        const retry = retryAnnouncement(event.message);
        this.#emit({ type: "notice", kind: "error", message: event.message, data: { willRetry: retry !== undefined, ...retry } });
        // codex's first counted tries (`n/m`) are left to its own bound: after them it fails the turn
        // or falls back from a websocket to HTTP, where the turn may well succeed.
        if (retry === undefined || leftToCodex(retry) || this.gaveUp) return false;
        if (++this.#retries <= this.#maxRetries) return false;
        this.gaveUp = { message: event.message, retries: this.#retries };
        return true;
      }
      default:
        return false;
    }
  }

  #start(item: ExecItem): void {
    const name = TOOL_NAMES[item.type];
    if (!name || this.#started.has(item.id)) return;
    this.#started.add(item.id);
    this.#open.set(item.id, item);
    const input =
      item.type === "command_execution" ? { command: item.command } : item.type === "file_change" ? { changes: item.changes } : {};
    this.transcript.push({ kind: "tool-call", toolCallId: item.id, toolName: name, input });
    this.#emit({ type: "tool-call", phase: "start", id: item.id, name });
    this.#emit({ type: "tool-call", phase: "end", id: item.id, name, input });
  }

  /** A completed agent message (`item.completed` with an `agent_message` item); after the turn ended, only counted in {@link late}. */
  agentMessage(id: string, text: string): void {
    if (this.ended) {
      this.late++;
      return;
    }
    this.lastAgentText = text;
    this.transcript.text("assistant", text);
    this.#emit({ type: "text-delta", text, messageId: id });
  }

  #complete(item: ExecItem): void {
    if (item.type === "agent_message" && typeof item.text === "string") {
      this.agentMessage(item.id, item.text);
      return;
    }
    if (item.type === "reasoning" && typeof item.text === "string") {
      this.transcript.text("thinking", item.text);
      this.#emit({ type: "thinking-delta", text: item.text, messageId: item.id });
      return;
    }
    if (item.type === "error" && typeof item.message === "string") {
      this.#emit({ type: "notice", kind: "warning", message: item.message });
      return;
    }
    if (item.type === "todo_list") {
      this.#emit({ type: "notice", kind: "plan", data: { items: item.items } });
      return;
    }
    const name = TOOL_NAMES[item.type];
    if (!name) return;
    this.#start(item);
    let output = "";
    let isError = false;
    let code: { exitCode?: number } = {};
    if (item.type === "command_execution") {
      output = String(item.aggregated_output ?? "");
      isError = item.status !== "completed" || (item.exit_code !== null && item.exit_code !== 0);
      if (Number.isInteger(item.exit_code)) code = { exitCode: item.exit_code as number };
    } else if (item.type === "file_change") {
      const changes = item.changes as { path: string; kind: string }[];
      output = changes.map((c) => `${c.kind} ${c.path}`).join("\n");
      isError = item.status !== "completed";
    } else {
      output = JSON.stringify(item);
      isError = (item as { status?: unknown }).status === "failed";
    }
    this.#result(item.id, name, output, isError, code);
  }

  #result(id: string, name: string, output: string, isError: boolean, code: { exitCode?: number } = {}): void {
    this.#open.delete(id);
    this.transcript.push({ kind: "tool-result", toolCallId: id, toolName: name, text: output, isError, ...code });
    this.#emit({ type: "tool-result", id, name, output, isError, ...code });
  }

  /**
   * At the turn's end, answers every tool call codex left open (a command it keeps running past its
   * answer to the model): what the command wrote so far, else {@link STILL_RUNNING}, `isError` true.
   */
  #closeOpenCalls(): void {
    for (const item of [...this.#open.values()]) {
      const written = item.type === "command_execution" ? String(item.aggregated_output ?? "") : "";
      this.#result(item.id, TOOL_NAMES[item.type]!, written || STILL_RUNNING, true);
    }
  }
}
