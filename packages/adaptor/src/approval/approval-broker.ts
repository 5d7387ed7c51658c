import type { ApprovalAsk, ApprovalDecision, DriverFailure } from "@adaptor/driver";
import { v7 as uuidv7 } from "uuid";
import type { EventQueue } from "../events/event-queue.js";
import { ApprovalRequest } from "./approval-request.js";
import { ApprovalResponder } from "./approval-responder.js";
import type { ApprovalSettings } from "./approval-settings.js";

/**
 * Host-side approval handler: decide by calling `request.approve()`, `deny()` or `answer()`.
 * Throwing aborts the run with the thrown value as cause; returning without deciding is an agent
 * failure. Either way the CLI is answered with a deny.
 */
export type ApprovalHandler = (request: ApprovalRequest, context: { readonly signal: AbortSignal }) => void | Promise<void>;

/** How the broker reaches the run it serves. */
export interface ApprovalBrokerInit {
  readonly runId: string;
  readonly queue: EventQueue;
  readonly handler: ApprovalHandler | undefined;
  readonly settings: ApprovalSettings;
  readonly signal: AbortSignal;
  /** The handler threw: abort the run with this cause. */
  readonly onHandlerFailure: (error: unknown) => void;
  /** A fallback decided the run must end as a business failure. */
  readonly onFailure: (failure: DriverFailure) => void;
  /** A human is being asked (pauses the active-execution budget) / no longer. */
  readonly onWaiting: (waiting: boolean) => void;
}

/**
 * Turns a driver's {@link ApprovalAsk} into {@link ApprovalRequest}s under the run's approval
 * settings: auto modes decide at once; `ask` emits the `approval-request` event, runs the
 * `onApproval` handler, applies the deadline and the timeout/reject fallbacks (abort, continue,
 * retry with a new id). Every ask resolves: the driver always gets a decision to forward.
 */
export class ApprovalBroker {
  readonly #init: ApprovalBrokerInit;
  readonly #pending = new Set<ApprovalResponder>();
  #waiting = 0;
  #ended = false;

  constructor(init: ApprovalBrokerInit) {
    this.#init = init;
  }

  /** Decides one ask; always resolves (a deny when the run ends first). */
  async ask(ask: ApprovalAsk): Promise<ApprovalDecision> {
    const { settings } = this.#init;
    const mode = settings.modes[ask.kind];
    if (mode === "auto_approve" && ask.kind !== "question") return this.#auto(ask, { outcome: "approve" });
    if (mode === "auto_deny") {
      const decision = this.#auto(ask, { outcome: "deny", reason: "denied by policy" });
      if (settings.onReject === "abort") this.#fail("approval_denied", `${ask.title}: denied by policy`, ask, 1);
      return decision;
    }
    for (let attempt = 1; ; attempt++) {
      const { decision, timedOut } = await this.#askOnce(ask, attempt);
      if (decision.outcome !== "deny" || this.#ended) return decision;
      const fallback = timedOut ? settings.onTimeout : settings.onReject;
      if (fallback === "continue") return decision;
      if (fallback === "retry" && attempt <= settings.maxRetries) continue;
      if (fallback === "retry") this.#notice("lifecycle", { warning: "approval_retries_exhausted", attempt });
      this.#fail(
        timedOut ? "approval_timeout" : "approval_denied",
        timedOut ? `${ask.title}: approval timed out` : `${ask.title}: ${decision.reason}`,
        ask,
        attempt,
      );
      return decision;
    }
  }

