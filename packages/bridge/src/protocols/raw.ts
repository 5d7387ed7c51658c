import type { AgentEvent, ApprovalRequest, PendingApproval } from "adaptor";
import { sseEvent, type Frame } from "./frame.js";
import type { ChannelVerdict } from "../run/run-channel.js";
import { failureCode, failureMessage } from "./public-error.js";
import { publicNotice } from "./public-notice.js";

/** An `ApprovalRequest` as it crosses the wire: its fields, without the methods. */
export interface WireApproval {
  readonly id: string;
  readonly runId: string;
  readonly kind: ApprovalRequest["kind"];
  readonly title: string;
  readonly toolName?: string;
  readonly toolCallId?: string;
  /** For a subagent's call, the delegation's tool call id (see `ApprovalRequest.parentToolCallId`). */
  readonly parentToolCallId?: string;
  readonly input?: unknown;
  readonly choices?: ApprovalRequest["choices"];
  readonly details?: ApprovalRequest["details"];
  /** Whether an approve with an edited `updatedInput` runs the edit (see `ApprovalRequest.inputEditable`). */
  readonly inputEditable: boolean;
  readonly createdAt: string;
  readonly deadline?: string;
  readonly attempt: number;
  /**
   * Rules the client could send back as `remember` with its answer ("always allow", "always
   * deny"; see `ApprovalRequest.suggestions`); `[]` for a `question` and a `plan_review`.
   */
  readonly suggestions: ApprovalRequest["suggestions"];
}

/** The wire form of an approval request. */
export function wireApproval(request: ApprovalRequest): WireApproval {
  return {
    id: request.id,
    runId: request.runId,
    kind: request.kind,
    title: request.title,
    ...(request.toolName !== undefined ? { toolName: request.toolName } : {}),
    ...(request.toolCallId !== undefined ? { toolCallId: request.toolCallId } : {}),
    ...(request.parentToolCallId !== undefined ? { parentToolCallId: request.parentToolCallId } : {}),
    ...(request.input !== undefined ? { input: request.input } : {}),
    ...(request.choices !== undefined ? { choices: request.choices } : {}),
    ...(request.details !== undefined ? { details: request.details } : {}),
    inputEditable: request.inputEditable,
    createdAt: request.createdAt.toISOString(),
    ...(request.deadline !== undefined ? { deadline: request.deadline.toISOString() } : {}),
    attempt: request.attempt,
    suggestions: request.suggestions,
  };
}

/**
 * A suspended turn's stored approval as it crosses the wire: the fields of `PendingApproval`
 * without the SDK's turn data, the checkpoint reference and the answer, dates as ISO 8601.
 */
export type WirePendingApproval = Omit<PendingApproval, "turn" | "checkpoint" | "decision" | "resolvedAt" | "createdAt" | "deadline"> & {
  readonly createdAt: string;
  readonly deadline?: string;
};

/** The wire form of a stored approval: its fields without the turn data and the checkpoint reference. */
export function wirePendingApproval(pending: PendingApproval): WirePendingApproval {
  return {
    id: pending.id,
    key: pending.key,
    kind: pending.kind,
    title: pending.title,
    ...(pending.toolName !== undefined ? { toolName: pending.toolName } : {}),
    ...(pending.toolCallId !== undefined ? { toolCallId: pending.toolCallId } : {}),
    ...(pending.input !== undefined ? { input: pending.input } : {}),
    ...(pending.choices !== undefined ? { choices: pending.choices } : {}),
    createdAt: pending.createdAt.toISOString(),
    ...(pending.deadline !== undefined ? { deadline: pending.deadline.toISOString() } : {}),
    onDeadline: pending.onDeadline,
    status: pending.status,
  };
}

/**
 * The `raw` protocol: each event as JSON, one SSE event each, `id` = `meta.sequence`. An
 * `approval-request` carries the request's fields (`request.id` is what the client answers);
 * `process` stdout/stderr events lose their `text` (CLI output stays on the server); a failed
 * `run-finished` carries a public message (first line, credentials redacted; `thread busy` for a
 * busy thread, see `failureMessage`) and the verdict's `code` (as the `ag-ui` protocol's
 * `RUN_ERROR` has it: see `failureCode`), with `reason` the same code: one whose run was cancelled
 * (the client went away, the bridge closed) says `reason: "cancelled"`, as the `ag-ui` protocol's
 * `RUN_FINISHED` outcome `cancelled` does; one whose turn suspended
 * (`suspended: true`) carries the stored approval as `pendingApproval` ({@link WirePendingApproval}),
 * which a run with `resume` answers. `id` is the SSE id (default `meta.sequence`; a bridge over a
 * fleet gives the fleet's sequence). An event JSON cannot encode goes out as a `notice` of kind
 * `bridge.unencodable` (`data: { eventType }`), a `run-finished` as its outcome alone: the stream
 * never ends without its verdict.
 */
export function encodeRaw(event: AgentEvent, secrets: () => readonly string[], verdict?: ChannelVerdict, id = event.meta.sequence): Frame {
  let data: unknown = event;
  if (event.type === "approval-request") data = { ...event, request: wireApproval(event.request) };
  else if (event.type === "notice") data = publicNotice(event, secrets());
  else if (event.type === "process" && (event.kind === "stdout" || event.kind === "stderr")) {
    const { text: _text, ...rest } = event;
    data = rest;
  } else if (event.type === "run-finished") {
    const failed = !event.ok && verdict !== undefined && !verdict.ok ? verdict : undefined;
    const code = failed ? failureCode(failed.error) : undefined;
    const pending = verdict?.ok ? verdict.result.pendingApproval : undefined;
    if (failed || event.message !== undefined || pending) {
      data = {
        ...event,
        ...(code !== undefined ? { reason: code, code } : {}),
        ...(event.message !== undefined ? { message: failureMessage(code, event.message, secrets()) } : {}),
        ...(pending ? { pendingApproval: wirePendingApproval(pending) } : {}),
      };
    }
  }
  try {
    return { id, text: sseEvent(data, id) };
  } catch {
    return { id, text: sseEvent(unencodable(event), id) };
  }
}

/**
 * What goes out in place of an event JSON cannot encode (a value it carries holds a `BigInt`, say):
 * a `run-finished` with its outcome alone; any other event, a `notice` of kind `bridge.unencodable`
 * (`data: { eventType }`) with the event's `meta`.
 */
function unencodable(event: AgentEvent): unknown {
  if (event.type === "run-finished") {
    return { type: event.type, ok: event.ok, ...(event.ok ? {} : { reason: "internal", code: "internal" }), meta: event.meta };
  }
  return {
    type: "notice",
    kind: "bridge.unencodable",
    message: `a ${event.type} event could not be encoded as JSON`,
    data: { eventType: event.type },
    meta: event.meta,
  };
}
