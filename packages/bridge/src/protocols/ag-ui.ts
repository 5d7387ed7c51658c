import { randomUUID } from "node:crypto";
import { EventType, type BaseEvent, type TokenUsage } from "@ag-ui/core";
import { EventEncoder } from "@ag-ui/encoder";
import type { AgentEvent, Result, Usage } from "adaptor";
import type { Frame } from "./frame.js";
import { approvalInterrupt } from "./ag-ui-interrupt.js";
import { failureCode, failureMessage, isAbort } from "./public-error.js";
import { publicNotice } from "./public-notice.js";
import { wireApproval } from "./raw.js";

/** `CUSTOM` event names the `ag-ui` protocol emits. */
export const AG_UI_CUSTOM_EVENTS = Object.freeze({
  /** `value`: the approval request's fields (as in the `raw` protocol); answer it at `approvals/<value.id>`. */
  approvalRequest: "adaptor.approval-request",
  /** `value`: `{ kind, message?, data? }` of a `notice` event. */
  notice: "adaptor.notice",
  /** `value`: `{ count, byType, firstSequence, lastSequence }` of a `dropped` event (text deltas lost under backpressure). */
  dropped: "adaptor.dropped",
  /** `value`: `{ firstId, lastId }`: frames a reconnecting client missed that the replay buffer no longer holds. */
  replayGap: "adaptor.replay-gap",
  /**
   * `value`: `{ attempt, worker }`: a fleet worker began an attempt of the run (bridge over a
   * fleet). An attempt after the first starts the turn over: what earlier attempts streamed is
   * superseded.
   */
  attemptStarted: "adaptor.attempt-started",
});

/** Where the run's approvals live in the AG-UI state: `state.adaptor.approvals[<id>]`. */
export interface AgUiApprovalState {
  readonly id: string;
  readonly kind: string;
  readonly title: string;
  readonly toolName?: string;
  readonly toolCallId?: string;
  /** Whether an approve with an edited `updatedInput` runs the edit (see `ApprovalRequest.inputEditable`). */
  readonly inputEditable: boolean;
  /** `pending`, then `approved`, `denied`, `answered`, `expired` or `timeout`. */
  readonly status: string;
}

type Verdict = { readonly ok: true; readonly result: Result } | { readonly ok: false; readonly error: unknown };

function tokenUsage(usage: Usage | undefined, model: string | undefined): TokenUsage[] | undefined {
  if (!usage) return undefined;
  return [
    {
      ...(model !== undefined ? { model } : {}),
      inputTokens: usage.inputTokens,
      outputTokens: usage.outputTokens,
      totalTokens: usage.inputTokens + usage.outputTokens,
      ...(usage.cacheReadTokens !== undefined ? { cachedInputTokens: usage.cacheReadTokens } : {}),
      ...(usage.cacheWriteTokens !== undefined ? { cacheWriteInputTokens: usage.cacheWriteTokens } : {}),
    },
  ];
}

/**
 * Translates one run's events into AG-UI events (stateful: it opens and closes text messages,
 * reasoning spans and tool calls so the client's event verifier accepts the sequence) and encodes
 * them as SSE frames numbered from 1.
 */
export class AgUiMapper {
  readonly #threadId: string;
  readonly #runId: string;
  readonly #clientState: Record<string, unknown>;
  readonly #secrets: () => readonly string[];
  readonly #encoder = new EventEncoder();
  #frameId = 0;
  #text: string | undefined;
  #reasoning: string | undefined;
  #lastTextId: string | undefined;
  readonly #usedMessageIds = new Set<string>();
  readonly #openToolCalls = new Map<string, { streamedArgs: boolean }>();
  readonly #approvals = new Set<string>();
  /** Whether the driver runs an edited input, per approval a suspending turn stored (from its `approval.requested` notice). */
  readonly #suspendedEditable = new Map<string, boolean>();
  readonly #newId: () => string;
  readonly #nextFrameId: (() => number) | undefined;
  readonly #stateDelta: boolean;
  #started = false;

