import { isError } from "@adaptor/errors";
import type { ApprovalAsk, ApprovalDecision, ApprovalKind, ApprovalMode, DriverFailure } from "@adaptor/driver";
import { JSON_DEPTH_MAX, realDirectory } from "@adaptor/driver/kit";
import { v7 as uuidv7 } from "uuid";
import { ErrApprovalResolved } from "../errors/sentinels.js";
import type { EventQueue } from "../events/event-queue.js";
import type { ApprovalHandler, ApprovalHandlerContext } from "../approval/approval-handler.js";
import { ApprovalRequest, EDIT_UNSUPPORTED_REASON } from "../approval/approval-request.js";
import { ApprovalResponder } from "../approval/approval-responder.js";
import type { ApprovalSettings } from "../approval/approval-settings.js";
import {
  ApprovalRules,
  contextOf,
  describeRule,
  ruleOf,
  suggestRules,
  uncomparedBy,
  type ApprovalRule,
  type RememberedRule,
  type RuleSubject,
} from "../approval/approval-rule.js";
import type { StoredAnswers } from "../suspend/turn-data.js";
import { askCutInDepth } from "./bounded-values.js";
import { presetRules, type ApprovalPolicyRule } from "../approval/policy-rules.js";
import type { HeldRule } from "../approval/mode-switch.js";

/** How the broker reaches the run it serves. */
export interface ApprovalBrokerInit {
  readonly runId: string;
  readonly queue: EventQueue;
  readonly handler: ApprovalHandler | undefined;
  /**
   * Whether someone reads the run's `approval-request` events (a `stream()` consumer). False for
   * `run()`, which drains them unread: without a handler, an `ask` then has nobody to answer it.
   */
  readonly eventsRead: boolean;
  readonly settings: ApprovalSettings;
  /**
   * The run's `policy.approvals.permission` as given (`inherit` when unset): the mode host tools
   * follow, where `inherit` means they run without asking.
   */
  readonly permission?: ApprovalMode | undefined;
  readonly signal: AbortSignal;
  /** The handler threw: abort the run with this cause. */
  readonly onHandlerFailure: (error: unknown) => void;
  /** A fallback decided the run must end as a business failure. */
  readonly onFailure: (failure: DriverFailure) => void;
  /** A human is being asked (pauses the active-execution budget) / no longer. */
  readonly onWaiting: (waiting: boolean) => void;
  /** A resumed turn's stored answers: an ask that matches one is decided by it, without asking anyone. */
  readonly replay?: StoredAnswers | undefined;
  /**
   * Set for a turn run with `suspend`: an `ask` is stored under `id` (the id its `approval.*`
   * notices carry) and the run stopped instead (never rejects).
   */
  readonly suspend?: ((ask: ApprovalAsk, id: string) => Promise<void>) | undefined;
  /**
   * Why the run's policy confines it so that an allow may not be remembered (e.g. `policy.sandbox
   * is "read_only"`); undefined when it may.
   */
  readonly rememberAllowRefused?: string | undefined;
  /** Rules known before the run (`policy.approvals.rules`, checked), answering asks from the start. */
  readonly rules?: readonly ApprovalPolicyRule[] | undefined;
  /**
   * Ending the turn on a deny that asks for it (`deny(reason, { interrupt: true })`): `refusal`
   * returns why the run cannot (the error the answer throws), `request` interrupts the turn as
   * `stream.interrupt()` does. Unset: such a deny is refused.
   */
  readonly interrupt?:
    | {
        readonly refusal: () => Error | undefined;
        readonly request: () => void;
      }
    | undefined;
}

