import type { ApprovalHandler } from "../approval/approval-broker.js";
import type { Policy } from "../policy/policy.js";

/**
 * Options shared by the Agent (defaults) and each call (overrides). Call values replace agent
 * values; `env` and `metadata` merge by key, the call's keys winning.
 */
export interface SharedRunOptions {
  /** Model id passed to the CLI, e.g. `"claude-sonnet-4-5"`. */
  readonly model?: string;
  /** Working directory of the CLI (the workspace). Default: the driver's, else `process.cwd()`. */
  readonly cwd?: string;
  /** Extra environment for the CLI, merged over the driver's. */
  readonly env?: Readonly<Record<string, string>>;
  /** Wall-clock limit in ms; on expiry the run is cancelled and rejects with a `DriverError` `TIMEOUT`. */
  readonly timeoutMs?: number;
  /** Decides approval requests; without it, answer the `approval-request` events. */
  readonly onApproval?: ApprovalHandler;
  /** Run policy: sandbox, web search, browser, active-execution budget, approvals. A call's policy replaces the agent's whole value. */
  readonly policy?: Policy;
  /** Host metadata, merged by key and passed to the driver. */
  readonly metadata?: Readonly<Record<string, unknown>>;
}

/** Options of one `agent.run()` / `agent.stream()` call. */
export interface RunOptions extends SharedRunOptions {
  /** Aborting it cancels the run; the verdict is then an ordinary error (never `ErrRunCancelled`). */
  readonly signal?: AbortSignal;
}

/** Options of `new Agent(driver, options)`. */
export interface AgentOptions extends SharedRunOptions {
  /** Events buffered per stream before high-frequency deltas are dropped. Default 1024. */
  readonly eventBuffer?: number;
}

/** Call options merged over agent defaults. */
export function mergeRunOptions(agent: AgentOptions, call: RunOptions): RunOptions {
  const env = agent.env || call.env ? { ...agent.env, ...call.env } : undefined;
  const metadata = agent.metadata || call.metadata ? { ...agent.metadata, ...call.metadata } : undefined;
  const { eventBuffer: _ignored, ...shared } = agent;
  return { ...shared, ...call, ...(env ? { env } : {}), ...(metadata ? { metadata } : {}) };
}
