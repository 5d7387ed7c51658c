import type { ApprovalDecision, Prompt, RememberRule, Result, RunOptions } from "adaptor";

/** One stored event of a fleet run, as `RunHandle.events()` of `@adaptor/fleet` yields it. */
export interface BridgeFleetEvent {
  /** Per run, from 1, increasing by one across attempts. */
  readonly sequence: number;
  /** The attempt that emitted it. */
  readonly attempt: number;
  /** When it was stored, ISO 8601. */
  readonly recordedAt: string;
  /** `attempt-started`, one of the SDK's events as JSON, or the final `verdict`. */
  readonly event: { readonly type: string };
}

/** A run of a fleet, as the bridge uses it: what `RunHandle` of `@adaptor/fleet` offers. */
export interface BridgeFleetRun {
  /** The run's id (a UUID). */
  readonly id: string;
  /**
   * The run's events after `after` (replayed from the database, then live), ending with the
   * `verdict` event; with `follow: false`, ending after the events stored when the read reaches
   * them (the bridge reads so before a reconnect's headers go out, to answer a refused read with
   * its status: an implementation that ignores it holds such a reconnect until the run's first event).
   */
  events(options?: { readonly after?: number; readonly signal?: AbortSignal; readonly follow?: boolean }): AsyncIterable<BridgeFleetEvent>;
  /** The run's verdict: resolves the `Result` or rejects with the verdict's error. */
  result(options?: { readonly signal?: AbortSignal }): Promise<Result>;
  /** Cancels the run from any host; resolves whether this call settled it. */
  cancel(reason?: string): Promise<boolean>;
  /**
   * What the run was submitted with, and the sequence of its newest stored event (0 before any:
   * no event read anywhere so far has a later one); rejects for an unknown run.
   */
  info(): Promise<{ readonly threadKey: string | undefined; readonly settled: boolean; readonly lastSequence: number }>;
}

/**
 * A fleet, as the bridge fronts it: `Fleet` of `@adaptor/fleet` (any object with these methods).
 * The bridge submits runs to it and serves their stored events; workers elsewhere run them.
 */
export interface BridgeFleet {
  /**
   * Submits a run (`runId`: a UUID the bridge derives from an AG-UI `runId`; `prompt`: the text, or
   * the text and images as base64 `data:` URL parts when the client sent images). With `resume`, the
   * run resumes the thread's suspended turn: a worker answers the stored approval with the decision
   * and runs the turn on; a resume of an approval another run resumes (or resumed) is refused
   * with `ApprovalNotPendingError`.
   */
  submit(
    prompt: Prompt,
    options: {
      readonly threadKey?: string;
      readonly runOptions?: RunOptions;
      readonly runId?: string;
      readonly resume?: { readonly approvalId: string; readonly decision: ApprovalDecision };
    },
  ): Promise<BridgeFleetRun>;
  /** The handle of a run submitted on any host. */
  handle(runId: string): BridgeFleetRun;
  /**
   * Records the answer to an approval a worker waits on, exactly once across hosts. `remember`
   * (an approve or a deny): the rule the worker's run remembers with it; a refused rule throws
   * `InvalidOptionError` (field `remember` or `remember.<field>`) and nothing is recorded.
   */
  answer(approvalId: string, decision: ApprovalDecision & { readonly remember?: RememberRule }): Promise<void>;
  /**
   * An approval with its state (`pending`, `answered`, `closed`) and, once answered, the decision
   * recorded (its `outcome` says how the 409 of a later answer reads), or undefined for an unknown id.
   */
  approval(approvalId: string): Promise<
    | {
        readonly runId: string;
        readonly request: unknown;
        readonly status: "pending" | "answered" | "closed";
        readonly decision?: { readonly outcome: "approve" | "deny" | "answer" };
      }
    | undefined
  >;
}