  /**
   * `newId` makes message ids the provider did not give (default random UUIDs); `nextFrameId`
   * numbers frames (default 1, 2, 3, ...); `stateDelta` starts the run with a `STATE_DELTA`
   * adding `adaptor` to the client's state instead of a `STATE_SNAPSHOT` of the input's state
   * (a front-end that does not hold the input).
   */
  constructor(init: {
    threadId: string;
    runId: string;
    state: unknown;
    secrets: () => readonly string[];
    newId?: () => string;
    nextFrameId?: () => number;
    stateDelta?: boolean;
  }) {
    this.#newId = init.newId ?? randomUUID;
    this.#nextFrameId = init.nextFrameId;
    this.#stateDelta = init.stateDelta ?? false;
    this.#threadId = init.threadId;
    this.#runId = init.runId;
    this.#clientState =
      typeof init.state === "object" && init.state !== null && !Array.isArray(init.state)
        ? { ...(init.state as Record<string, unknown>) }
        : {};
    this.#secrets = init.secrets;
  }

  /**
   * The frames for one event; `run-finished` needs the verdict (`stream.result()`). An AG-UI event
   * JSON cannot encode (a value it carries holds a `BigInt`, say) goes out as a `CUSTOM`
   * `adaptor.notice` of kind `bridge.unencodable` (`data: { eventType }`, the SDK event's type)
   * instead; a `run-finished` that cannot be mapped, as a `RUN_ERROR` of code `internal`: the
   * stream never ends without its verdict.
   */
  frames(event: AgentEvent, verdict?: Verdict): Frame[] {
    let mapped: BaseEvent[];
    try {
      mapped = this.#map(event, verdict);
    } catch {
      mapped = [
        event.type === "run-finished"
          ? ({ type: EventType.RUN_ERROR, message: "the run's verdict could not be encoded", code: "internal" } as BaseEvent)
          : this.#unencodable(event),
      ];
    }
    return mapped.map((agUi) => {
      try {
        return this.frame(agUi);
      } catch {
        return this.frame(this.#unencodable(event));
      }
    });
  }

  /** The `CUSTOM` notice that stands in for an event JSON cannot encode. */
  #unencodable(event: AgentEvent): BaseEvent {
    return {
      type: EventType.CUSTOM,
      name: AG_UI_CUSTOM_EVENTS.notice,
      value: { kind: "bridge.unencodable", message: `a ${event.type} event could not be encoded as JSON`, data: { eventType: event.type } },
      timestamp: event.meta.time.getTime(),
    } as BaseEvent;
  }

  /** Encodes one AG-UI event as the next frame. */
  frame(event: BaseEvent): Frame {
    const id = this.#nextFrameId ? this.#nextFrameId() : ++this.#frameId;
    return { id, text: `id: ${id}\n${this.#encoder.encodeSSE(event)}` };
  }

  /** The frames that open the run (`RUN_STARTED` and the initial state), once; none after. */
  start(time: Date): Frame[] {
    const out: BaseEvent[] = [];
    this.#start((agUi) => out.push({ ...agUi, timestamp: time.getTime() } as BaseEvent));
    return out.map((agUi) => this.frame(agUi));
  }

  /**
   * The frames of a fleet attempt's start: what an earlier attempt left open (a text message,
   * reasoning, tool calls) is closed, then a `CUSTOM` `adaptor.attempt-started` event.
   */
  attemptStarted(attempt: number, worker: string, time: Date): Frame[] {
    const out: BaseEvent[] = [];
    const push = (agUi: Record<string, unknown> & { type: EventType }): void =>
      void out.push({ ...agUi, timestamp: time.getTime() } as BaseEvent);
    this.#closeAll(push);
    push({ type: EventType.CUSTOM, name: AG_UI_CUSTOM_EVENTS.attemptStarted, value: { attempt, worker } });
    return out.map((agUi) => this.frame(agUi));
  }