  /** Expires every pending request (the driver receives a deny); later asks expire at once. */
  end(reason: string): void {
    this.#ended = true;
    for (const responder of this.#pending) responder.expire(reason);
    this.#pending.clear();
  }

  async #askOnce(ask: ApprovalAsk, attempt: number): Promise<{ decision: ApprovalDecision; timedOut: boolean }> {
    const { settings, handler, signal } = this.#init;
    const responder = new ApprovalResponder();
    const createdAt = new Date();
    const deadline = settings.timeoutMs === undefined ? undefined : new Date(createdAt.getTime() + settings.timeoutMs);
    const request = new ApprovalRequest(
      {
        id: uuidv7(),
        runId: this.#init.runId,
        kind: ask.kind,
        title: ask.title,
        toolName: ask.toolName,
        toolCallId: ask.toolCallId,
        input: ask.input,
        choices: ask.choices,
        details: ask.details,
        createdAt,
        deadline,
        attempt,
      },
      responder,
    );
    let timer: NodeJS.Timeout | undefined;
    let timedOut = false;
    if (this.#ended) responder.expire("run ended");
    else {
      this.#pending.add(responder);
      if (settings.timeoutMs !== undefined) {
        timer = setTimeout(() => (timedOut = responder.expire("approval timed out")), settings.timeoutMs);
        timer.unref();
      }
    }
    this.#notice("approval.requested", { id: request.id, kind: request.kind, toolName: request.toolName, attempt });
    this.#init.queue.push({ type: "approval-request", request });
    this.#setWaiting(+1);
    if (handler && !this.#ended) this.#runHandler(handler, request, responder, signal);
    try {
      const decision = await responder.decision;
      this.#notice("approval.resolved", {
        id: request.id,
        kind: request.kind,
        outcome: timedOut ? "timeout" : responder.status,
        ...(decision.outcome === "answer" ? { choice: decision.choice } : {}),
        attempt,
      });
      return { decision, timedOut };
    } finally {
      clearTimeout(timer);
      this.#pending.delete(responder);
      this.#setWaiting(-1);
    }
  }

  #auto(ask: ApprovalAsk, decision: ApprovalDecision): ApprovalDecision {
    const id = uuidv7();
    this.#notice("approval.requested", { id, kind: ask.kind, toolName: ask.toolName, attempt: 1, auto: true });
    this.#notice("approval.resolved", {
      id,
      kind: ask.kind,
      outcome: decision.outcome === "approve" ? "approved" : "denied",
      attempt: 1,
      auto: true,
    });
    return decision;
  }

  #fail(reason: "approval_denied" | "approval_timeout", message: string, ask: ApprovalAsk, attempt: number): void {
    this.#init.onFailure({
      reason,
      message,
      details: { kind: ask.kind, toolName: ask.toolName, toolCallId: ask.toolCallId, attempt },
    });
  }

  #runHandler(handler: ApprovalHandler, request: ApprovalRequest, responder: ApprovalResponder, signal: AbortSignal): void {
    Promise.resolve()
      .then(() => handler(request, { signal }))
      .then(
        () => {
          if (responder.expire("approval handler returned without a decision") && !signal.aborted) {
            this.#init.onFailure({
              reason: "agent_error",
              message: `approval handler returned without deciding ${request.kind} ${JSON.stringify(request.title)}`,
              details: { approvalId: request.id },
            });
          }
        },
        (error: unknown) => {
          responder.expire("approval handler failed");
          this.#init.onHandlerFailure(error);
        },
      );
  }

  #setWaiting(delta: number): void {
    const before = this.#waiting;
    this.#waiting += delta;
    if (before === 0 && this.#waiting > 0) this.#init.onWaiting(true);
    if (before > 0 && this.#waiting === 0) this.#init.onWaiting(false);
  }

  #notice(kind: string, data: Record<string, unknown>): void {
    this.#init.queue.push({ type: "notice", kind, data });
  }
}

/** Handler that approves every permission and plan review and denies questions (nobody to answer them). */
export function approveAll(): ApprovalHandler {
  return (request) => {
    if (request.kind === "question") request.deny("no one is available to answer questions");
    else request.approve();
  };
}

/** Handler that denies everything with `reason`. */
export function denyAll(reason = "denied by host"): ApprovalHandler {
  return (request) => request.deny(reason);
}
