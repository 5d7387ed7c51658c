import type { ApprovalDecision } from "@adaptor/driver";
import type { RememberRule } from "./approval-rule.js";

/** How a settle attempt ended: `"won"`, or why it lost. */
export type SettleOutcome = "won" | "resolved" | "expired";

/** Told about an answer that lost: why it lost, and what it tried to decide. */
export type LateAnswerListener = (outcome: "resolved" | "expired", attempted: ApprovalDecision) => void;

/**
 * The exactly-once cell behind one ApprovalRequest: the first of `settle` or `expire` wins, and
 * everyone sees the same outcome. `decision` resolves with what the CLI must be told.
 */
export class ApprovalResponder {
  #status: "pending" | "approved" | "denied" | "answered" | "expired" = "pending";
  #resolve!: (decision: ApprovalDecision) => void;
  readonly #onLate: LateAnswerListener | undefined;
  #remember: RememberRule | undefined;
  #interrupt = false;
  /** Settles once with the winning decision (an expiry yields a deny). */
  readonly decision: Promise<ApprovalDecision>;

  /** @param onLate called (synchronously, before `settle` returns) for every answer that lost. */
  constructor(onLate?: LateAnswerListener) {
    this.#onLate = onLate;
    this.decision = new Promise((resolve) => (this.#resolve = resolve));
  }

  get status(): "pending" | "approved" | "denied" | "answered" | "expired" {
    return this.#status;
  }

  /** The rule the winning answer asked to remember, if any. */
  get remember(): RememberRule | undefined {
    return this.#remember;
  }

  /** Whether the winning answer, a deny, asked to end the turn as an interrupt. */
  get interrupt(): boolean {
    return this.#interrupt;
  }

  /**
   * Tries to answer; loses to an earlier answer or expiry (and then tells the late-answer listener).
   * `remember`: a rule the winning answer asks the run to remember (see {@link remember}).
   * `interrupt`: the winning deny asks to end the turn as an interrupt (see {@link interrupt}).
   */
  settle(decision: ApprovalDecision, remember?: RememberRule, interrupt = false): SettleOutcome {
    if (this.#status !== "pending") {
      const outcome = this.#status === "expired" ? "expired" : "resolved";
      this.#onLate?.(outcome, decision);
      return outcome;
    }
    this.#status = decision.outcome === "approve" ? "approved" : decision.outcome === "deny" ? "denied" : "answered";
    this.#remember = remember;
    this.#interrupt = interrupt && decision.outcome === "deny";
    this.#resolve(decision);
    return "won";
  }

  /** Ends a pending request with a deny carrying `reason`; no-op once answered. Returns true if it expired it. */
  expire(reason: string): boolean {
    if (this.#status !== "pending") return false;
    this.#status = "expired";
    this.#resolve({ outcome: "deny", reason });
    return true;
  }
}
