import type { DriverEvent, TranscriptItem, Usage } from "@adaptor/driver";
import { ownString } from "@adaptor/driver/kit";
import type { ServerNotification } from "../protocol/generated/ServerNotification.js";
import type { AgentMessageDeltaNotification } from "../protocol/generated/v2/AgentMessageDeltaNotification.js";
import type { ThreadItem } from "../protocol/generated/v2/ThreadItem.js";
import type { TokenUsageBreakdown } from "../protocol/generated/v2/TokenUsageBreakdown.js";
import type { Turn } from "../protocol/generated/v2/Turn.js";
import type { FileUpdateChange } from "../protocol/generated/v2/FileUpdateChange.js";
import { DeltaLineTemplates, type DeltaMethod } from "./delta-lines.js";
import { DeltaLineReader } from "./parse-line.js";
import { STILL_RUNNING } from "../turn-end.js";
import { leftToCodex, retryAnnouncement } from "../retry-announcement.js";

type Emit = (event: DriverEvent) => void;

/** At most this many turn-tagged notifications are held while the turn id is unknown; later ones are dropped. */
const MAX_HELD = 10_000;

/** The turn a notification names (`params.turnId`, or `params.turn.id` for turn lifecycle), if any. */
export function turnIdOf(params: unknown): string | undefined {
  if (typeof params !== "object" || params === null) return undefined;
  const p = params as { turnId?: unknown; turn?: { id?: unknown } };
  if (typeof p.turnId === "string") return p.turnId;
  if (typeof p.turn === "object" && p.turn !== null && typeof p.turn.id === "string") return p.turn.id;
  return undefined;
}

/**
 * Tool name the driver reports for a codex thread item that is a tool call, else undefined. An MCP
 * server's tool is `mcp__<server>__<tool>`: the name codex gives the model (namespace
 * `mcp__<server>`, tool `<tool>`) and its approvals, as Claude Code names MCP tools.
 */
export function toolNameOf(item: ThreadItem): string | undefined {
  switch (item.type) {
    case "commandExecution":
      return "shell";
    case "fileChange":
      return "apply_patch";
    case "mcpToolCall":
      return `mcp__${item.server}__${item.tool}`;
    case "dynamicToolCall":
      return item.tool;
    case "webSearch":
      return "web_search";
    case "imageView":
      return "view_image";
    default:
      return undefined;
  }
}

/** The input the driver reports for a tool-call item (a command execution: `{ command, cwd }`), on its `tool-call` event and wherever the call is shown. */
export function toolInputOf(item: ThreadItem): unknown {
  switch (item.type) {
    case "commandExecution":
      return { command: item.command, cwd: item.cwd };
    case "fileChange":
      return { changes: item.changes };
    case "mcpToolCall":
    case "dynamicToolCall":
      return item.arguments;
    case "imageView":
      return { path: item.path };
    default:
      return {};
  }
}

/**
 * Whether two running token totals of a thread are the same, field by field, and not nothing (a
 * total of zeros tells nothing: no usage before it to send again).
 */
function sameTotal(a: TokenUsageBreakdown, b: TokenUsageBreakdown | undefined): boolean {
  return (
    b !== undefined &&
    b.inputTokens + b.outputTokens > 0 &&
    a.inputTokens === b.inputTokens &&
    a.outputTokens === b.outputTokens &&
    a.cachedInputTokens === b.cachedInputTokens &&
    a.cacheWriteInputTokens === b.cacheWriteInputTokens &&
    a.reasoningOutputTokens === b.reasoningOutputTokens
  );
}

/** A readable rendering of file changes: `<kind> <path>` then the diff, per change. */
export function renderChanges(changes: readonly FileUpdateChange[]): string {
  return changes.map((change) => `${change.kind.type} ${change.path}\n${change.diff}`.trimEnd()).join("\n");
}

/**
 * The result the driver reports for a tool-call item once it ended: its output (a command's
 * `aggregatedOutput`, else `streamed`, the output deltas kept), whether it failed or was declined,
 * and a command's exit code.
 */
