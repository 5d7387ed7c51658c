import {
  APPROVAL_KINDS,
  approvalModes,
  FeatureUnsupportedError,
  HumanDecisionModeUnsupportedError,
  type ApprovalKind,
  type ApprovalMode,
  type ApprovalModes,
  type DriverDescriptor,
  type TurnControl,
} from "@adaptor/driver";
import { DriverError, ErrCode } from "@adaptor/errors";
import { resolveApprovalSettings } from "../approval/approval-settings.js";
import { modeSwitchError, type HeldRule } from "../approval/mode-switch.js";

/** Approval modes per kind, as the SDK's approval broker applies them. */
type Modes = { -readonly [K in ApprovalKind]?: ApprovalMode };

/** The stream methods that act on a running turn, by their descriptor flag. */
export type TurnControlName = "interrupt" | "send" | "setModel";

/** How an interrupt the turn does not honour is escalated. */
export interface InterruptBound {
  /** ms after the interrupt reached the driver within which the run must end (the driver's stop bound). */
  readonly afterMs: number;
  /** The run's controller: aborted (with a DriverError `TIMEOUT`, op `"interrupt"`) to end it like a cancel. */
  readonly controller: AbortController;
}

/**
 * Carries a host's requests to the running turn: the driver attaches its {@link TurnControl} once
 * the turn can take them; a request made before that waits for it, one made after the run ended
 * (or that the run ends before the driver attaches) resolves `false`.
 */
export class TurnControls {
  readonly #descriptor: DriverDescriptor;
  #control: TurnControl | undefined;
  #ended = false;
  #waiters: (() => void)[] = [];
  /** Applies modes to the run's approval broker; what it returns undoes them (see {@link approvalModes}). */
  #applyModes: ((modes: Modes) => (() => void) | void) | undefined;
  /** Where a `permission` switch goes for the check of unasked calls (see {@link onApprovalModes}). */
  #switchPermission: ((permission: ApprovalMode, when: "now" | "cli" | "answered") => void) | undefined;
  /** A `permission` switch made before the run could take it. */
  #pendingPermission: ApprovalMode | undefined;
  /** A `permission` switch made before the turn's controls were attached: the CLI is told when they are. */
  #unsentPermission: ApprovalMode | undefined;
  /** The run's rules as they stand, which a `permission` switch may not stop consulting (see {@link holdRules}). */
  #heldRules: (() => readonly HeldRule[]) | undefined;
  #onInterrupt: (() => void) | undefined;
  #pendingModes: Modes | undefined;
  readonly #interruptBound: InterruptBound | undefined;
  #interruptTimer: ReturnType<typeof setTimeout> | undefined;
  #interruptAsked = false;
  #resolveEnded!: () => void;
  /** Resolves once the run is over or being ended. */
  readonly #ended$ = new Promise<false>((resolve) => (this.#resolveEnded = () => resolve(false)));

