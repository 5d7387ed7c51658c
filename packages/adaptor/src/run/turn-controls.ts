import {
  FeatureUnsupportedError,
  HumanDecisionModeUnsupportedError,
  type ApprovalKind,
  type ApprovalMode,
  type ApprovalModes,
  type DriverDescriptor,
  type TurnControl,
} from "@adaptor/driver";
import { resolveApprovalSettings } from "../approval/approval-settings.js";

/** Approval modes per kind, as the SDK's approval broker applies them. */
type Modes = { -readonly [K in ApprovalKind]?: ApprovalMode };
const KINDS: readonly ApprovalKind[] = ["permission", "plan_review", "question"];

/** The stream methods that act on a running turn, by their descriptor flag. */
export type TurnControlName = "interrupt" | "send" | "setModel";

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
  #applyModes: ((modes: Modes) => void) | undefined;
  #pendingModes: Modes | undefined;

  constructor(descriptor: DriverDescriptor) {
    this.#descriptor = descriptor;
  }

  /** For the sink: offers the turn's controls until the returned function withdraws them. */
  attach(control: TurnControl): () => void {
    if (this.#ended) return () => undefined;
    this.#control = control;
    this.#wake();
    return () => {
      if (this.#control === control) this.#control = undefined;
    };
  }

  /** The run is over: pending and later requests resolve `false`. Idempotent. */
  end(): void {
    this.#ended = true;
    this.#control = undefined;
    this.#applyModes = undefined;
    this.#wake();
  }

  /**
   * Refuses, before anything is read or written, a request the driver does not declare (`name`,
   * then `flag`, e.g. `send` then `sendImages`).
   * @throws FeatureUnsupportedError (feature `name`, or `feature` for a missing `flag`).
   */
  require(name: TurnControlName, flag: "sendImages", feature: string, reason: string): void {
    const { type, capabilities } = this.#descriptor;
    if (capabilities.turnControl?.[name] !== true) {
      throw new FeatureUnsupportedError(type, name, "its CLI cannot take this request during a turn");
    }
    if (capabilities.turnControl[flag] !== true) throw new FeatureUnsupportedError(type, feature, reason);
  }

  /**
   * Runs `call` on the turn's controls: `true` once the CLI took it, `false` when no turn is
   * running any more (also when the driver found the turn ending as it made the request). Rejects with {@link FeatureUnsupportedError} when the driver does not declare
   * `name`, before anything else.
   */
  async request(name: TurnControlName, call: (control: TurnControl) => Promise<boolean | void> | undefined): Promise<boolean> {
    const { type, capabilities } = this.#descriptor;
    if (capabilities.turnControl?.[name] !== true) {
      throw new FeatureUnsupportedError(type, name, "its CLI cannot take this request during a turn");
    }
    for (;;) {
      if (this.#ended) return false;
      const control = this.#control;
      if (control) {
        const pending = call(control);
        if (!pending) throw new FeatureUnsupportedError(type, name, "the running turn does not offer it");
        return (await pending) !== false;
      }
      await new Promise<void>((resolve) => this.#waiters.push(resolve));
    }
  }

  /** For the run: where approval mode changes go (its approval broker); earlier changes are applied now. */
  onApprovalModes(apply: (modes: Modes) => void): void {
    this.#applyModes = apply;
    if (this.#pendingModes) apply(this.#pendingModes);
    this.#pendingModes = undefined;
  }

  /**
   * Applies `modes` to the asks of the rest of the run: `true` once applied (before the run's
   * approval broker exists: kept for it), `false` when the run has ended. `inherit` is the kind's
   * default, as at launch.
   * @throws FeatureUnsupportedError when the driver does not declare `turnControl.approvalMode`;
   * HumanDecisionModeUnsupportedError for a mode its descriptor does not list; TypeError for
   * `modes` that is not an object, or an unknown kind.
   */
  approvalModes(modes: ApprovalModes): boolean {
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
        `setApprovalMode: modes must be an object of approval kinds (permission, plan_review, question) to modes, e.g. { permission: "auto_approve" }, got ${modes === null ? "null" : Array.isArray(modes) ? "an array" : typeof modes}${peer}`,
      );
    }
    const defaults = resolveApprovalSettings().modes;
    const resolved: Modes = {};
    for (const [kind, mode] of Object.entries(modes) as [ApprovalKind, ApprovalMode | undefined][]) {
      if (!KINDS.includes(kind)) throw new TypeError(`setApprovalMode: unknown approval kind ${JSON.stringify(kind)}`);
      if (mode === undefined) continue;
      if (mode !== "inherit" && !capabilities.approvals[kind].includes(mode)) throw new HumanDecisionModeUnsupportedError(type, kind, mode);
      resolved[kind] = mode === "inherit" ? defaults[kind] : mode;
    }
    if (this.#ended) return false;
    if (this.#applyModes) this.#applyModes(resolved);
    else this.#pendingModes = { ...this.#pendingModes, ...resolved };
    return true;
  }

  #wake(): void {
    const waiters = this.#waiters;
    this.#waiters = [];
    for (const wake of waiters) wake();
  }
}
