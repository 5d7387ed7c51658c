import type { ApprovalAsk, ApprovalDecision } from "@adaptor/driver";
import { v7 as uuidv7 } from "uuid";
import type { EventQueue } from "../events/event-queue.js";
import { ApprovalRequest } from "./approval-request.js";
import { ApprovalResponder } from "./approval-responder.js";

/**
 * Host-side approval handler: decide by calling `request.approve()`, `deny()` or `answer()`.
 * Throwing aborts the run with the thrown value as cause (the CLI is still answered with a deny).
 */
export type ApprovalHandler = (request: ApprovalRequest, context: { readonly signal: AbortSignal }) => void | Promise<void>;

/**
 * Turns a driver's {@link ApprovalAsk} into an {@link ApprovalRequest}: emits the
 * `approval-request` event and audit notices, runs the `onApproval` handler, and guarantees the
 * driver an answer — on the run's end every pending request expires as a deny.
 */
export class ApprovalBroker {
  readonly #runId: string;
  readonly #queue: EventQueue;
  readonly #handler: ApprovalHandler | undefined;
  readonly #signal: AbortSignal;
  readonly #onHandlerFailure: (error: unknown) => void;
  readonly #pending = new Set<ApprovalResponder>();
  #ended = false;

  constructor(init: {
    runId: string;
    queue: EventQueue;
    handler: ApprovalHandler | undefined;
    signal: AbortSignal;
    onHandlerFailure: (error: unknown) => void;
  }) {
    this.#runId = init.runId;
    this.#queue = init.queue;
    this.#handler = init.handler;
    this.#signal = init.signal;
    this.#onHandlerFailure = init.onHandlerFailure;
  }

  /** Asks the host; always resolves (a deny when the run ends first). */
  async ask(ask: ApprovalAsk): Promise<ApprovalDecision> {
    const responder = new ApprovalResponder();
    const request = new ApprovalRequest(
      {
        id: uuidv7(),
        runId: this.#runId,
        kind: ask.kind,
        title: ask.title,
        toolName: ask.toolName,
        toolCallId: ask.toolCallId,
        input: ask.input,
        choices: ask.choices,
        details: ask.details,
        createdAt: new Date(),
        attempt: 1,
      },
      responder,
    );
    if (this.#ended) responder.expire("run ended");
    else this.#pending.add(responder);
    this.#queue.push({
      type: "notice",
      kind: "approval.requested",
      data: { id: request.id, kind: request.kind, toolName: request.toolName, attempt: request.attempt },
    });
    this.#queue.push({ type: "approval-request", request });
    if (this.#handler && !this.#ended) this.#runHandler(this.#handler, request, responder);
    const decision = await responder.decision;
    this.#pending.delete(responder);
    this.#queue.push({
      type: "notice",
      kind: "approval.resolved",
      data: {
        id: request.id,
        kind: request.kind,
        outcome: responder.status,
        ...(decision.outcome === "answer" ? { choice: decision.choice } : {}),
        attempt: request.attempt,
      },
    });
    return decision;
  }

  /** Expires every pending request (the driver receives a deny); later asks expire at once. */
  end(reason: string): void {
    this.#ended = true;
    for (const responder of this.#pending) responder.expire(reason);
    this.#pending.clear();
  }

  #runHandler(handler: ApprovalHandler, request: ApprovalRequest, responder: ApprovalResponder): void {
    Promise.resolve()
      .then(() => handler(request, { signal: this.#signal }))
      .then(
        () => {
          if (responder.status === "pending" && !this.#signal.aborted) {
            responder.expire("approval handler returned without a decision");
          }
        },
        (error: unknown) => {
          responder.expire("approval handler failed");
          this.#onHandlerFailure(error);
        },
      );
  }
}