  #start(push: (event: Record<string, unknown> & { type: EventType }) => void): void {
    if (this.#started) return;
    this.#started = true;
    push({ type: EventType.RUN_STARTED, threadId: this.#threadId, runId: this.#runId });
    if (this.#stateDelta) push({ type: EventType.STATE_DELTA, delta: [{ op: "add", path: "/adaptor", value: { approvals: {} } }] });
    else push({ type: EventType.STATE_SNAPSHOT, snapshot: { ...this.#clientState, adaptor: { approvals: {} } } });
  }

  #closeAll(push: (event: Record<string, unknown> & { type: EventType }) => void): void {
    this.#closeText(push);
    this.#closeReasoning(push);
    for (const id of [...this.#openToolCalls.keys()]) {
      push({ type: EventType.TOOL_CALL_END, toolCallId: id });
      this.#openToolCalls.delete(id);
      this.#endedToolCalls.add(id);
    }
  }

  #map(event: AgentEvent, verdict: Verdict | undefined): BaseEvent[] {
    const timestamp = event.meta.time.getTime();
    const out: BaseEvent[] = [];
    const push = (agUi: Record<string, unknown> & { type: EventType }): void => {
      out.push({ ...agUi, timestamp } as BaseEvent);
    };
    switch (event.type) {
      case "run-started":
        this.#start(push);
        break;
      case "text-delta": {
        this.#closeReasoning(push);
        const wanted = event.messageId ?? this.#text ?? this.#newId();
        if (this.#text !== undefined && this.#text !== wanted && event.messageId !== undefined) this.#closeText(push);
        if (this.#text === undefined) {
          this.#text = this.#freshMessageId(wanted);
          this.#lastTextId = this.#text;
          push({ type: EventType.TEXT_MESSAGE_START, messageId: this.#text, role: "assistant" });
        }
        if (event.text !== "") push({ type: EventType.TEXT_MESSAGE_CONTENT, messageId: this.#text, delta: event.text });
        break;
      }
      case "thinking-delta":
        this.#closeText(push);
        if (this.#reasoning === undefined) {
          this.#reasoning = this.#freshMessageId(event.messageId !== undefined ? `${event.messageId}-reasoning` : this.#newId());
          push({ type: EventType.REASONING_START, messageId: this.#reasoning });
          push({ type: EventType.REASONING_MESSAGE_START, messageId: this.#reasoning, role: "reasoning" });
        }
        if (event.text !== "") push({ type: EventType.REASONING_MESSAGE_CONTENT, messageId: this.#reasoning, delta: event.text });
        break;
      case "tool-call": {
        this.#closeText(push);
        this.#closeReasoning(push);
        let open = this.#openToolCalls.get(event.id);
        if (!open) {
          if (event.phase !== "start" && this.#seenToolCall(event.id)) break;
          open = { streamedArgs: false };
          this.#openToolCalls.set(event.id, open);
          push({
            type: EventType.TOOL_CALL_START,
            toolCallId: event.id,
            toolCallName: event.name,
            ...(this.#lastTextId !== undefined ? { parentMessageId: this.#lastTextId } : {}),
          });
        }
        if (event.phase === "args" && event.argsDelta) {
          open.streamedArgs = true;
          push({ type: EventType.TOOL_CALL_ARGS, toolCallId: event.id, delta: event.argsDelta });
        } else if (event.phase === "end") {
          if (!open.streamedArgs) {
            const args = jsonText(event.input ?? {});
            if (args !== undefined) push({ type: EventType.TOOL_CALL_ARGS, toolCallId: event.id, delta: args });
            else out.push(this.#unencodable(event));
          }
          push({ type: EventType.TOOL_CALL_END, toolCallId: event.id });
          this.#openToolCalls.delete(event.id);
          this.#endedToolCalls.add(event.id);
        }
        break;
      }
      case "tool-result":
        this.#closeText(push);
        this.#closeReasoning(push);
        if (this.#openToolCalls.has(event.id)) {
          push({ type: EventType.TOOL_CALL_END, toolCallId: event.id });
          this.#openToolCalls.delete(event.id);
          this.#endedToolCalls.add(event.id);
        }
        push({ type: EventType.TOOL_CALL_RESULT, messageId: this.#newId(), toolCallId: event.id, content: event.output, role: "tool" });
        break;
      case "approval-request": {
        const request = event.request;
        const state: AgUiApprovalState = {
          id: request.id,
          kind: request.kind,
          title: request.title,
          ...(request.toolName !== undefined ? { toolName: request.toolName } : {}),
          ...(request.toolCallId !== undefined ? { toolCallId: request.toolCallId } : {}),
          inputEditable: request.inputEditable,
          status: "pending",
        };
        this.#approvals.add(request.id);
        push({ type: EventType.CUSTOM, name: AG_UI_CUSTOM_EVENTS.approvalRequest, value: wireApproval(request) });
        push({ type: EventType.STATE_DELTA, delta: [{ op: "add", path: `/adaptor/approvals/${pointer(request.id)}`, value: state }] });
        break;
      }
      case "notice": {
        const shown = publicNotice(event, this.#secrets());
        push({
          type: EventType.CUSTOM,
          name: AG_UI_CUSTOM_EVENTS.notice,
          value: {
            kind: shown.kind,
            ...(shown.message !== undefined ? { message: shown.message } : {}),
            ...(shown.data !== undefined ? { data: shown.data } : {}),
          },
        });
        const id = event.data?.["id"];
        const outcome = event.data?.["outcome"];
        if (event.kind === "approval.requested" && event.data?.["suspend"] === true && typeof id === "string")
          this.#suspendedEditable.set(id, event.data["inputEditable"] === true);
        if (event.kind === "approval.resolved" && typeof id === "string" && typeof outcome === "string" && this.#approvals.has(id)) {
          push({
            type: EventType.STATE_DELTA,
            delta: [{ op: "replace", path: `/adaptor/approvals/${pointer(id)}/status`, value: outcome }],
          });
        }
        break;
      }
      case "dropped":
        push({
          type: EventType.CUSTOM,
          name: AG_UI_CUSTOM_EVENTS.dropped,
          value: { count: event.count, byType: event.byType, firstSequence: event.firstSequence, lastSequence: event.lastSequence },
        });
        break;
      case "process":
        break;
      case "run-finished": {
        this.#start(push);
        this.#closeAll(push);
        const result = verdict?.ok ? verdict.result : undefined;
        const failure: { error: unknown } | undefined = verdict && !verdict.ok ? { error: verdict.error } : undefined;
        const usage = tokenUsage(event.usage, result?.model);
        const base = { threadId: this.#threadId, runId: this.#runId, ...(usage ? { usage } : {}) };
        if (result?.pendingApproval) {
          // A suspended turn: the run is paused on its stored approval; a resume run answers it.
          push({
            type: EventType.RUN_FINISHED,
            ...base,
            outcome: {
              type: "interrupt",
              interrupts: [approvalInterrupt(result.pendingApproval, this.#suspendedEditable.get(result.pendingApproval.id) === true)],
            },
            result: { text: result.text },
          });
        } else if (result || (!failure && event.ok)) {
          push({
            type: EventType.RUN_FINISHED,
            ...base,
            outcome: { type: "success" },
            ...(result ? { result: { text: result.text } } : {}),
          });
        } else if (failure && isAbort(failure.error)) {
          push({ type: EventType.RUN_FINISHED, ...base, outcome: { type: "cancelled" } });
        } else {
          const code = failure ? failureCode(failure.error) : (event.reason ?? "error");
          const message = failureMessage(code, event.message ?? "the run failed", this.#secrets()) || "the run failed";
          push({
            type: EventType.RUN_ERROR,
            message,
            code,
            ...(usage ? { usage } : {}),
          });
        }
        break;
      }
    }
    return out;
  }

  readonly #endedToolCalls = new Set<string>();

  #seenToolCall(id: string): boolean {
    return this.#endedToolCalls.has(id);
  }

  #freshMessageId(wanted: string): string {
    let id = wanted;
    for (let n = 2; this.#usedMessageIds.has(id); n++) id = `${wanted}-${n}`;
    this.#usedMessageIds.add(id);
    return id;
  }

  #closeText(push: (event: Record<string, unknown> & { type: EventType }) => void): void {
    if (this.#text === undefined) return;
    push({ type: EventType.TEXT_MESSAGE_END, messageId: this.#text });
    this.#text = undefined;
  }

  #closeReasoning(push: (event: Record<string, unknown> & { type: EventType }) => void): void {
    if (this.#reasoning === undefined) return;
    push({ type: EventType.REASONING_MESSAGE_END, messageId: this.#reasoning });
    push({ type: EventType.REASONING_END, messageId: this.#reasoning });
    this.#reasoning = undefined;
  }
}

/** Escapes one JSON Pointer segment (RFC 6901). */
function pointer(segment: string): string {
  return segment.replace(/~/g, "~0").replace(/\//g, "~1");
}

/** `value` as JSON text; undefined when JSON cannot encode it (a `BigInt`, a cycle). */
function jsonText(value: unknown): string | undefined {
  try {
    return JSON.stringify(value);
  } catch {
    return undefined;
  }
}