export function resultOf(item: ThreadItem, streamed: string | undefined): { output: string; isError: boolean; exitCode?: number } {
  switch (item.type) {
    case "commandExecution":
      return {
        output: item.aggregatedOutput || streamed || (item.status === "declined" ? "declined" : ""),
        isError: item.status !== "completed" || (item.exitCode !== null && item.exitCode !== 0),
        ...(Number.isInteger(item.exitCode) ? { exitCode: item.exitCode as number } : {}),
      };
    case "fileChange":
      return { output: item.status === "declined" ? "declined" : renderChanges(item.changes), isError: item.status !== "completed" };
    case "mcpToolCall":
      return { output: JSON.stringify(item.error ?? item.result ?? null), isError: item.status !== "completed" };
    case "dynamicToolCall":
      return { output: JSON.stringify(item.contentItems ?? null), isError: item.success === false };
    default:
      return { output: "", isError: false };
  }
}

/**
 * Translates `codex app-server` notifications of one turn into driver events
 * (docs/protocols.md) and keeps what the response needs: transcript, token usage of this
 * turn, the last agent message, the `turn/completed` turn and its exact JSON.
 *
 * - `item/agentMessage/delta` → `text-delta`; `item/reasoning/summaryTextDelta` / `textDelta` → `thinking-delta`;
 * - `item/started` of a command execution / file change / MCP or dynamic tool call → `tool-call`
 *   `start` and `end` (codex announces the complete input at once); `item/completed` → `tool-result`
 *   (command output — `aggregatedOutput`, else the `outputDelta`s — and exit code, file changes with their diffs, `isError` for a failure or a decline);
 * - `thread/tokenUsage/updated` of this turn → usage (sum of `last`, but for an update that adds
 *   nothing to the thread's running `total`: see {@link previousTotal}); `turn/plan/updated` → notice `plan`;
 *   `turn/diff/updated` → notice `diff`; `error` → notice `error`; warnings → notice `warning`;
 * - more consecutive `error`s with `willRetry: true` than allowed, with no model output (a delta, an
 *   item, a usage update) in between, end the turn: {@link gaveUp}. The first tries of a retry
 *   codex counts itself (`Reconnecting... n/m`, see {@link leftToCodex}) are not counted: codex bounds them.
 *
 * Terminal means terminal: the turn's first `turn/completed` decides it; what comes after it
 * (another `turn/completed`, deltas, items) is dropped and counted in {@link late}. A tool call
 * still open then (a command codex keeps running past its answer) gets its `tool-result` just
 * before the `turn completed` notice: the output it wrote so far, else {@link STILL_RUNNING}, `isError` true.
 *
 * Turn isolation: a notification that names a turn is handled only when it names this turn. Until
 * this turn's id is known (the `turn/start` reply, {@link setTurnId}), such notifications are held,
 * then replayed if they belong to this turn and dropped otherwise: codex replays the previous
 * turn's usage when a thread is resumed, and late events of a previous turn on a reused process
 * never reach this one. Notifications of another thread are ignored.
 */