  /**
   * @param interruptBound - when given, an interrupt after which the run has not ended within
   * `afterMs` aborts its controller with a DriverError `TIMEOUT` (op `"interrupt"`); once that
   * controller aborts, requests the CLI has not answered resolve `false`.
   */
  constructor(descriptor: DriverDescriptor, interruptBound?: InterruptBound) {
    this.#descriptor = descriptor;
    this.#interruptBound = interruptBound;
    // A run being ended (cancel, timeout, close, the interrupt bound) decides requests the CLI has not answered yet.
    interruptBound?.controller.signal.addEventListener("abort", () => this.#resolveEnded(), { once: true });
  }

  /**
   * True once a host interrupt reached the running turn (`stream.interrupt()` handed to the
   * driver's {@link TurnControl}), whatever the CLI made of it: only then may the driver report
   * the turn `interrupted`.
   */
  get interruptAsked(): boolean {
    return this.#interruptAsked;
  }

  /** For the sink: offers the turn's controls until the returned function withdraws them. */
  attach(control: TurnControl): () => void {
    if (this.#ended) return () => undefined;
    this.#control = control;
    // A switch the host made before the turn started reaches the CLI ahead of the turn's calls
    // (its check applies already); a failure is the turn's, the host's call having resolved.
    const unsent = this.#unsentPermission;
    this.#unsentPermission = undefined;
    if (unsent !== undefined) void control.setApprovalMode?.(unsent)?.catch(() => undefined);
    this.#wake();
    return () => {
      if (this.#control === control) this.#control = undefined;
    };
  }

  /** The run is over: pending and later requests resolve `false`. Idempotent. */
  end(): void {
    this.#ended = true;
    clearTimeout(this.#interruptTimer);
    this.#interruptTimer = undefined;
    this.#resolveEnded();
    this.#control = undefined;
    this.#applyModes = undefined;
    this.#switchPermission = undefined;
    this.#wake();
  }

  /**
   * Refuses, before anything is read or written, a request the driver does not declare (`name`,
   * then `flag`, e.g. `send` then `sendImages`).
   * @throws FeatureUnsupportedError (feature `name`, or `feature` for a missing `flag`).
   */
  require(name: TurnControlName, flag: "sendImages", feature: string, reason: string): void {
    this.#requireDeclared(name);
    const { type, capabilities } = this.#descriptor;
    if (capabilities.turnControl?.[flag] !== true) throw new FeatureUnsupportedError(type, feature, reason);
  }

  /** @throws FeatureUnsupportedError (feature `name`) when the driver does not declare `name`. */
  #requireDeclared(name: TurnControlName): void {
    if (this.#descriptor.capabilities.turnControl?.[name] !== true) {
      throw new FeatureUnsupportedError(this.#descriptor.type, name, "its CLI cannot take this request during a turn");
    }
  }

  /**
   * Runs `call` on the turn's controls: `true` once the CLI took it, `false` when no turn is
   * running any more (also when the driver found the turn ending as it made the request, the run
   * ended before the CLI took it, or the request failed because the turn was over: the run
   * ending, or a DriverError `DEVICE_DISCONNECTED` / `BROKEN_PIPE`, the CLI gone). Rejects with
   * {@link FeatureUnsupportedError} when the driver does not declare `name`, before anything
   * else; with the driver's error when the CLI refused the request during the turn. An interrupt
   * starts the interrupt bound: a run still going `afterMs` later is ended (see the constructor).
   */
  async request(name: TurnControlName, call: (control: TurnControl) => Promise<boolean | void> | undefined): Promise<boolean> {
    this.#requireDeclared(name);
    const { type } = this.#descriptor;
    for (;;) {
      if (this.#ended) return false;
      const control = this.#control;
      if (control) {
        // The approvals the turn waits on end before the CLI is told: the driver answers them
        // (denied) before the turn ends, and their resolution precedes the turn's end.
        if (name === "interrupt") this.#onInterrupt?.();
        const pending = call(control);
        if (!pending) throw new FeatureUnsupportedError(type, name, "the running turn does not offer it");
        if (name === "interrupt") {
          this.#interruptAsked = true;
          this.#boundInterrupt();
        }
        // A CLI that never answers leaves the request pending: the run's end decides it then. A
        // request that failed because the turn was over (the CLI gone, or the run ending) reached no turn.
        const settled = pending.then(
          (taken) => taken !== false,
          (error: unknown) => {
            if (this.#ended || this.#interruptBound?.controller.signal.aborted === true || cliGone(error)) return false;
            throw error;
          },
        );
        return Promise.race([settled, this.#ended$]);
      }
      await new Promise<void>((resolve) => this.#waiters.push(resolve));
    }
  }

  /** For the run: called as an interrupt reaches the running turn, before the driver is told (its approval broker expires the pending asks). */
  onInterrupt(expire: () => void): void {
    this.#onInterrupt = expire;
  }

  /**
   * For the run: the rules it holds (`rules`, read at each switch: those given before the run,
   * then those remembered with answers). A `permission` switch to `auto_approve` while one of them
   * is a deny rule is refused (see {@link approvalModes}); a switch to `auto_deny` is always made. A later call replaces an earlier one
   * (the policy's rules until the run's approval broker holds them).
   */
  holdRules(rules: () => readonly HeldRule[]): void {
    this.#heldRules = rules;
  }

  /**
   * For the run: where approval mode changes go (its approval broker, `apply`, which may return
   * what undoes a change: called when the CLI refuses the switch), and each
   * `permission` switch as the host gave it (`inherit` unresolved) for the check of unasked calls
   * (`switchPermission`: `now`, in effect at once; `cli`, sent to the turn, whose driver reports
   * with an `approval.mode` notice the moment it took effect on the CLI; `answered`, the turn
   * answered that it took it). Earlier changes are applied now.
   */
  onApprovalModes(
    apply: (modes: Modes) => (() => void) | void,
    switchPermission?: (permission: ApprovalMode, when: "now" | "cli" | "answered") => void,
  ): void {
    this.#applyModes = apply;
    this.#switchPermission = switchPermission;
    if (this.#pendingModes) apply(this.#pendingModes);
    this.#pendingModes = undefined;
    if (this.#pendingPermission !== undefined) switchPermission?.(this.#pendingPermission, "now");
    this.#pendingPermission = undefined;
  }

  /**
   * Applies `modes` to the asks of the rest of the run: `true` once applied (before the run's
   * approval broker exists: kept for it), `false` when the run has ended. `inherit` is the kind's
   * default, as at launch. A `permission` switch also goes to the running turn's
   * `TurnControl.setApprovalMode` when the driver offers it (then `true` once the CLI took it,
   * `false` when the turn ended first); one made before the turn's controls were attached is
   * applied to the run's checks at once and sent to the CLI as they are.
   * @throws FeatureUnsupportedError when the driver does not declare `turnControl.approvalMode`;
   * HumanDecisionModeUnsupportedError for a mode its descriptor does not list; InvalidPolicyError
   * (field `approvals.permission`) for a switch to `auto_approve` while the run holds a deny rule
   * (given before the run or remembered with an answer), nothing changed (a switch to `auto_deny`
   * is always made); TypeError for
   * `modes` that is not an object, or an unknown kind; (rejected) the driver's error when the CLI
   * refused the switch during the turn, the run's asks then back under the modes before it.
   */
  approvalModes(modes: ApprovalModes): boolean | Promise<boolean> {
    const { type, capabilities } = this.#descriptor;
    if (capabilities.turnControl?.approvalMode !== true) {
      throw new FeatureUnsupportedError(type, "setApprovalMode", "its CLI decides at launch which tool calls it asks about");
    }
    if (typeof modes !== "object" || modes === null || Array.isArray(modes)) {
      const peer =
        typeof modes === "string"
          ? ` (a permission mode name such as the Claude Agent SDK's setPermissionMode takes: ${JSON.stringify(modes)}; docs/migrating.md maps them)`
          : "";
      throw new TypeError(
        `setApprovalMode: modes must be an object of approval kinds (permission, plan_review, question, elicitation) to modes, e.g. { permission: "auto_approve" }, got ${modes === null ? "null" : Array.isArray(modes) ? "an array" : typeof modes}${peer}`,
      );
    }
    const defaults = resolveApprovalSettings().modes;
    const resolved: Modes = {};
    for (const [kind, mode] of Object.entries(modes) as [ApprovalKind, ApprovalMode | undefined][]) {
      if (!APPROVAL_KINDS.includes(kind)) throw new TypeError(`setApprovalMode: unknown approval kind ${JSON.stringify(kind)}`);
      if (mode === undefined) continue;
      if (mode !== "inherit" && !approvalModes(capabilities, kind).includes(mode))
        throw new HumanDecisionModeUnsupportedError(type, kind, mode);
      resolved[kind] = mode === "inherit" ? defaults[kind] : mode;
    }
    if (this.#ended) return false;
    const refused = modeSwitchError(type, modes.permission, this.#heldRules?.() ?? []);
    if (refused) throw refused;
    let undo: (() => void) | void = undefined;
    if (this.#applyModes) undo = this.#applyModes(resolved);
    else this.#pendingModes = { ...this.#pendingModes, ...resolved };
    const permission = modes.permission;
    if (permission === undefined) return true;
    const control = this.#control;
    const pending = control?.setApprovalMode?.(permission);
    if (!pending) {
      if (!control) this.#unsentPermission = permission;
      if (this.#switchPermission) this.#switchPermission(permission, "now");
      else this.#pendingPermission = permission;
      return true;
    }
    this.#switchPermission?.(permission, "cli");
    const settled = pending.then(
      (taken) => {
        // A driver that answered without its notice: the switch holds from its answer. A turn
        // that ended first did not take it: the run's next turn gets it before its calls.
        if (taken !== false) this.#switchPermission?.(permission, "answered");
        else if (!this.#ended) this.#unsentPermission = permission;
        return taken !== false;
      },
      (error: unknown) => {
        if (this.#ended || this.#interruptBound?.controller.signal.aborted === true || cliGone(error)) return false;
        // The CLI refused it: the asks are decided as the CLI still applies them, under the modes before.
        undo?.();
        throw error;
      },
    );
    return Promise.race([settled, this.#ended$]);
  }

  /** Ends the run like a cancel when it is still going `afterMs` after the first interrupt. */
  #boundInterrupt(): void {
    const bound = this.#interruptBound;
    if (!bound || this.#interruptTimer !== undefined || this.#ended || bound.controller.signal.aborted) return;
    this.#interruptTimer = setTimeout(() => {
      this.#interruptTimer = undefined;
      if (this.#ended) return;
      bound.controller.abort(
        new DriverError({
          op: "interrupt",
          device: this.#descriptor.type,
          code: ErrCode.Timeout,
          cause: `the turn did not end within ${bound.afterMs} ms of the interrupt`,
        }),
      );
    }, bound.afterMs);
    this.#interruptTimer.unref();
  }

  #wake(): void {
    const waiters = this.#waiters;
    this.#waiters = [];
    for (const wake of waiters) wake();
  }
}

/** Whether `error` says the CLI is gone (its connection closed, its stdin broken): its turn is over with it. */
function cliGone(error: unknown): boolean {
  return error instanceof DriverError && (error.code === ErrCode.DeviceDisconnected || error.code === ErrCode.BrokenPipe);
}
