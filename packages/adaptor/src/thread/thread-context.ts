import type { ApprovalDecision } from "@adaptor/driver";
import type { ThreadStore } from "@adaptor/threadstore";
import type { ForkPoint } from "./turn-log.js";

/** A turn that continues a suspended one: which stored approval, and the answer to record first (none: use the stored answer). */
export interface ResumeSpec {
  readonly approvalId: string;
  readonly decision?: ApprovalDecision;
}

/**
 * How a thread run treats the stored conversation (docs/design.md "Thread modes"); `adopt`: when
 * the key has none, continue a session the CLI already has (`agent.thread(key, { adoptSession })`).
 */
export type ThreadMode = "continue_or_start" | "resume_only" | "start_new" | "fork" | "adopt";

/** What a thread run needs beyond an ordinary run. */
export interface ThreadContext {
  readonly store: ThreadStore;
  readonly key: string;
  readonly mode: ThreadMode;
  /** The parent key of a fork. */
  readonly parentKey?: string;
  /** The parent's turn a fork branches at; absent: its latest. */
  readonly forkAt?: ForkPoint;
  /** The CLI's own session id an `adopt` run continues when the key has no conversation. */
  readonly adoptSession?: string;
  /** Host identity stored with the record and part of the fingerprint. */
  readonly identity: string;
  /** Lease owner (this agent). */
  readonly owner: string;
  /** Lease time-to-live in ms; renewed every third of it during the run. */
  readonly leaseTtlMs: number;
  /** The workspace's name in the fingerprint; default the run's cwd, else the driver's, else `process.cwd()`. */
  readonly workspace?: string | undefined;
  /** The most bytes (compressed) a thread's stored session state may hold (portable sessions). */
  readonly sessionStateLimitBytes: number;
  /** Portable sessions: what a turn whose session files cannot be stored does (see `AgentOptions.sessionPortability`). */
  readonly sessionPortability: "best_effort" | "strict";
  /** Exact version (`id#revision`) of the record this agent committed last for the key, if any. */
  readonly lastCommitted?: string | undefined;
  /** Called with the version of the record a run committed. */
  readonly onCommitted?: (version: string) => void;
  /** Present when the turn continues a suspended one (`thread.answer()`, `thread.resume()`). */
  readonly resume?: ResumeSpec;
}