export class AppServerTurnState {
  readonly transcript: TranscriptItem[] = [];
  threadId: string | undefined;
  /** This turn's id, once {@link setTurnId} ran. */
  turnId: string | undefined;
  /** Notifications of other turns that were dropped (late events of a previous turn, replayed usage). */
  dropped = 0;
  /**
   * Notifications of this turn that came after its first `turn/completed` and were dropped: the
   * first terminal decides the turn (a second `turn/completed` changes nothing).
   */
  late = 0;
  /**
   * True once a notification of this turn arrived (`turn/started` comes first): codex answers
   * `turn/start` before the turn is active, and refuses `turn/interrupt` / `turn/steer` for it
   * until then ("no active turn").
   */
  started = false;
  /** Resolved by this turn's first notification (see {@link whenStarted}). */
  #startWaiters: (() => void)[] = [];
  /** The `turn/completed` turn of this run, once it arrived. */
  completed: Turn | undefined;
  /** The exact JSON line of `turn/completed`. */
  completedJson: string | undefined;
  /** Text of the last completed agent message. */
  lastAgentText: string | undefined;
  /**
   * Set when codex announced more consecutive model-call retries than the turn allows (see the
   * constructor): codex's last error text, its `codexErrorInfo` and how many retries it announced.
   */
  gaveUp: { readonly message: string; readonly retries: number; readonly codexErrorInfo: unknown } | undefined;
  readonly #emit: Emit;
  readonly #maxRetries: number;
  /** Consecutive `willRetry` errors codex does not count itself, since the last model output. */
  #retries = 0;
  readonly #items = new Map<string, ThreadItem>();
  /** Tool calls of this turn reported as started and not yet answered by a `tool-result`, by id. */
  readonly #open = new Map<string, ThreadItem>();
  readonly #streamed = new Set<string>();
  /** The item id added to {@link #streamed} last (consecutive deltas of one message skip the set). */
  #lastStreamed: string | undefined;
  /** Reads this turn's agent message deltas in codex's own shape straight from their text, once the thread and turn are known. */
  #deltaLines: DeltaLineReader | undefined;
  /** Reads this turn's delta notifications of any method and key order, once a line of their shape was parsed. */
  #deltaTemplates = new DeltaLineTemplates();
  /**
   * True when the line before was read by {@link #deltaTemplates}: the next line is tried there
   * first, so a run of deltas in another key order does not pay a refused attempt of
   * {@link #deltaLines} per line.
   */
  #templatesFirst = false;
  /** Command output that arrived as `item/commandExecution/outputDelta`, by item id. */
  readonly #commandOutput = new Map<string, string>();
  #usage: { input: number; output: number; cached: number; cacheWrite: number; reasoning: number } | undefined;
  #held: { method: string; params: unknown; json: string }[] = [];
  /**
   * Model responses of this turn's conversation so far: its usage updates, one per response (each a
   * `model.response` notice), but for those of a context compaction.
   */
  responses = 0;
  /** Ids of the `contextCompaction` items started and not yet completed. */
  readonly #compactions = new Set<string>();
  /**
   * The thread's running token total (`tokenUsage.total`) as codex last reported it before this
   * turn's next usage update: set by the session for a thread it served before (a reused process),
   * then kept up to date from every usage update of the thread, this turn's and the others' codex
   * sends (a resumed thread's replayed usage). An update whose `total` equals it used no tokens:
   * codex re-sends the thread's last usage as it starts a context compaction, and those tokens were
   * counted by the turn that used them. Undefined while unknown (a resumed or forked thread codex
   * replayed no usage for): a compaction's first update is then taken as that re-send.
   */
  previousTotal: TokenUsageBreakdown | undefined;

  /**
   * @param maxRetries how many consecutive `error` notifications with `willRetry: true` (codex
   * retrying a model call) may arrive with no model output in between; the next one ends the turn
   * ({@link gaveUp}, {@link accept} returns true). The first tries of a retry codex counts itself
   * (message `Reconnecting... n/m`, see {@link leftToCodex}) are not counted: codex ends those at
   * `m`, by failing the turn or by falling back from a websocket to HTTP. Default: no bound.
   */
  constructor(emit: Emit, maxRetries = Number.POSITIVE_INFINITY) {
    this.#emit = emit;
    this.#maxRetries = maxRetries;
  }