/**
 * Turns a driver's {@link ApprovalAsk} into {@link ApprovalRequest}s under the run's approval
 * settings: auto modes decide at once; `ask` emits the `approval-request` event, runs the
 * `onApproval` handler, applies the deadline and the timeout/reject fallbacks (abort, continue,
 * retry with a new id). Every ask resolves: the driver always gets a decision to forward.
 *
 * An answer that remembers a rule (`approve({ remember })`, `deny(reason, { remember })`) adds it
 * to the run's rules (`approval.remembered`); a later `permission` ask it matches, when its mode is
 * `ask`, is answered at once by the rule (its `approval.requested` and `approval.resolved` carry
 * `data.rule`). The policy's rules (`policy.approvals.rules`) are in the run's rules from its
 * start and answer the same way. Auto modes and a
 * resumed turn's stored answers come first.
 *
 * Edge cases, each recorded in a `notice` event:
 * - an ask after the broker ended (the run is over) or one the run refuses ({@link refuse}, e.g.
 *   after the driver returned) is denied at once and never reaches the host
 *   (`approval.late-request`);
 * - an `ask` that nobody can answer (no handler and the events are drained unread) is denied at
 *   once (`approval.unanswerable`), and unless `onTimeout` is `continue` (the fallback for an ask
 *   nobody answered) the run ends with a `RunError` `approval_denied` (`details.unanswerable`)
 *   whose message says what to do (`retry` cannot help, so it aborts too);
 * - an answer that loses to another answer or to an expiry throws to its caller as usual and is
 *   recorded (`approval.late-answer`, once per request: later late answers are only refused);
 * - a handler that throws anything else ends the run ("approval handler failed", the thrown value
 *   as `cause`), also after it decided the request (the decision already sent stands).
 */
export class ApprovalBroker {
  readonly #init: ApprovalBrokerInit;
  readonly #pending = new Set<ApprovalResponder>();
  /** Asks this broker answered by suspending the turn (their deny only tells the CLI to stop). */
  readonly #suspended = new WeakSet<ApprovalAsk>();
  /** Requests expired because the turn was interrupted: their deny is the interrupt's, no fallback applies. */
  readonly #cutByInterrupt = new WeakSet<ApprovalResponder>();
  #waiting = 0;
  #ended = false;
  /** The mode per kind, from the settings until {@link setModes} changes them. */
  #modes: ApprovalSettings["modes"];
  /** Calls of {@link setModes} so far. */
  #changes = 0;
  /** Per kind, the call of {@link setModes} (its number in {@link #changes}) that set it last. */
  readonly #changedBy: Partial<Record<ApprovalKind, number>> = {};
  /** The rules the host's answers remembered in this run. */
  readonly #rules = new ApprovalRules();
  /** The permission mode as set (before `inherit` resolves to `ask`), for host tools. */
  #permission: ApprovalMode;
  /** The run's working directory once known ({@link setWorkingDirectory}), for path rules. */
  #cwd: string | undefined;
  /** How many of the run's rules, first in {@link #rules}, the policy gave. */
  readonly #given: number;

  constructor(init: ApprovalBrokerInit) {
    this.#init = init;
    this.#modes = init.settings.modes;
    this.#permission = init.permission ?? "inherit";
    const preset = presetRules(init.rules);
    for (const rule of preset) this.#rules.add(rule);
    this.#given = preset.length;
  }

