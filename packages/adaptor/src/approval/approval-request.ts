import { AdaptorError, InvalidOptionError } from "@adaptor/errors";
import type { ApprovalDecision, ApprovalKind } from "@adaptor/driver";
import {
  ErrApprovalEditUnsupported,
  ErrApprovalExpired,
  ErrApprovalKindMismatch,
  ErrApprovalResolved,
  ErrApprovalUnavailable,
} from "../errors/sentinels.js";
import type { ApprovalResponder } from "./approval-responder.js";

/** A choice offered by a `question`. */
export interface ApprovalChoice {
  /** The value to pass to `answer()`. */
  readonly key: string;
  /** Short text for people. */
  readonly label: string;
  /** Longer explanation, when the CLI gives one. */
  readonly description?: string;
}

/** Fields of an {@link ApprovalRequest}. */
export interface ApprovalRequestInit {
  /** See {@link ApprovalRequest.id}. */
  readonly id: string;
  /** See {@link ApprovalRequest.runId}. */
  readonly runId: string;
  /** See {@link ApprovalRequest.kind}. */
  readonly kind: ApprovalKind;
  /** See {@link ApprovalRequest.title}. */
  readonly title: string;
  /** See {@link ApprovalRequest.toolName}. */
  readonly toolName?: string | undefined;
  /** See {@link ApprovalRequest.toolCallId}. */
  readonly toolCallId?: string | undefined;
  /** See {@link ApprovalRequest.parentToolCallId}. */
  readonly parentToolCallId?: string | undefined;
  /** See {@link ApprovalRequest.input}. */
  readonly input?: unknown;
  /** See {@link ApprovalRequest.choices}. */
  readonly choices?: readonly ApprovalChoice[] | undefined;
  /** See {@link ApprovalRequest.details}. */
  readonly details?: Readonly<Record<string, unknown>> | undefined;
  /** See {@link ApprovalRequest.inputEditable}; default false. */
  readonly inputEditable?: boolean | undefined;
  /** See {@link ApprovalRequest.createdAt}. */
  readonly createdAt: Date;
  /** See {@link ApprovalRequest.deadline}. */
  readonly deadline?: Date | undefined;
  /** See {@link ApprovalRequest.attempt}. */
  readonly attempt: number;
}

/**
 * A decision the CLI waits for (docs/errors.md "Approval responder errors"). Answer it exactly once with
 * {@link approve}, {@link deny} or {@link answer}, from an `onApproval` handler or from the
 * `approval-request` event. The methods are synchronous and throw:
 * - `ErrApprovalResolved` when another answer already won;
 * - `ErrApprovalExpired` (also matches `ErrApprovalResolved`) after the deadline or the run's end;
 * - `ErrApprovalKindMismatch` when the method does not fit the kind;
 * - `ErrApprovalUnavailable` when the request has no run-owned responder;
 * - `InvalidOptionError` (field `updatedInput`) for an edited input that is not a plain object
 *   (the request stays pending);
 * - `ErrApprovalEditUnsupported` for an edited input the driver cannot run (see
 *   {@link inputEditable}; the request was denied).
 */
export class ApprovalRequest {
  /** UUID v7, new for every attempt. */
  readonly id: string;
  /** UUID v7 of the run that asks. */
  readonly runId: string;
  /** What is asked: `permission`, `plan_review` or `question`. */
  readonly kind: ApprovalKind;
  /** One line for people, e.g. `"Bash: npm test"`. */
  readonly title: string;
  /** The tool that wants to run, when the ask is about a tool call. */
  readonly toolName: string | undefined;
  /** The id of the `tool-call` event this ask belongs to. */
  readonly toolCallId: string | undefined;
  /**
   * The id of the tool call that started the subagent making this call (the delegation's
   * `tool-call` `id`), when the agent says so (Claude Code); undefined for the main conversation's
   * calls and where the agent does not say.
   */
  readonly parentToolCallId: string | undefined;
  /** The input the CLI proposes for the tool. */
  readonly input: unknown;
  /** The options of a `question`; undefined for other kinds. */
  readonly choices: readonly ApprovalChoice[] | undefined;
  /** Protocol detail (Claude's `permission_suggestions`, `blocked_path`, a diff). */
  readonly details: Readonly<Record<string, unknown>> | undefined;
  /**
   * True when `approve({ updatedInput })` runs the edited input (Claude). False when the agent's
   * protocol cannot carry an edit (Codex app-server, ACP): such an approve denies the call and
   * throws `ErrApprovalEditUnsupported`, so neither the edit nor the original input runs.
   */
  readonly inputEditable: boolean;
  /** When the SDK made the request. */
  readonly createdAt: Date;
  /** When the request expires (`policy.approvals.timeoutMs`); undefined without a deadline. */
  readonly deadline: Date | undefined;
  /** 1 for the first ask, then 2, 3, ... on retries. */
  readonly attempt: number;
  readonly #responder: ApprovalResponder | undefined;

  /** @internal Requests are made by the SDK; one built by hand has no responder. */
  constructor(init: ApprovalRequestInit, responder?: ApprovalResponder) {
    this.id = init.id;
    this.runId = init.runId;
    this.kind = init.kind;
    this.title = init.title;
    this.toolName = init.toolName;
    this.toolCallId = init.toolCallId;
    this.parentToolCallId = init.parentToolCallId;
    this.input = init.input;
    this.choices = init.choices;
    this.details = init.details;
    this.inputEditable = init.inputEditable === true;
    this.createdAt = init.createdAt;
    this.deadline = init.deadline;
    this.attempt = init.attempt;
    this.#responder = responder;
  }