  /**
   * The id of the latest tool call named `name` (as {@link toolNameOf} names it) that codex
   * announced and has not answered yet, if any.
   */
  openCall(name: string): string | undefined {
    let id: string | undefined;
    for (const item of this.#open.values()) if (toolNameOf(item) === name) id = item.id;
    return id;
  }

  /** A thread item seen in this turn, by id (file-change approvals only carry the item id). */
  item(id: string): ThreadItem | undefined {
    return this.#items.get(id);
  }

  /** Token usage of this turn: undefined when codex reported none. */
  usage(): Usage | undefined {
    const u = this.#usage;
    if (!u) return undefined;
    return {
      inputTokens: u.input,
      outputTokens: u.output,
      cacheReadTokens: u.cached,
      cacheWriteTokens: u.cacheWrite,
      reasoningTokens: u.reasoning,
    };
  }

  /**
   * Records this turn's id (from the `turn/start` reply) and replays the held notifications that
   * belong to it. Returns true when this turn's `turn/completed` was among them.
   */
  setTurnId(turnId: string): boolean {
    if (this.turnId !== undefined) return this.completed !== undefined;
    this.turnId = turnId;
    if (this.threadId !== undefined) this.#deltaLines = new DeltaLineReader(this.threadId, turnId);
    const held = this.#held;
    this.#held = [];
    let done = false;
    for (const { method, params, json } of held) done = this.accept(method, params, json) || done;
    return done;
  }

  /**
   * Resolves once this turn {@link started} (at once when it has). It never resolves for a turn
   * codex reports nothing of (codex exited first): race it with the turn's end.
   */
  whenStarted(): Promise<void> {
    if (this.started) return Promise.resolve();
    return new Promise((resolve) => this.#startWaiters.push(resolve));
  }

  #markStarted(): void {
    this.started = true;
    const waiters = this.#startWaiters;
    this.#startWaiters = [];
    for (const wake of waiters) wake();
  }

  /**
   * Follows the next turn of the same run on this thread (another `turn/start`, when the run's
   * stop hook asked the agent to go on): the transcript, the usage and the last agent text go on;
   * the finished turn's id and terminal are cleared, and notifications naming a turn are held
   * until {@link setTurnId} names the next one (the finished turn's late ones are then dropped).
   */
  beginNext(): void {
    this.turnId = undefined;
    this.started = false;
    this.completed = undefined;
    this.completedJson = undefined;
    this.#deltaLines = undefined;
    // A learned shape keeps the finished turn's id.
    this.#deltaTemplates = new DeltaLineTemplates();
  }

  /**
   * Handles the stdout line `text` when it is a delta notification of this thread and turn that
   * can be read without parsing it (what {@link accept} would do with its parsed value): an
   * `item/agentMessage/delta` in the shape codex writes, or any delta of `DELTA_METHODS` in a
   * shape learned from an earlier line of this turn that {@link accept} handled. Returns false for
   * any other line, which the caller parses and dispatches.
   */
  acceptLine(text: string): boolean {
    const reader = this.#deltaLines;
    if (reader === undefined) return false;
    const triedTemplates = this.#templatesFirst;
    if (triedTemplates && this.#readTemplate(text)) return true;
    // #templatesFirst is false here: set by a line the learned shapes read, cleared by one they refused.
    if (reader.read(text)) {
      if (!this.started) this.#markStarted();
      // #textDelta written out: one function less for V8 to compile on the per-line path.
      const itemId = reader.itemId;
      this.#retries = 0;
      if (itemId !== this.#lastStreamed) this.#streamedItem(itemId);
      this.#emit({ type: "text-delta", text: reader.delta, messageId: itemId });
      return true;
    }
    return !triedTemplates && this.#readTemplate(text);
  }

  /** {@link acceptLine} by a learned shape: true when `text` has one, and then its delta is handled. */
  #readTemplate(text: string): boolean {
    const templates = this.#deltaTemplates;
    if (!templates.read(text)) {
      this.#templatesFirst = false;
      return false;
    }
    this.#templatesFirst = true;
    if (!this.started) this.#markStarted();
    this.#delta(templates.method, templates.itemId, templates.delta);
    return true;
  }

  #textDelta(itemId: string, text: string): void {
    this.#retries = 0;
    this.#streamedItem(itemId);
    this.#emit({ type: "text-delta", text, messageId: itemId });
  }

  /**
   * Records that `itemId` streamed (its completed item repeats nothing); consecutive deltas of one
   * item skip the set. Kept for the turn: a copy, not a slice of the line's stdout chunk.
   */
  #streamedItem(itemId: string): void {
    if (itemId !== this.#lastStreamed) {
      const id = ownString(itemId);
      this.#streamed.add(id);
      this.#lastStreamed = id;
    }
  }

