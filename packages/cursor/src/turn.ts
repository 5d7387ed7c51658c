import type { DriverEvent, DriverFailure, TranscriptItem } from "@adaptor/driver";

/** The `result` line that ends a print-mode run. */
interface ResultLine {
  readonly subtype?: string;
  readonly is_error?: boolean;
  readonly result?: string;
  readonly session_id?: string;
}

/** One tool call as the CLI reports it: `{ "<kind>ToolCall": { args, result? } }` or `{ function: { name, arguments } }`. */
type ToolCallBody = Readonly<Record<string, { args?: unknown; result?: unknown; name?: string; arguments?: unknown } | undefined>>;

/**
 * Translates the stream-json lines of one `cursor-agent -p --output-format stream-json
 * --stream-partial-output` run (the CLI's documented output format) into driver events, and keeps
 * what the response needs: text, transcript, chat id, model, the `result` line.
 *
 * - `system` `init` → notice `lifecycle` `init` (`session_id`, `model`);
 * - `assistant` → a `text-delta` per line (partial output streams the message in pieces);
 * - `tool_call` `started` / `completed` → `tool-call` start and end (the tool's `args` as input),
 *   then `tool-result` (the `success` payload, or the error payload with `isError`);
 * - `result` → the terminal: its `result` is the run's whole text, `is_error` a failure;
 * - `user` (the prompt echoed) is skipped; any other type is a `notice` `runtime`.
 */
export class CursorTurn {
  readonly transcript: TranscriptItem[] = [];
  sessionId: string | undefined;
  model: string | undefined;
  terminal: ResultLine | undefined;
  readonly #emit: (event: DriverEvent) => void;
  #streamed = "";
  #assistant = "";

  constructor(emit: (event: DriverEvent) => void) {
    this.#emit = emit;
  }

  /** Handles one parsed stdout line; returns true for the `result` line. */
  accept(value: Record<string, unknown>): boolean {
    if (typeof value.session_id === "string") this.sessionId = value.session_id;
    switch (value.type) {
      case "system":
        if (typeof value.model === "string") this.model = value.model;
        this.#emit({ type: "notice", kind: "lifecycle", message: String(value.subtype ?? "system"), data: value });
        return false;
      case "user":
        return false;
      case "assistant":
        this.#text(value.message as { content?: { type?: string; text?: string }[] } | undefined);
        return false;
      case "tool_call":
        this.#flushAssistant();
        this.#toolCall(value);
        return false;
      case "result":
        this.#flushAssistant();
        this.terminal = value as ResultLine;
        return true;
      default:
        this.#emit({ type: "notice", kind: "runtime", message: `unhandled line type ${String(value.type)}`, data: value });
        return false;
    }
  }

  /** The run's text: the `result` line's, else what streamed. */
  get text(): string {
    return typeof this.terminal?.result === "string" ? this.terminal.result : this.#streamed;
  }

  /** The business failure the `result` line reports, if any. */
  failure(): DriverFailure | undefined {
    const line = this.terminal;
    if (!line || (line.is_error !== true && (line.subtype ?? "success") === "success")) return undefined;
    return {
      reason: "agent_error",
      message: line.result || `cursor-agent run failed: ${line.subtype ?? "error"}`,
      details: { subtype: line.subtype },
    };
  }

  #text(message: { content?: { type?: string; text?: string }[] } | undefined): void {
    for (const block of message?.content ?? []) {
      if (block.type !== "text" || !block.text) continue;
      this.#streamed += block.text;
      this.#assistant += block.text;
      this.#emit({ type: "text-delta", text: block.text });
    }
  }

  #flushAssistant(): void {
    if (this.#assistant === "") return;
    this.transcript.push({ kind: "assistant", text: this.#assistant });
    this.#assistant = "";
  }

  #toolCall(value: Record<string, unknown>): void {
    const id = typeof value.call_id === "string" ? value.call_id : "";
    const body = (value.tool_call ?? {}) as ToolCallBody;
    const [key, call] = Object.entries(body)[0] ?? ["tool", undefined];
    const name = key === "function" && typeof call?.name === "string" ? call.name : key.replace(/ToolCall$/, "");
    const input = key === "function" ? parseArguments(call?.arguments) : call?.args;
    if (value.subtype === "started") {
      this.transcript.push({ kind: "tool-call", toolCallId: id, toolName: name, input });
      this.#emit({ type: "tool-call", phase: "start", id, name });
      this.#emit({ type: "tool-call", phase: "end", id, name, input: input ?? {} });
      return;
    }
    if (value.subtype !== "completed") return;
    const result = (call?.result ?? {}) as Record<string, unknown>;
    const success = result.success;
    const isError = success === undefined;
    const output = outputOf(key, isError ? (Object.values(result)[0] ?? result) : success);
    this.transcript.push({ kind: "tool-result", toolCallId: id, toolName: name, text: output, isError });
    this.#emit({ type: "tool-result", id, name, output, isError });
  }
}

function parseArguments(text: unknown): unknown {
  if (typeof text !== "string") return text;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

/** The text of a tool's result: a shell's output, a read file's content, else the payload as JSON. */
function outputOf(kind: string, payload: unknown): string {
  if (typeof payload === "string") return payload;
  const p = (payload ?? {}) as Record<string, unknown>;
  if (kind === "shellToolCall") return [p.stdout, p.stderr].filter((s) => typeof s === "string" && s !== "").join("\n");
  if (kind === "readToolCall" && typeof p.content === "string") return p.content;
  if (typeof p.message === "string") return p.message;
  return JSON.stringify(payload ?? null);
}