  /**
   * The run's rules so far, oldest first: the policy's (with their index), then those remembered
   * with answers, including an answer given but not yet taken in by the broker.
   */
  get heldRules(): readonly HeldRule[] {
    const held = this.#rules.list().map((remembered, index): HeldRule => ({
      rule: remembered.rule,
      outcome: remembered.decision.outcome,
      ...(index < this.#given ? { given: index } : {}),
    }));
    for (const responder of this.#pending) {
      const { remember, status } = responder;
      if (remember && (status === "approved" || (status === "denied" && !this.#autoApproving)))
        held.push({ rule: ruleOf(remember), outcome: status === "approved" ? "approve" : "deny" });
    }
    return held;
  }

  /**
   * Decides later asks under `modes` (kinds left out keep theirs); asks already with the host wait on.
   * @returns what undoes it: each kind it set goes back to its mode before, unless a later call set that kind since.
   */
  setModes(modes: Partial<ApprovalSettings["modes"]>): () => void {
    const change = ++this.#changes;
    const before = this.#modes;
    const permissionBefore = this.#permission;
    const kinds = (Object.keys(modes) as ApprovalKind[]).filter((kind) => modes[kind] !== undefined);
    for (const kind of kinds) this.#changedBy[kind] = change;
    if (modes.permission !== undefined) this.#permission = modes.permission;
    this.#modes = { ...this.#modes, ...modes };
    return () => {
      const restored = { ...this.#modes };
      for (const kind of kinds) {
        if (this.#changedBy[kind] !== change) continue;
        restored[kind] = before[kind];
        if (kind === "permission") this.#permission = permissionBefore;
      }
      this.#modes = restored;
    };
  }

  /**
   * Sets the working directory the run's CLI runs in (absolute, or relative to `process.cwd()`),
   * once it is known: a deny path rule reads an ask naming no file as a search of it and resolves
   * relative files against it. Until then (or when `undefined`, the driver's own default) such
   * asks match every deny path rule of their tool.
   */
  setWorkingDirectory(cwd: string | undefined): void {
    this.#cwd = cwd;
  }

  /** `ask` as the run's rules are matched with it. */
  #subject(ask: Pick<ApprovalAsk, "kind" | "toolName" | "input" | "details">): RuleSubject {
    const toolKind = ask.details?.["toolKind"];
    return {
      kind: ask.kind,
      toolName: ask.toolName,
      input: ask.input,
      cwd: this.#cwd,
      ...(typeof toolKind === "string" ? { toolKind } : {}),
    };
  }

  /**
   * The run's permission mode as currently set, `inherit` included (host tools run unasked under
   * it). Follows {@link setModes}.
   */
  get permission(): ApprovalMode {
    return this.#permission;
  }

  /**
   * Whether `ask` was answered by suspending the turn: its decision is then a deny the CLI gets
   * because it is ended, not a person's or a policy's.
   */
  suspended(ask: ApprovalAsk): boolean {
    return this.#suspended.has(ask);
  }

  /** Whether the run holds a deny rule (given before it or remembered so far). */
  get holdsDenyRule(): boolean {
    return this.#rules.denies;
  }

  /**
   * The deny rule the run holds (given before it or remembered so far) that names a call of
   * `toolName` with `input` and, when its driver gives one, the ACP kind `toolKind` (an `execute`
   * call is a shell call even when it carries no command), compared as a `permission` ask about it
   * would be (the same reading); undefined when none.
   */
  deniedBy(toolName: string, input: unknown, toolKind?: string): ApprovalRule | undefined {
    if (!this.#rules.denies) return undefined;
    const details = toolKind !== undefined ? { toolKind } : undefined;
    const remembered = this.#rules.match(this.#subject({ kind: "permission", toolName, input, details }));
    return remembered?.decision.outcome === "deny" ? remembered.rule : undefined;
  }

  /** Decides one ask; always resolves (a deny when the run ends first). */
  async ask(ask: ApprovalAsk): Promise<ApprovalDecision> {
    if (this.#ended) return this.refuse(ask, "after the run ended");
    const stored = this.#init.replay?.take(ask);
    if (stored) return this.#replayed(ask, stored);
    const { settings } = this.#init;
    const mode = this.#modes[ask.kind];
    if (mode === "auto_approve" && ask.kind !== "question" && ask.kind !== "elicitation") return this.#auto(ask, { outcome: "approve" });
    if (mode === "auto_deny") {
      const decision = this.#auto(ask, { outcome: "deny", reason: "denied by policy" });
      // A declined elicitation is an answer MCP servers handle (the peer SDKs decline silently), and
      // a declined question one the model reads and goes on from: `onReject` is for denials of
      // calls and plans, never for this mode's declines of those two kinds, default or set.
      if (settings.onReject === "abort" && ask.kind !== "elicitation" && ask.kind !== "question")
        this.#fail("approval_denied", `${ask.title}: denied by policy`, ask, 1);
      return decision;
    }
    // Fails closed: the CLI would run the whole input, but a handler or a rule sees it cut.
    if (askCutInDepth(ask)) return this.#unreadable(ask);
    const remembered = this.#rules.match(this.#subject(ask));
    if (remembered) return this.#byRule(ask, remembered);
    // A stored approval keeps no form schema or URL: an elicitation asked in a suspending turn (its
    // mode set to ask by setApprovalMode) is declined, never stored.
    if (this.#init.suspend && ask.kind === "elicitation") return this.refuse(ask, "in a turn run with suspend");
    if (this.#init.suspend) return this.#suspend(ask, this.#init.suspend);
    if (!this.#init.handler && !this.#init.eventsRead) return this.#unanswerable(ask);
    for (let attempt = 1; ; attempt++) {
      const { decision, timedOut, interrupt, cut } = await this.#askOnce(ask, attempt);
      if (interrupt && !this.#ended) {
        // As stream.interrupt() with an approval pending: the interrupt reaches the turn before the
        // driver forwards the deny, so the CLI cannot go on to another model request in between.
        // No fallback applies.
        this.#init.interrupt?.request();
        return decision;
      }
      // Expired by the turn's interrupt: the turn is ending, so neither onReject nor a retry applies.
      if (decision.outcome !== "deny" || this.#ended || cut) return decision;
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

  /**
   * Denies `ask` at once without asking anyone, because it came too late (`when`, e.g. "after the
   * driver returned"); a `notice` of kind `approval.late-request` records it. Never throws (after
   * the run's events closed, nothing is recorded).
   */
  refuse(ask: ApprovalAsk, when: string): ApprovalDecision {
    const reason = `approval requested ${when}; denied without asking`;
    this.#init.queue.push({
      type: "notice",
      kind: "approval.late-request",
      message: `${ask.title}: ${reason}`,
      data: { kind: ask.kind, title: ask.title, toolName: ask.toolName, toolCallId: ask.toolCallId, when },
    });
    return { outcome: "deny", reason };
  }

  /**
   * Expires every pending request (the driver receives a deny; `approval.resolved` says
   * `expired`); later asks are asked as before.
   */
  expirePending(reason: string): void {
    for (const responder of this.#pending) responder.expire(reason);
    this.#pending.clear();
  }

  /**
   * Expires every pending request because the turn is interrupted (`stream.interrupt()`, or a deny
   * with `interrupt: true`): the driver receives a deny, `approval.resolved` says `expired`, and no
   * `onReject` fallback (abort, retry) applies to it; later asks are asked as before.
   */
  interruptPending(): void {
    for (const responder of this.#pending) this.#cutByInterrupt.add(responder);
    this.expirePending("turn interrupted");
  }

  /** Expires every pending request (the driver receives a deny); later asks are refused at once. */
  end(reason: string): void {
    this.#ended = true;
    this.expirePending(reason);
  }

  async #askOnce(
    ask: ApprovalAsk,
    attempt: number,
  ): Promise<{ decision: ApprovalDecision; timedOut: boolean; interrupt: boolean; cut: boolean }> {
    const { settings, handler, signal } = this.#init;
    const id = uuidv7();
    // One notice per request: the first late answer is recorded, later ones only refused (each
    // caller still gets its error), so clients racing or repeating answers cannot flood the stream.
    let lateRecorded = false;
    const responder = new ApprovalResponder((lost, attempted) => {
      if (lateRecorded) return;
      lateRecorded = true;
      this.#init.queue.push({
        type: "notice",
        kind: "approval.late-answer",
        message: `approval ${id}: the answer ${attempted.outcome} came after the request was ${lost === "expired" ? "expired" : "already resolved"}; ignored`,
        data: { id, kind: ask.kind, attempt, lost, attempted: attempted.outcome, status: responder.status },
      });
    });
    const createdAt = new Date();
    const deadline = settings.timeoutMs === undefined ? undefined : new Date(createdAt.getTime() + settings.timeoutMs);
    const request = new ApprovalRequest(
      {
        id,
        runId: this.#init.runId,
        kind: ask.kind,
        title: ask.title,
        toolName: ask.toolName,
        toolCallId: ask.toolCallId,
        parentToolCallId: ask.parentToolCallId,
        input: ask.input,
        choices: ask.choices,
        details: ask.details,
        inputEditable: ask.inputEditable,
        createdAt,
        deadline,
        attempt,
        suggestions: suggestRules(this.#subject(ask)),
        rememberAllowRefused: this.#init.rememberAllowRefused,
        cwd: this.#cwd,
        interruptRefusal: this.#init.interrupt?.refusal,
      },
      responder,
    );
    let timer: NodeJS.Timeout | undefined;
    let timedOut = false;
    let check: (() => Promise<void>) | undefined;
    // Set once the deadline called the handler's check: the deadline decides what is left undecided.
    let checking = false;
    const context: ApprovalHandlerContext = { signal, beforeDeadline: (fn) => void (check = fn) };
    const expire = () => {
      if (responder.expire("approval timed out")) timedOut = true;
    };
    if (this.#ended) responder.expire("run ended");
    else {
      this.#pending.add(responder);
      if (settings.timeoutMs !== undefined) {
        timer = setTimeout(() => {
          const before = check;
          if (!before || responder.status !== "pending") {
            expire();
            return;
          }
          // The handler's record of the request is closed first; an answer it finds there wins.
          checking = true;
          void Promise.resolve()
            .then(before)
            .catch((error: unknown) => this.#handlerError(request, "the deadline's check failed; the deadline applies", error))
            .finally(expire);
        }, settings.timeoutMs);
        timer.unref();
      }
    }
    this.#notice("approval.requested", { id: request.id, kind: request.kind, toolName: request.toolName, attempt });
    this.#init.queue.push({ type: "approval-request", request });
    this.#setWaiting(+1);
    if (handler && !this.#ended) this.#runHandler(handler, request, responder, context, () => checking);
    try {
      const decision = await responder.decision;
      this.#notice("approval.resolved", {
        id: request.id,
        kind: request.kind,
        outcome: timedOut ? "timeout" : responder.status,
        ...(decision.outcome === "answer" ? { choice: decision.choice } : {}),
        ...(responder.interrupt ? { interrupt: true } : {}),
        attempt,
      });
      this.#remember(request, responder, decision);
      return { decision, timedOut, interrupt: responder.interrupt, cut: this.#cutByInterrupt.has(responder) };
    } finally {
      clearTimeout(timer);
      this.#pending.delete(responder);
      this.#setWaiting(-1);
    }
  }

  /**
   * A stored answer of a suspended turn decides an ask the CLI repeats (`approval.replayed`). A
   * stored edit the driver cannot run (`ask.inputEditable` false) is applied as a deny.
   */
  #replayed(ask: ApprovalAsk, stored: ApprovalDecision): ApprovalDecision {
    const edited = stored.outcome === "approve" && stored.updatedInput !== undefined;
    const decision: ApprovalDecision = edited && !ask.inputEditable ? { outcome: "deny", reason: EDIT_UNSUPPORTED_REASON } : stored;
    const id = uuidv7();
    this.#notice("approval.requested", { id, kind: ask.kind, toolName: ask.toolName, attempt: 1, replayed: true });
    this.#init.queue.push({
      type: "notice",
      kind: "approval.replayed",
      message: `${ask.title}: the stored answer (${decision.outcome}) applied without asking`,
      data: { id, kind: ask.kind, toolName: ask.toolName, toolCallId: ask.toolCallId, outcome: decision.outcome },
    });
    this.#notice("approval.resolved", { id, kind: ask.kind, outcome: resolvedOutcome(decision), attempt: 1, replayed: true });
    return decision;
  }

  /** Whether `permission` asks are now approved before any rule (`auto_approve`). */
  get #autoApproving(): boolean {
    return this.#modes.permission === "auto_approve";
  }

  /**
   * Adds the rule the winning answer asked to remember, if any (`approval.remembered`). A deny
   * answered while the permission mode is `auto_approve` (switched to after the ask was put to
   * the host) decides its own ask only: a deny rule would never be consulted under that mode (the
   * switch to it is refused while the run holds one), so it is not remembered; a `lifecycle`
   * notice (`data.warning` `deny_rule_not_remembered`) says so.
   */
  #remember(request: ApprovalRequest, responder: ApprovalResponder, decision: ApprovalDecision): void {
    const remember = responder.remember;
    if (!remember || decision.outcome === "answer") return;
    const rule = ruleOf(remember);
    const scope = remember.scope ?? "run";
    if (decision.outcome === "deny" && this.#autoApproving) {
      this.#init.queue.push({
        type: "notice",
        kind: "lifecycle",
        message: `${request.title}: denied, the deny rule not remembered (${describeRule(rule)}): the permission mode is auto_approve, which approves every call before any rule`,
        data: { warning: "deny_rule_not_remembered", id: request.id, kind: request.kind, toolName: request.toolName, rule, scope },
      });
      return;
    }
    this.#rules.add({
      rule,
      scope,
      context: contextOf(rule, request.input),
      realFolder: rule.pathPrefix !== undefined ? realDirectory(rule.pathPrefix) : undefined,
      decision: decision.outcome === "approve" ? { outcome: "approve" } : decision,
    });
    this.#init.queue.push({
      type: "notice",
      kind: "approval.remembered",
      message: `${request.title}: ${decision.outcome === "approve" ? "allow" : "deny"} remembered for the ${scope} (${describeRule(rule)})`,
      data: { id: request.id, kind: request.kind, toolName: request.toolName, outcome: resolvedOutcome(decision), rule, scope },
    });
  }

  /**
   * A remembered rule answers `ask` at once. A deny takes no `onReject` fallback: the host's own
   * deny that remembered it already took it (under `abort` the run ended there).
   */
  #byRule(ask: ApprovalAsk, remembered: RememberedRule): ApprovalDecision {
    const { rule, scope } = remembered;
    // A deny that matched for want of a command or file to compare says so.
    const uncompared = remembered.decision.outcome === "deny" ? uncomparedBy(rule, this.#subject(ask)) : undefined;
    const decision: ApprovalDecision =
      uncompared !== undefined && remembered.decision.outcome === "deny"
        ? { outcome: "deny", reason: `${remembered.decision.reason} (${uncompared})` }
        : remembered.decision;
    const id = uuidv7();
    this.#notice("approval.requested", { id, kind: ask.kind, toolName: ask.toolName, attempt: 1, rule, scope });
    this.#notice("approval.resolved", { id, kind: ask.kind, outcome: resolvedOutcome(decision), attempt: 1, rule, scope });
    return decision;
  }

  /** Stores the ask and stops the run; the CLI, being ended, is told a denial. */
  async #suspend(ask: ApprovalAsk, suspend: (ask: ApprovalAsk, id: string) => Promise<void>): Promise<ApprovalDecision> {
    const id = uuidv7();
    this.#notice("approval.requested", {
      id,
      kind: ask.kind,
      toolName: ask.toolName,
      attempt: 1,
      suspend: true,
      inputEditable: ask.inputEditable === true,
    });
    await suspend(ask, id);
    this.#suspended.add(ask);
    this.#notice("approval.resolved", { id, kind: ask.kind, outcome: "suspended", attempt: 1 });
    return { outcome: "deny", reason: "the turn is suspended until this approval is answered" };
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

  /**
   * An ask whose input or details nest deeper than `JSON_DEPTH_MAX` levels (cut where it entered
   * the SDK): denied without asking, since nobody (a handler, a rule) can read all the CLI would
   * run; a `notice` of kind `approval.unreadable` records it. The run goes on (no `onReject`).
   */
  #unreadable(ask: ApprovalAsk): ApprovalDecision {
    const id = uuidv7();
    const reason = `its input or details nest deeper than ${JSON_DEPTH_MAX} levels: nobody can be shown all the CLI would run; denied without asking`;
    this.#notice("approval.requested", { id, kind: ask.kind, toolName: ask.toolName, attempt: 1 });
    this.#init.queue.push({
      type: "notice",
      kind: "approval.unreadable",
      message: `${ask.title}: ${reason}`,
      data: { id, kind: ask.kind, toolName: ask.toolName, toolCallId: ask.toolCallId },
    });
    this.#notice("approval.resolved", { id, kind: ask.kind, outcome: "denied", attempt: 1 });
    return { outcome: "deny", reason };
  }

  /** No handler and nobody reads the events: an immediate timeout, with a message that says what to do. */
  #unanswerable(ask: ApprovalAsk): ApprovalDecision {
    const { settings } = this.#init;
    const id = uuidv7();
    const message =
      `${ask.title}: denied, since nobody can answer this ${ask.kind} request: the run was started with run(), which drains its events, ` +
      `and has no onApproval handler. Pass onApproval, or use stream() and answer the approval-request event, ` +
      `or set policy.approvals.${ask.kind} to ${autoModes(ask.kind)}`;
    this.#notice("approval.requested", { id, kind: ask.kind, toolName: ask.toolName, attempt: 1 });
    this.#init.queue.push({ type: "notice", kind: "approval.unanswerable", message, data: { id, kind: ask.kind, toolName: ask.toolName } });
    this.#notice("approval.resolved", { id, kind: ask.kind, outcome: "unanswerable", attempt: 1 });
    if (settings.onTimeout !== "continue") {
      this.#init.onFailure({
        reason: "approval_denied",
        message,
        details: { kind: ask.kind, toolName: ask.toolName, toolCallId: ask.toolCallId, attempt: 1, unanswerable: true },
      });
    }
    return { outcome: "deny", reason: "nobody can answer approvals in this run" };
  }

  #fail(reason: "approval_denied" | "approval_timeout", message: string, ask: ApprovalAsk, attempt: number): void {
    this.#init.onFailure({
      reason,
      message,
      details: { kind: ask.kind, toolName: ask.toolName, toolCallId: ask.toolCallId, attempt },
    });
  }

  /** Runs the handler; `deadlineDecides` says the deadline's check ran, so returning undecided is fine. */
  #runHandler(
    handler: ApprovalHandler,
    request: ApprovalRequest,
    responder: ApprovalResponder,
    context: ApprovalHandlerContext,
    deadlineDecides: () => boolean,
  ): void {
    const { signal } = context;
    Promise.resolve()
      .then(() => handler(request, context))
      .then(
        () => {
          if (deadlineDecides()) return;
          if (responder.expire("approval handler returned without a decision") && !signal.aborted) {
            this.#init.onFailure({
              reason: "agent_error",
              message: `approval handler returned without deciding ${request.kind} ${JSON.stringify(request.title)}`,
              details: { approvalId: request.id },
            });
          }
        },
        (error: unknown) => {
          const undecided = responder.expire("approval handler failed");
          // A late answer's own error was recorded (`approval.late-answer`) when it lost; the run goes on.
          if (!undecided && isError(error, ErrApprovalResolved)) return;
          // Any other throw ends the run, whether or not the request was decided first (that decision stands).
          this.#init.onHandlerFailure(error);
        },
      );
  }

  /** Records an error of the handler's that changes nothing (`approval.handler-error`). */
  #handlerError(request: ApprovalRequest, what: string, error: unknown): void {
    this.#init.queue.push({
      type: "notice",
      kind: "approval.handler-error",
      message: `approval ${request.id}: ${what}`,
      data: {
        id: request.id,
        kind: request.kind,
        status: request.status,
        error: error instanceof Error ? error.message : String(error),
      },
    });
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

/** The `approval.resolved` outcome of a decision. */
function resolvedOutcome(decision: ApprovalDecision): "approved" | "denied" | "answered" {
  return decision.outcome === "approve" ? "approved" : decision.outcome === "deny" ? "denied" : "answered";
}

/** The auto modes a host can set for `kind`, for messages. */
function autoModes(kind: ApprovalKind): string {
  return kind === "question" ? '"auto_deny"' : '"auto_approve" or "auto_deny"';
}
