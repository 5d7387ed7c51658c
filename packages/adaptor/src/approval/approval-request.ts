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
import { rememberError, type ApprovalRule, type RememberRule, type RuleSubject } from "./approval-rule.js";
import { elicitationContentError, elicitationFactsOf } from "./elicitation-content.js";

/**
 * A choice offered by a `question` (one of its options), or one of the named answers a
 * `permission`'s agent protocol can take beyond approve and deny (Codex `acceptForSession`,
 * `cancel`; an ACP agent's permission options).
 */
export interface ApprovalChoice {
  /** The value to pass to `answer()`. */
  readonly key: string;
  /** Short text for people. */
  readonly label: string;
  /** Longer explanation, when the CLI gives one (for an ACP option: its kind, e.g. `allow_always`). */
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
  /** See {@link ApprovalRequest.suggestions}; default none. */
  readonly suggestions?: readonly ApprovalRule[] | undefined;
  /**
   * Why an allow may not be remembered in this run (a confining policy, e.g. `policy.sandbox is
   * "read_only"`); undefined when it may.
   */
  readonly rememberAllowRefused?: string | undefined;
  /** The run's working directory, when known: a rule to remember is matched with the ask as the run's rules match it (`RuleSubject.cwd`). */
  readonly cwd?: string | undefined;
  /**
   * Why a deny may not end the turn as an interrupt in this run (`deny(reason, { interrupt: true })`):
   * returns the error to throw (a `FeatureUnsupportedError` where the driver cannot interrupt a
   * turn), or undefined when it may. Unset: it may not.
   */
  readonly interruptRefusal?: (() => Error | undefined) | undefined;
}

/**
 * A decision the CLI waits for (docs/errors.md "Approval responder errors"). Answer it exactly once with
 * {@link approve}, {@link deny} or {@link answer}, from an `onApproval` handler or from the
 * `approval-request` event. The methods are synchronous and throw:
 * - `ErrApprovalResolved` when another answer already won;
 * - `ErrApprovalExpired` (also matches `ErrApprovalResolved`) after the deadline or the run's end;
 * - `ErrApprovalKindMismatch` when the method does not fit the kind (see {@link answer});
 * - `InvalidOptionError` (field `choice`) for an `answer()` on a `permission` with a choice it does
 *   not list in {@link choices} (the request stays pending);
 * - `ErrApprovalUnavailable` when the request has no run-owned responder;
 * - `InvalidOptionError` (field `updatedInput`) for an edited input that is not a plain object
 *   (the request stays pending);
 * - `ErrApprovalEditUnsupported` for an edited input the driver cannot run (see
 *   {@link inputEditable}; the request was denied);
 * - `InvalidOptionError` (field `remember` or `remember.<field>`) for a rule to remember that is
 *   malformed, does not match this request, is given on a `question`, `plan_review` or
 *   `elicitation`, with an `updatedInput`, or is an allow under a confining policy (the request
 *   stays pending);
 * - `InvalidOptionError` (field `updatedInput`) for an `elicitation` accepted with form content that
 *   does not match its requested schema, or with content on a URL elicitation (nothing is sent: the
 *   request stays pending).
 *
 * An `elicitation` (an MCP server asking the user for input; `details`: `server`, `message`,
 * `mode` `form` or `url`, `requestedSchema` for a form, `url` and `elicitationId` for a URL) is
 * answered with `approve({ updatedInput: content })` (accept, the form's content checked against
 * `details.requestedSchema` with ajv first), `approve()` (accept a URL once opened), `deny()`
 * (decline) or `answer("cancel")` (cancel; `answer("accept")` and `answer("decline")` as approve
 * and deny).
 */
