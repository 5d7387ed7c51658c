import type { NoticeEvent, ProcessEvent, TextDeltaEvent, ThinkingDeltaEvent, ToolCallEvent, ToolResultEvent, Usage } from "@adaptor/driver";
import type { ApprovalRequest } from "../approval/approval-request.js";

/** Fields every event carries, assigned by the SDK (docs/events.md). */
export interface EventMeta {
  /** UUID v7 of the run. */
  readonly runId: string;
  /** Thread key, for thread runs. */
  readonly threadKey?: string;
  /** Strictly increasing per run, from 1. A gap means events were dropped (see `dropped`). */
  readonly sequence: number;
  /** When the SDK emitted the event. */
  readonly time: Date;
  /**
   * The thread turn the run serves, on every event of a thread run (`run-started` to
   * `run-finished`); absent outside threads. A UUID v7 the SDK assigns when the turn starts: the
   * turns of a thread have different ids.
   */
  readonly turnId?: string;
}

/** First event of every run. */
export interface RunStartedEvent {
  readonly type: "run-started";
  /** Driver type, e.g. `"claude"`. */
  readonly driver: string;
  /** The run's `model` option, when set: what was asked, not necessarily what the CLI used (see `Result.model`). */
  readonly model?: string;
}

/** The CLI asks the host to decide; answer with `request.approve()`, `deny()` or `answer()`. Never dropped. */
export interface ApprovalRequestEvent {
  readonly type: "approval-request";
  /** The request to answer exactly once (`approve`, `deny` or `answer`). */
  readonly request: ApprovalRequest;
}

/** High-frequency events were dropped under backpressure; the sequence gap is `firstSequence..lastSequence`. */
export interface DroppedEvent {
  readonly type: "dropped";
  /** Number of events dropped. */
  readonly count: number;
  /** Dropped counts per event type. */
  readonly byType: Readonly<Record<string, number>>;
  /** First missing `meta.sequence`. */
  readonly firstSequence: number;
  /** Last missing `meta.sequence`. */
  readonly lastSequence: number;
}

/** Always the last event. `ok` mirrors the verdict; read details from `stream.result()`. */
export interface RunFinishedEvent {
  readonly type: "run-finished";
  /** True when `stream.result()` resolves with a Result. */
  readonly ok: boolean;
  /** Business failure reason (`RunError.reason`) or `"error"` for any other failure. */
  readonly reason?: string;
  /** The failure's message, when the run failed. */
  readonly message?: string;
  /** Token counts of the run, when the CLI reported them. */
  readonly usage?: Usage;
  /** True when the turn suspended waiting for an approval (`result.status === "suspended"`); absent otherwise. */
  readonly suspended?: true;
  /** True when the host interrupted the turn (`result.status === "interrupted"`); absent otherwise. */
  readonly interrupted?: true;
}

type WithMeta<E> = E & { readonly meta: EventMeta };

/** Every event a {@link Stream} yields: a discriminated union on `type`. */
export type AgentEvent =
  | WithMeta<RunStartedEvent>
  | WithMeta<TextDeltaEvent>
  | WithMeta<ThinkingDeltaEvent>
  | WithMeta<ToolCallEvent>
  | WithMeta<ToolResultEvent>
  | WithMeta<ApprovalRequestEvent>
  | WithMeta<NoticeEvent>
  | WithMeta<ProcessEvent>
  | WithMeta<DroppedEvent>
  | WithMeta<RunFinishedEvent>;

/** An event before the SDK stamped its `meta`. */
export type EventPayload =
  | RunStartedEvent
  | TextDeltaEvent
  | ThinkingDeltaEvent
  | ToolCallEvent
  | ToolResultEvent
  | ApprovalRequestEvent
  | NoticeEvent
  | ProcessEvent
  | DroppedEvent
  | RunFinishedEvent;