  /** `"pending"` until answered; then the outcome, or `"expired"`. */
  get status(): "pending" | "approved" | "denied" | "answered" | "expired" {
    return this.#responder?.status ?? "pending";
  }

  /**
   * Allows the action, optionally with an edited input (a plain object, the tool's whole input)
   * the CLI runs instead. `updatedInput: undefined` is no edit.
   * @throws see the class comment; `ErrApprovalKindMismatch` for a `question`; `InvalidOptionError`
   * for an `updatedInput` that is not a plain object (nothing is decided); `ErrApprovalEditUnsupported`
   * when {@link inputEditable} is false (the request is denied, nothing runs).
   */
  approve(options: { updatedInput?: unknown } = {}): void {
    const mismatch = kindMismatch(this.id, this.kind, "approve");
    if (mismatch) throw mismatch;
    const { updatedInput } = options;
    const decision: ApprovalDecision = updatedInput === undefined ? { outcome: "approve" } : { outcome: "approve", updatedInput };
    const refused = decisionRefusal(this, decision, "approve()");
    if (refused?.denies) this.#settle({ outcome: "deny", reason: EDIT_UNSUPPORTED_REASON });
    if (refused) throw refused.error;
    this.#settle(decision);
  }

  /**
   * Refuses the action; `reason` reaches the model as the tool's error text.
   * @throws see the class comment.
   */
  deny(reason = "denied by host"): void {
    this.#settle({ outcome: "deny", reason });
  }

  /**
   * Answers a `question` with a choice key or free text.
   * @throws see the class comment; `ErrApprovalKindMismatch` for other kinds.
   */
  answer(choice: string): void {
    const mismatch = kindMismatch(this.id, this.kind, "answer");
    if (mismatch) throw mismatch;
    this.#settle({ outcome: "answer", choice });
  }

  #settle(decision: ApprovalDecision): void {
    const responder = this.#responder;
    if (!responder) {
      throw new AdaptorError(`approval ${this.id}: no responder`, { sentinel: ErrApprovalUnavailable });
    }
    const outcome = responder.settle(decision);
    if (outcome === "expired") {
      throw new AdaptorError(`approval ${this.id}: expired`, { sentinel: ErrApprovalExpired });
    }
    if (outcome === "resolved") {
      throw new AdaptorError(`approval ${this.id}: already resolved (${responder.status})`, {
        sentinel: ErrApprovalResolved,
      });
    }
  }
}

/**
 * The `ErrApprovalKindMismatch` error for a decision whose `outcome` does not fit an approval of
 * `kind` (approve on a `question`, answer on any other kind; deny fits every kind), or undefined
 * when it fits. Live requests and stored (suspended) approvals are held to the same rule.
 */
export function kindMismatch(id: string, kind: string, outcome: ApprovalDecision["outcome"]): AdaptorError | undefined {
  const fits = outcome === "deny" || (outcome === "approve" ? kind !== "question" : kind === "question");
  return fits
    ? undefined
    : new AdaptorError(`approval ${id}: ${outcome}() does not fit kind ${kind}`, { sentinel: ErrApprovalKindMismatch });
}

/**
 * Why an answer `decision` to the approval `ask` (its id, kind, tool and whether its input is
 * editable) cannot be applied as given, or undefined when it can: the checks {@link ApprovalRequest}'s
 * methods make, for answers that reach a request from elsewhere (another host) to meet before they
 * are recorded. `error`: `ErrApprovalKindMismatch` (the outcome does not fit the kind),
 * `InvalidOptionError` (field `updatedInput`, `subject` naming the call) for an edited input that
 * is not a plain object, or `ErrApprovalEditUnsupported` for an edit the agent cannot run; `denies`
 * is true for the last, which denies the request (nothing runs) where the others leave it pending.
 */
export function decisionRefusal(
  ask: { readonly id: string; readonly kind: string; readonly toolName?: string | undefined; readonly inputEditable?: boolean | undefined },
  decision: ApprovalDecision,
  subject: string,
): { readonly error: Error; readonly denies: boolean } | undefined {
  const mismatch = kindMismatch(ask.id, ask.kind, decision.outcome);
  if (mismatch) return { error: mismatch, denies: false };
  if (decision.outcome !== "approve" || decision.updatedInput === undefined) return undefined;
  const invalid = updatedInputError(decision.updatedInput, subject);
  if (invalid) return { error: invalid, denies: false };
  if (ask.inputEditable === true) return undefined;
  const error = new AdaptorError(
    `approval ${ask.id}: ${ask.toolName ?? ask.kind} cannot run an edited input on this agent; the request was denied`,
    { sentinel: ErrApprovalEditUnsupported },
  );
  return { error, denies: true };
}

/** The deny reason sent to the CLI when the host approved with an edit the agent cannot run. */
export const EDIT_UNSUPPORTED_REASON = "the host approved an edited input, which this agent cannot run; the call was not run";

/**
 * The `InvalidOptionError` (field `updatedInput`) for an edited tool input that is not a plain
 * object (`null`, a string, an array, a class instance...), or undefined when it is one. `subject`
 * names the call, e.g. `"approve()"`.
 */
export function updatedInputError(value: unknown, subject: string): InvalidOptionError | undefined {
  if (isPlainObject(value)) return undefined;
  const got = value === null ? "null" : Array.isArray(value) ? "an array" : typeof value === "object" ? "an instance" : typeof value;
  return new InvalidOptionError({ subject, field: "updatedInput", reason: `must be a plain object (the tool's whole input), got ${got}` });
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== "object" || value === null) return false;
  const proto = Object.getPrototypeOf(value) as unknown;
  return proto === Object.prototype || proto === null;
}