  /**
   * Lets go of what the last lines read left behind (the delta readers' values, slices of those
   * lines): called before the stdout reader waits for more, so a turn waiting (for an approval,
   * for codex) keeps no stdout chunk alive.
   */
  releaseLines(): void {
    this.#deltaLines?.release();
    this.#deltaTemplates.release();
  }

  /** One delta notification of this turn, parsed or read from its line. */
  #delta(method: DeltaMethod, itemId: string, delta: string): void {
    this.#retries = 0;
    switch (method) {
      case "item/agentMessage/delta":
        this.#textDelta(itemId, delta);
        return;
      case "item/reasoning/summaryTextDelta":
      case "item/reasoning/textDelta":
        this.#streamedItem(itemId);
        this.#emit({ type: "thinking-delta", text: delta, messageId: itemId });
        return;
      case "item/commandExecution/outputDelta":
        this.#commandOutput.set(itemId, (this.#commandOutput.get(itemId) ?? "") + delta);
        return;
    }
  }

  /**
   * Handles one notification (`params` as codex sent it, `json` its exact line); returns true for
   * this turn's `turn/completed`.
   */
  accept(method: string, params: unknown, json: string): boolean {
    const p = params as { threadId?: unknown; turnId?: unknown };
    if (this.threadId && typeof p?.threadId === "string" && p.threadId !== this.threadId) return false;
    const turnId = typeof p?.turnId === "string" ? p.turnId : turnIdOf(params);
    if (turnId !== undefined) {
      if (this.turnId === undefined) {
        if (this.#held.length < MAX_HELD) this.#held.push({ method, params, json });
        else this.dropped++;
        return false;
      }
      if (turnId !== this.turnId) {
        this.dropped++;
        if (method === "thread/tokenUsage/updated") this.#sawTotal(params);
        return false;
      }
    }
    // Terminal means terminal: nothing after this turn's first `turn/completed` is its output.
    if (this.completed !== undefined) {
      if (turnId !== undefined) this.late++;
      return false;
    }
    // Codex runs this turn once it names it: `turn/started` first (else its first item, its end).
    if (turnId !== undefined && !this.started) this.#markStarted();
    // The line a long turn is made of, first: no further dispatch.
    if (method === "item/agentMessage/delta") {
      const delta = params as AgentMessageDeltaNotification;
      this.#textDelta(delta.itemId, delta.delta);
      this.#learn(method, params, json);
      return false;
    }
    const message = { method, params } as ServerNotification;
    switch (message.method) {
      case "turn/started":
        this.#emit({
          type: "notice",
          kind: "lifecycle",
          message: "turn started",
          data: { threadId: message.params.threadId, turnId: message.params.turn.id },
        });
        return false;
      case "turn/completed":
        this.completed = message.params.turn;
        this.completedJson = json;
        // Deltas after it are no longer read from their lines: they reach the check above.
        this.#deltaLines = undefined;
        this.#closeOpenCalls();
        this.#emit({
          type: "notice",
          kind: "lifecycle",
          message: "turn completed",
          data: { turnId: message.params.turn.id, status: message.params.turn.status },
        });
        return true;
      case "item/reasoning/summaryTextDelta":
      case "item/reasoning/textDelta":
      case "item/commandExecution/outputDelta":
        this.#delta(message.method, message.params.itemId, message.params.delta);
        this.#learn(message.method, params, json);
        return false;
      case "item/started":
        this.#retries = 0;
        if (message.params.item.type === "contextCompaction") this.#compactions.add(message.params.item.id);
        this.#started(message.params.item);
        return false;
      case "item/completed":
        if (message.params.item.type === "contextCompaction") this.#compacted(message.params.item.id);
        this.#completed(message.params.item);
        return false;
      case "thread/tokenUsage/updated": {
        this.#retries = 0;
        const { last, total } = message.params.tokenUsage;
        const before = this.previousTotal;
        this.#sawTotal(params);
        // The thread's running total did not move: no tokens were used (a compaction re-sends the
        // previous usage first, with no total known before it when the thread was resumed or forked).
        const repeated = before === undefined ? this.#compactions.size > 0 : sameTotal(before, total);
        const u = (this.#usage ??= { input: 0, output: 0, cached: 0, cacheWrite: 0, reasoning: 0 });
        if (!repeated) {
          u.input += last.inputTokens;
          u.output += last.outputTokens;
          u.cached += last.cachedInputTokens;
          u.cacheWrite += last.cacheWriteInputTokens;
          u.reasoning += last.reasoningOutputTokens;
        }
        // One usage update per model response: what a turn budget counts. A context compaction's
        // (the previous usage again, the summary request's, the reset history's estimate) are not
        // responses of the conversation, as Claude Code counts none for its compaction either.
        if (this.#compactions.size > 0) return false;
        this.responses += 1;
        this.#emit({ type: "notice", kind: "model.response", data: { usage: last } });
        return false;
      }
      case "turn/plan/updated":
        this.#emit({
          type: "notice",
          kind: "plan",
          ...(message.params.explanation ? { message: message.params.explanation } : {}),
          data: { plan: message.params.plan },
        });
        return false;
      case "turn/diff/updated":
        this.#emit({ type: "notice", kind: "diff", data: { turnId: message.params.turnId, diff: message.params.diff } });
        return false;
      case "error":
        this.#emit({
          type: "notice",
          kind: "error",
          message: message.params.error.message,
          data: { willRetry: message.params.willRetry, codexErrorInfo: message.params.error.codexErrorInfo },
        });
        if (!message.params.willRetry || this.gaveUp) return false;
        // codex's first counted tries (`Reconnecting... n/m`) are left to its own bound: after them it
        // fails the turn or falls back from a websocket to HTTP, where the turn may well succeed.
        if (leftToCodex(retryAnnouncement(message.params.error.message))) return false;
        this.#retries++;
        if (this.#retries <= this.#maxRetries) return false;
        this.gaveUp = {
          message: message.params.error.message,
          retries: this.#retries,
          codexErrorInfo: message.params.error.codexErrorInfo,
        };
        return true;
      case "warning":
        this.#emit({ type: "notice", kind: "warning", message: message.params.message });
        return false;
      case "configWarning":
      case "deprecationNotice":
        this.#emit({
          type: "notice",
          kind: "warning",
          message: message.params.summary,
          ...(message.params.details ? { data: { details: message.params.details } } : {}),
        });
        return false;
      case "thread/started":
        this.#emit({ type: "notice", kind: "lifecycle", message: "thread started", data: { threadId: message.params.thread.id } });
        return false;
      default:
        return false;
    }
  }

  /** Keeps the running total of a usage update of this thread (`params` of `thread/tokenUsage/updated`) in {@link previousTotal}. */
  #sawTotal(params: unknown): void {
    const total = (params as { tokenUsage?: { total?: TokenUsageBreakdown } } | undefined)?.tokenUsage?.total;
    if (typeof total === "object" && total !== null) this.previousTotal = total;
  }

  /**
   * After a delta of this turn was handled from its parsed value: learns its line's shape, so the
   * next lines of that shape are read without a parse. Only a line naming exactly this thread
   * and turn, whose ids the shape then keeps as they are.
   */
  #learn(method: DeltaMethod, params: unknown, json: string): void {
    const p = params as Record<string, unknown>;
    if (this.#deltaLines === undefined || p.threadId !== this.threadId || p.turnId !== this.turnId) return;
    this.#deltaTemplates.learn(json, method, p);
  }

  /**
   * A context compaction ended: codex replaced the thread's history with a summary (the
   * `contextCompaction` item; it compacts by itself when the context reaches its limit, as it
   * reports no cause or token counts, `trigger` is `auto`).
   */
  #compacted(id: string): void {
    this.#compactions.delete(id);
    this.#emit({
      type: "notice",
      kind: "context.compacted",
      message: "conversation history replaced by a summary",
      data: { trigger: "auto" },
    });
  }

  #started(item: ThreadItem): void {
    this.#items.set(item.id, item);
    const name = toolNameOf(item);
    if (!name) return;
    const input = toolInputOf(item);
    this.#open.set(item.id, item);
    this.transcript.push({ kind: "tool-call", toolCallId: item.id, toolName: name, input });
    this.#emit({ type: "tool-call", phase: "start", id: item.id, name });
    this.#emit({ type: "tool-call", phase: "end", id: item.id, name, input });
  }

  #completed(item: ThreadItem): void {
    const seen = this.#items.has(item.id);
    this.#items.set(item.id, item);
    switch (item.type) {
      case "userMessage": {
        // Its text parts, one a line (a prompt hook's context comes as a part ahead of the prompt's).
        const text = item.content.flatMap((part) => (part.type === "text" ? [part.text] : [])).join("\n");
        this.transcript.push({ kind: "user", text });
        return;
      }
      case "agentMessage":
        this.lastAgentText = item.text;
        this.transcript.push({ kind: "assistant", text: item.text });
        if (!this.#streamed.has(item.id) && item.text) this.#emit({ type: "text-delta", text: item.text, messageId: item.id });
        return;
      case "reasoning": {
        const text = [...item.summary, ...item.content].join("\n");
        if (text) this.transcript.push({ kind: "thinking", text });
        if (!this.#streamed.has(item.id) && text) this.#emit({ type: "thinking-delta", text, messageId: item.id });
        return;
      }
      default: {
        const name = toolNameOf(item);
        if (!name) return;
        if (!seen) this.#started(item);
        this.#result(item, name, resultOf(item, this.#commandOutput.get(item.id)));
      }
    }
  }

  /**
   * Whether a command or file change codex ran without asking was covered by an ask the host
   * answered "for this session" earlier (`acceptForSession`): its `tool-result` is then marked
   * `coveredByAsk`. None by default.
   */
  grantedForSession: ((item: ThreadItem) => boolean) | undefined;

  /** The ids of the calls codex asked the host about in this turn (never marked `coveredByAsk`: their own ask decided them). */
  readonly askedCalls = new Set<string>();

  /** Answers the tool call `item` with `result`: its `tool-result` event and transcript item. */
  #result(item: ThreadItem, name: string, result: { output: string; isError: boolean; exitCode?: number }): void {
    this.#open.delete(item.id);
    const { output, isError, exitCode } = result;
    const code = exitCode !== undefined ? { exitCode } : {};
    const covered = !this.askedCalls.has(item.id) && this.grantedForSession?.(item) === true ? { coveredByAsk: true as const } : {};
    this.transcript.push({ kind: "tool-result", toolCallId: item.id, toolName: name, text: output, isError, ...code });
    this.#emit({ type: "tool-result", id: item.id, name, output, isError, ...code, ...covered });
  }

  /**
   * At the turn's end, answers every tool call codex left open (a command it keeps running past
   * its answer to the model, `exec_command` with `yield_time_ms`): what the command wrote so far,
   * else {@link STILL_RUNNING}, with `isError` (the command did not finish; it ends with the turn).
   * Every tool call of a turn gets its `tool-result` before the turn's end.
   */
  #closeOpenCalls(): void {
    for (const item of [...this.#open.values()]) {
      const streamed = this.#commandOutput.get(item.id);
      this.#result(item, toolNameOf(item)!, { output: streamed || STILL_RUNNING, isError: true });
    }
  }
}