export class ApprovalRequest {
  /** UUID v7, new for every attempt. */
  readonly id: string;
  /** UUID v7 of the run that asks. */
  readonly runId: string;
  /** What is asked: `permission`, `plan_review`, `question` or `elicitation`. */
  readonly kind: ApprovalKind;
  /**
   * One line for people, e.g. `"Bash: npm test"`: at most 1000 characters (a longer one, such as an
   * ACP agent's title, is cut to its first 999 and `…`; the whole command is in `input`).
   */
  readonly title: string;
  /**
   * The tool that wants to run, when the ask is about a tool call: at most 200 characters (a longer
   * name, the model's text, is cut to its first 200, as on the `tool-call` event).
   */
  readonly toolName: string | undefined;
  /** The id of the `tool-call` event this ask belongs to. */
  readonly toolCallId: string | undefined;
  /**
   * The id of the tool call that started the subagent making this call (the delegation's
   * `tool-call` `id`), when the agent says so (Claude Code); undefined for the main conversation's
   * calls and where the agent does not say.
   */
  readonly parentToolCallId: string | undefined;
  /**
   * The input the CLI proposes for the tool, nested at most 64 levels (`JSON_DEPTH_MAX` of
   * `@adaptor/driver/kit`): an ask whose input or details nest deeper is never made a request (the
   * CLI would run what nobody is shown): it is denied without asking, a `notice`
   * `approval.unreadable` saying so.
   */
  readonly input: unknown;
  /**
   * For a `question`: its options (`answer()` takes one's `key`, or free text). For a `permission`:
   * the named answers the agent's protocol takes beyond approve and deny, e.g. Codex's `accept`,
   * `acceptForSession`, `decline`, `cancel` or an ACP agent's option ids; `answer()` takes exactly
   * these keys. For an `elicitation`: `accept`, `decline`, `cancel`. Undefined for a `permission`
   * whose agent takes only approve or deny (Claude Code, Codex exec) and for a `plan_review`.
   */
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
  /**
   * Rules the host could remember with its answer (`approve({ remember })`, `deny(reason, {
   * remember })`) so that the SDK answers later matching asks of the run at once: for a shell
   * command its exact command (`{ toolName: "Bash", command: "npm test" }`), for files the first
   * file's folder (`{ toolName: "Edit", pathPrefix: "/repo/src" }`), else the tool alone. Empty
   * for a `question` and a `plan_review`, which cannot be remembered.
   */
  readonly suggestions: readonly ApprovalRule[];
  readonly #rememberAllowRefused: string | undefined;
  readonly #cwd: string | undefined;
  readonly #interruptRefusal: (() => Error | undefined) | undefined;
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
    this.suggestions = init.suggestions ?? [];
    this.#rememberAllowRefused = init.rememberAllowRefused;
    this.#cwd = init.cwd;
    this.#interruptRefusal = init.interruptRefusal;
    this.#responder = responder;
  }

  /** `"pending"` until answered; then the outcome, or `"expired"`. */
  get status(): "pending" | "approved" | "denied" | "answered" | "expired" {
    return this.#responder?.status ?? "pending";
  }

  /**
   * Allows the action, optionally with an edited input (a plain object, the tool's whole input)
   * the CLI runs instead. `updatedInput: undefined` is no edit.
   *
   * `remember`: a rule (see {@link suggestions}) the SDK remembers for the rest of the run: later
   * asks it matches are approved at once without reaching the host, each recorded in the stream
   * (`approval.requested` and `approval.resolved` notices with `data.rule`). Nothing is written
   * to the CLI's own settings. The rule must match this request; it cannot come with an
   * `updatedInput` (later calls run as the CLI proposes them), and under a confining policy
   * (`policy.sandbox` `read_only`) an allow is not remembered: `InvalidOptionError`.
   * `updatedInput` is copied as JSON when `approve` is called: that copy is checked and sent, so
   * later changes to the host's object do not reach the agent.
   * @throws see the class comment; `ErrApprovalKindMismatch` for a `question`; `InvalidOptionError`
   * for an `updatedInput` that is not a plain object or that JSON cannot carry (a bigint, a cycle, a
   * getter that throws), or a refused `remember` (nothing is decided);
   * `ErrApprovalEditUnsupported` when {@link inputEditable} is false (the request is denied, nothing runs).
   */
  approve(options: { updatedInput?: unknown; remember?: RememberRule } = {}): void {
    const { remember } = options;
    // The edited input (or an elicitation's content) as JSON now: what is checked is what is sent,
    // whatever the host's object does later (a mutation, a `toJSON`, a getter), and a value JSON
    // cannot carry (a bigint, a cycle) is refused here instead of lost on the way to the CLI.
    const updatedInput = options.updatedInput === undefined ? undefined : jsonSnapshot(options.updatedInput, "approve()");
    const decision: ApprovalDecision = updatedInput === undefined ? { outcome: "approve" } : { outcome: "approve", updatedInput };
    if (remember !== undefined) {
      const invalid = rememberError(remember, this.#subject(), "approve()") ?? this.#allowRefusal(updatedInput);
      if (invalid) throw invalid;
    }
    const refused = decisionRefusal(this, decision, "approve()");
    if (refused?.denies) this.#settle({ outcome: "deny", reason: EDIT_UNSUPPORTED_REASON });
    if (refused) throw refused.error;
    this.#settle(decision, remember);
  }

  /**
   * Refuses the action; `reason` (default `"denied by host"`) reaches the model as the
   * tool's error text. `options.remember`: a rule (see {@link suggestions}) the SDK remembers for
   * the rest of the run, denying later asks it matches at once with the same reason (a remembered
   * deny wins over a remembered allow that matches the same ask). Given while the run's permission
   * mode is `auto_approve` (switched to after this ask reached the host), the deny decides this ask
   * only: the rule is not remembered, and a `lifecycle` notice (`data.warning`
   * `deny_rule_not_remembered`) says so.
   *
   * `options.interrupt`: `true` also ends the turn, as `stream.interrupt()` does while this
   * request waits (the CLI is told to stop, then gets the deny): the model is not asked again, the
   * verdict is a `Result` with `status: "interrupted"` (the peer SDK's `{ behavior: "deny",
   * interrupt: true }`), no `onReject` fallback applies, and the `approval.resolved` notice has
   * `data.interrupt: true`. It works from `run()` as from `stream()`. Default false. Should the
   * CLI refuse the interrupt, the run ends with its error.
   * @throws see the class comment; `InvalidOptionError` for a refused `remember` or an `interrupt`
   * that is not a boolean (field `interrupt`); `FeatureUnsupportedError` (feature `interrupt`) for
   * `interrupt: true` where the driver cannot interrupt a turn (`capabilities.turnControl.interrupt`,
   * e.g. an ACP agent whose interrupt is off, such as `claudeAgentAcp()`). Nothing is decided on a
   * throw: the request stays pending.
   */
  deny(reason = DEFAULT_DENY_REASON, options: { remember?: RememberRule; interrupt?: boolean } = {}): void {
    const { remember, interrupt } = options;
    if (remember !== undefined) {
      const invalid = rememberError(remember, this.#subject(), "deny()", "deny");
      if (invalid) throw invalid;
    }
    if (interrupt !== undefined && typeof interrupt !== "boolean")
      throw new InvalidOptionError({ subject: "deny()", field: "interrupt", reason: `must be a boolean, got ${typeOf(interrupt)}` });
    if (interrupt === true && this.#responder) {
      const refused =
        this.#interruptRefusal === undefined
          ? new AdaptorError(`approval ${this.id}: this request cannot end its turn`, { sentinel: ErrApprovalUnavailable })
          : this.#interruptRefusal();
      if (refused) throw refused;
    }
    this.#settle({ outcome: "deny", reason }, remember, interrupt === true);
  }

  /**
   * Answers a `question` with a choice key or free text, or a `permission` that lists
   * {@link choices} with one of their keys (passed to the agent as it is: Codex `acceptForSession`
   * or `cancel`, an ACP option id).
   * @throws see the class comment; `ErrApprovalKindMismatch` for a `plan_review` or a `permission`
   * without choices; `InvalidOptionError` (field `choice`) for a key a `permission` does not list
   * or a `choice` that is not a string (nothing is decided: the request stays pending).
   */
  answer(choice: string): void {
    const refused = decisionRefusal(this, { outcome: "answer", choice }, "answer()");
    if (refused) throw refused.error;
    this.#settle({ outcome: "answer", choice });
  }

  /** Why an approve may not remember its rule: an edited input, or a confining policy. */
  /** This ask as a rule is matched with it. */
  #subject(): RuleSubject & { readonly id: string } {
    const toolKind = this.details?.["toolKind"];
    return {
      id: this.id,
      kind: this.kind,
      toolName: this.toolName,
      input: this.input,
      cwd: this.#cwd,
      ...(typeof toolKind === "string" ? { toolKind } : {}),
    };
  }

  #allowRefusal(updatedInput: unknown): InvalidOptionError | undefined {
    const refuse = (reason: string): InvalidOptionError => new InvalidOptionError({ subject: "approve()", field: "remember", reason });
    if (updatedInput !== undefined)
      return refuse("cannot be given with updatedInput (a remembered rule approves later calls as the CLI proposes them)");
    if (this.#rememberAllowRefused !== undefined)
      return refuse(
        `an allow cannot be remembered in this run: ${this.#rememberAllowRefused} (approve without remember, or remember a deny)`,
      );
    return undefined;
  }

  #settle(decision: ApprovalDecision, remember?: RememberRule, interrupt?: boolean): void {
    const responder = this.#responder;
    if (!responder) {
      throw new AdaptorError(`approval ${this.id}: no responder`, { sentinel: ErrApprovalUnavailable });
    }
    const outcome = responder.settle(decision, remember, interrupt);
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

/** The fields of an approval the answer rule reads (a live request, a stored approval, a fleet's request JSON). */
export interface ApprovalAskFacts {
  /** The approval's id, for messages. */
  readonly id: string;
  /** `permission`, `plan_review`, `question` or `elicitation`. */
  readonly kind: string;
  /** The choices it lists (see {@link ApprovalRequest.choices}). */
  readonly choices?: readonly { readonly key: string }[] | undefined;
  /** The tool it asks about, for messages. */
  readonly toolName?: string | undefined;
  /** Whether an approve's edited input runs (see {@link ApprovalRequest.inputEditable}). */
  readonly inputEditable?: boolean | undefined;
  /** Its protocol detail; for an `elicitation` the `mode` and `requestedSchema` an accept's content is checked against. */
  readonly details?: Readonly<Record<string, unknown>> | undefined;
}

/**
 * The {@link ApprovalAskFacts} of approval `id` from its request as JSON (an `ApprovalRequest`'s
 * fields, e.g. a fleet's stored request): a field of another type is left out.
 */
export function askFactsOf(id: string, request: unknown): ApprovalAskFacts {
  const json = (typeof request === "object" && request !== null ? request : {}) as Record<string, unknown>;
  const choices = Array.isArray(json["choices"])
    ? json["choices"].flatMap((c: unknown) => {
        const key = typeof c === "object" && c !== null ? (c as { key?: unknown }).key : undefined;
        return typeof key === "string" ? [{ key }] : [];
      })
    : undefined;
  return {
    id,
    kind: String(json["kind"]),
    choices,
    toolName: typeof json["toolName"] === "string" ? json["toolName"] : undefined,
    inputEditable: json["inputEditable"] === true,
    ...(typeof json["details"] === "object" && json["details"] !== null ? { details: json["details"] as Record<string, unknown> } : {}),
  };
}

/**
 * Why `decision` does not fit the approval `ask`, or undefined when it fits: deny fits every kind;
 * approve every kind but `question`; answer a `question` (any text), a `permission` that lists
 * `choices`, or an `elicitation` (`accept`, `decline`, `cancel`) with one of their keys. Returns
 * `ErrApprovalKindMismatch` for an outcome the kind does not take (answer on a `plan_review` or on
 * a `permission` without choices), `InvalidOptionError` (field `choice`, `subject` naming the call,
 * the closest key as `suggestion`) for a key the permission or elicitation does not list, or a
 * choice that is not a string (any kind). An
 * elicitation's form content is checked by {@link decisionRefusal}, not here. Live requests and
 * stored (suspended) approvals are held to the same rule.
 */
export function decisionMismatch(ask: ApprovalAskFacts, decision: ApprovalDecision, subject: string): AdaptorError | undefined {
  const { id, kind } = ask;
  if (decision.outcome === "deny") return undefined;
  if (decision.outcome === "approve") return kind === "question" ? mismatch(id, kind, "approve") : undefined;
  if (typeof decision.choice !== "string")
    return new InvalidOptionError({
      subject,
      field: "choice",
      reason: `must be a string (a choice key or free text), got ${typeOf(decision.choice)}`,
    });
  if (kind === "question") return undefined;
  const keys = kind === "permission" || kind === "elicitation" ? (ask.choices ?? []).map((choice) => choice.key) : [];
  if (keys.length === 0) return mismatch(id, kind, "answer");
  if (keys.includes(decision.choice)) return undefined;
  return new InvalidOptionError({
    subject,
    field: "choice",
    reason: `${JSON.stringify(decision.choice)} is not a choice of approval ${id} (its choices: ${keys.map((key) => JSON.stringify(key)).join(", ")})`,
    suggestion: closestKey(decision.choice, keys),
  });
}

function mismatch(id: string, kind: string, outcome: ApprovalDecision["outcome"]): AdaptorError {
  const hint = outcome === "answer" && kind === "permission" ? " without choices (approve or deny it)" : "";
  return new AdaptorError(`approval ${id}: ${outcome}() does not fit kind ${kind}${hint}`, { sentinel: ErrApprovalKindMismatch });
}

/** The key that differs from `value` only in case, else undefined. */
function closestKey(value: string, keys: readonly string[]): string | undefined {
  const lower = value.toLowerCase();
  return keys.find((key) => key.toLowerCase() === lower);
}

/**
 * Why an answer `decision` to the approval `ask` (its id, kind, choices, tool and whether its input
 * is editable) cannot be applied as given, or undefined when it can: the checks {@link ApprovalRequest}'s
 * methods make, for answers that reach a request from elsewhere (another host) to meet before they
 * are recorded. `error`: what {@link decisionMismatch} returns (`ErrApprovalKindMismatch`, or
 * `InvalidOptionError` field `choice` for a permission's or an elicitation's unlisted choice),
 * `InvalidOptionError` (field `updatedInput`, `subject` naming the call) for an edited input that is
 * not a plain object, for an accepted elicitation whose content does not fit (content on a `url`
 * elicitation, form content invalid against the requested schema, or a schema that cannot be
 * compiled; see `elicitationContentError`), or `ErrApprovalEditUnsupported` for an edit the agent
 * cannot run (never for an elicitation, whose content is its answer); `denies` is true for the last,
 * which denies the request (nothing runs) where the others leave it pending.
 */
export function decisionRefusal(
  ask: ApprovalAskFacts,
  decision: ApprovalDecision,
  subject: string,
): { readonly error: Error; readonly denies: boolean } | undefined {
  const mismatch = decisionMismatch(ask, decision, subject);
  if (mismatch) return { error: mismatch, denies: false };
  if (ask.kind === "elicitation") {
    const content = decision.outcome === "approve" && decision.updatedInput !== undefined ? decision.updatedInput : undefined;
    const invalid =
      (content !== undefined ? updatedInputError(content, subject) : undefined) ??
      elicitationContentError(ask.id, elicitationFactsOf(ask.details), decision, subject);
    return invalid ? { error: invalid, denies: false } : undefined;
  }
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

/** The reason of a deny given none (`request.deny()`, a fleet's `answer` of a deny without `reason`). */
export const DEFAULT_DENY_REASON = "denied by host";

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

/**
 * `value` as the JSON the CLI will get: a plain object (the check {@link updatedInputError} makes
 * on it is left to the caller) copied through `JSON.stringify` / `JSON.parse`; a value that is not
 * a plain object is returned as it is, for that check to name it.
 * @throws InvalidOptionError (field `updatedInput`) when JSON cannot carry it (a bigint, a cycle, a
 * getter or `toJSON` that throws), the thrown error as `cause`.
 */
function jsonSnapshot(value: unknown, subject: string): unknown {
  if (!isPlainObject(value)) return value;
  try {
    return JSON.parse(JSON.stringify(value)) as unknown;
  } catch (error) {
    throw new InvalidOptionError(
      { subject, field: "updatedInput", reason: `must be JSON data (${error instanceof Error ? error.message : String(error)})` },
      { cause: error },
    );
  }
}

/** `value`'s type for a message: `null`, `an array`, or its `typeof`. */
function typeOf(value: unknown): string {
  return value === null ? "null" : Array.isArray(value) ? "an array" : typeof value;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== "object" || value === null) return false;
  const proto = Object.getPrototypeOf(value) as unknown;
  return proto === Object.prototype || proto === null;
}
