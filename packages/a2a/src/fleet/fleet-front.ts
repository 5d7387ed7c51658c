import type { ApprovalDecision, RememberRule, Result, RunOptions } from "adaptor";

/**
 * One event of a fleet run's log, as `@adaptor/fleet`'s `RunHandle.events` yields it: `event` is
 * `attempt-started`, one of the SDK's events as JSON, or the final `verdict`.
 */
export interface A2AFleetEvent {
  /** Per run, from 1, increasing by one. */
  readonly sequence: number;
  /** The event; its other fields depend on `type`. */
  readonly event: { readonly type: string };
}

/** What the A2A server uses of a fleet run's handle (`@adaptor/fleet`'s `RunHandle` has it). */
export interface A2AFleetRun {
  /** The run's events after `after`, then live ones up to the verdict (with `follow: false`, only those stored now). */
  events(options?: { readonly after?: number; readonly signal?: AbortSignal; readonly follow?: boolean }): AsyncIterable<A2AFleetEvent>;
  /** The run's verdict: its `Result`, or the error it settled with (`RunError`, ...). */
  result(options?: { readonly signal?: AbortSignal }): Promise<Result>;
  /** Cancels the run from any host; resolves whether this call settled it. */
  cancel(reason?: string): Promise<boolean>;
  /** The approvals the run's current attempt waits on, oldest first, each with its request's fields as JSON. */
  pendingApprovals(): Promise<readonly { readonly id: string; readonly request: unknown }[]>;
}

/** The run options a fleet run carries (JSON only: handlers, tools and schemas live on the workers' Agent). */
export type A2AFleetRunOptions = Omit<RunOptions, "signal" | "onApproval" | "schema" | "spawn"> & { readonly spawn?: boolean };

/**
 * What the A2A server uses of a fleet: an `@adaptor/fleet` `Fleet` (started or not) fits as it is.
 * Any host may submit, read, answer and cancel; workers on other hosts run the runs.
 */
export interface A2AFleet {
  /** Queues a run (the next turn of `threadKey` when given) and returns its handle. */
  submit(
    prompt: string,
    options: { readonly threadKey?: string; readonly runOptions?: A2AFleetRunOptions },
  ): Promise<A2AFleetRun & { readonly id: string }>;
  /** The handle of a run submitted on any host. */
  handle(runId: string): A2AFleetRun;
  /**
   * Answers a waiting approval exactly once across hosts.
   * `remember` (an approve or a deny): the rule the run remembers with it.
   * @throws `ApprovalNotPendingError` when it is not pending (`status` `"answered"` or `"unknown"`);
   *   `InvalidOptionError` (field `remember` or `remember.<field>`) for a rule it refuses (nothing recorded).
   */
  answer(approvalId: string, decision: ApprovalDecision & { readonly remember?: RememberRule }): Promise<void>;
}
