import type { PolicyEnforcement } from "./enforcement.js";

/** Token counts as the CLI reported them. */
export interface Usage {
  /** Prompt tokens. */
  readonly inputTokens: number;
  /** Completion tokens. */
  readonly outputTokens: number;
  /** Prompt tokens read from the provider's cache, when reported. */
  readonly cacheReadTokens?: number;
  /** Prompt tokens written to the provider's cache, when reported. */
  readonly cacheWriteTokens?: number;
  /**
   * Completion tokens the model spent reasoning, counted within {@link outputTokens}, when the CLI
   * reports them (Codex: the OpenAI API's `reasoning_output_tokens`; Claude Code reports none).
   */
  readonly reasoningTokens?: number;
}

/**
 * One model's share of a run: its token counts and, when the CLI prices them, their cost (the
 * Claude Agent SDK's `modelUsage` entry, in the SDK's terms).
 */
export interface ModelUsage extends Usage {
  /** Cost in US dollars of this model's tokens in the run, when the CLI reports it. */
  readonly costUsd?: number;
}

/**
 * A tool call the run's permission checks refused, so it did not run (the Claude Agent SDK's
 * `permission_denials` entry, in the SDK's terms).
 */
export interface PermissionDenial {
  /** The tool, as the CLI names it (e.g. `"Bash"`, `"mcp__adaptor__lookup"`). */
  readonly toolName: string;
  /** The provider's tool call id, as on the `tool-call` event. */
  readonly toolCallId: string;
  /** The input the model gave the call. */
  readonly input: unknown;
}

/** Reasons of a classified business failure (docs/errors.md "Business failures"); unknown codes pass through. */
export type FailureReason =
  | "approval_denied"
  | "approval_timeout"
  | "agent_error"
  | "cancelled"
  | "policy_violation"
  /**
   * The CLI has no such session to resume (`request.session` is unknown to it); the SDK may start
   * fresh. With `details.historyIncomplete: true` the CLI knows the session but lacks part of the
   * history it continues (e.g. the parent a fork was made from): the SDK never starts fresh then
   * (`ErrResumeRejected`), as that would silently drop the history this host lacks.
   */
  | "resume_rejected"
  /**
   * The CLI refused to continue `request.session` because another process is writing to it (a
   * live writer, a lock). Nothing ran; the session is intact. A thread run reports `ErrThreadBusy`
   * with a `BusyError` cause whose `owner` is `details.holder` (a string naming the writer, when the
   * driver knows it) and whose `expiresAt` is now plus `details.retryAfterMs` (when the writer lets
   * go at the latest, as far as the driver can tell; else the thread's lease TTL).
   */
  | "session_busy"
  | (string & {});

/** A business failure the driver classified; the SDK turns it into a `RunError`. */
export interface DriverFailure {
  /** Failure reason; becomes `RunError.reason`. */
  readonly reason: FailureReason;
  /** For people; for API errors, the API's own message. */
  readonly message: string;
  /** Structured detail, e.g. `{ apiErrorStatus: 400 }`; becomes `RunError.details`. */
  readonly details?: Readonly<Record<string, unknown>>;
  /** The underlying error, when there is one; becomes `RunError.cause`. */
  readonly cause?: unknown;
}

/** One item of the driver-parsed transcript (assistant text, tool call, tool result, ...). */
export interface TranscriptItem {
  /** What the item is. */
  readonly kind: "user" | "assistant" | "thinking" | "tool-call" | "tool-result" | "system";
  /** Text of a message, thinking block or tool result. */
  readonly text?: string;
  /** Provider tool call id, for tool calls and results. */
  readonly toolCallId?: string;
  /** Tool name, for tool calls and results. */
  readonly toolName?: string;
  /** Tool input, for tool calls. */
  readonly input?: unknown;
  /** True for a failed or denied tool result. */
  readonly isError?: boolean;
  /** For a tool result: the shell command's exit code, as on the `tool-result` event (`ToolResultEvent.exitCode`). */
  readonly exitCode?: number;
}

/**
 * What the CLI wrote during the run, kept for audit. Drivers keep a bounded tail of each stream (the
 * built-in drivers: the last `maxRawBytes`, default 1 MiB, of each) and report the real byte counts,
 * so a long run never holds its whole output in memory.
 */
export interface RawStreams {
  /** stdout of the run, or its last bytes when `stdoutTruncated` (UTF-8; a character cut at the bound is dropped). */
  readonly stdout: string;
  /** stderr of the run, or its last bytes when `stderrTruncated`. */
  readonly stderr: string;
  /** Bytes the CLI wrote to stdout during the run, kept or not. Absent when the driver did not count. */
  readonly stdoutBytes?: number;
  /** Bytes the CLI wrote to stderr during the run, kept or not. Absent when the driver did not count. */
  readonly stderrBytes?: number;
  /** True when `stdout` holds only the tail of the run's stdout (older bytes were dropped). */
  readonly stdoutTruncated?: boolean;
  /** True when `stderr` holds only the tail of the run's stderr. */
  readonly stderrTruncated?: boolean;
  /** The official terminal line: its event name and exact JSON text. */
  readonly terminal?: { readonly event: string; readonly json: string };
}

/** Where a conversation can be resumed from. */
export interface Checkpoint {
  /** The id the CLI resumes by (Claude: `session_id`). */
  readonly resumeId: string;
  /** A second id for people, when the CLI has one. */
  readonly displayId?: string;
  /**
   * Driver-owned state at this checkpoint (JSON-serialisable), stored with it and handed back as
   * `request.session.data` to the turn that resumes or forks from it. Default: none.
   */
  readonly data?: unknown;
}

/** What {@link Driver.run} resolves with, for success and for classified failures alike. */
export interface DriverResponse {
  /** Final assistant text (never stdout or terminal JSON). */
  readonly text: string;
  /** Natively enforced structured value, when the CLI returned one. */
  readonly structured?: unknown;
  /** Model the CLI reported. */
  readonly model?: string;
  /** Model provider the CLI reported. */
  readonly provider?: string;
  /** Undefined when the CLI reported none; zeros when it reported zeros. */
  readonly usage?: Usage;
  /** Cost in US dollars, when the CLI reports it. */
  readonly costUsd?: number;
  /**
   * Model responses of the main conversation in this run (a subagent's are not counted): one per
   * `model.response` notice. Absent when the driver cannot count them.
   */
  readonly numTurns?: number;
  /** Time in ms this run's model API requests took, when the CLI reports it (Claude's `duration_api_ms` share). */
  readonly durationApiMs?: number;
  /**
   * This run's usage per model id (a subagent's or a fallback model's tokens under its own id),
   * when the CLI reports it per model. It counts every model request the CLI made for the run, so
   * its sums may exceed `usage` where the CLI reports that for the main conversation only.
   */
  readonly modelUsage?: Readonly<Record<string, ModelUsage>>;
  /**
   * The tool calls the run's permission checks refused, in order, when the driver knows them (the
   * CLI reports them, or the driver saw the host's decisions on every call the CLI asked about);
   * an empty list: none was refused.
   */
  readonly permissionDenials?: readonly PermissionDenial[];
  /**
   * The parsed transcript, in order. The SDK reads it only when the host first asks the Result for
   * its transcript, so a driver whose turns can hold very many items may make this a getter that
   * builds them then (see `TranscriptLog` in `@adaptor/driver/kit`); it must give the same items
   * on every read.
   */
  readonly transcript: readonly TranscriptItem[];
  /** The CLI's raw output, for audit. */
  readonly raw: RawStreams;
  /** Present only after an official success terminal with a resume id. */
  readonly checkpoint?: Checkpoint;
  /**
   * True when the host interrupted the turn (`TurnControl.interrupt`) and the CLI stopped it: a
   * success carrying the partial output and the checkpoint after it, never a `failure`. Only then:
   * the SDK treats `true` on a turn no host interrupt reached as a completed turn (with a
   * `driver.contract` notice), and conformance clause 3.5 fails a driver that says it.
   */
  readonly interrupted?: boolean;
  /** Present when the run completed but failed (a business failure). */
  readonly failure?: DriverFailure;
  /**
   * Which explicitly requested parts of `request.policy` the driver enforced and how (one entry per
   * field; unset and `inherit` fields are not listed). Absent: the driver reported nothing (a
   * driver outside this repository); the built-in drivers always report.
   */
  readonly enforcement?: readonly PolicyEnforcement[];
  /**
   * How the CLI process ended, when it ended during the run (a reused process has not). A response
   * without a failure whose exit has a non-zero `code` is taken for a crash: the SDK makes the
   * verdict an `agent_error` (`details.exitCode`, `details.driverClaimedSuccess`), unless
   * `endedByDriver` says the driver itself ended the process after the turn (closing its stdin,
   * SIGTERM), so that its code says nothing about the turn.
   */
  readonly exit?: { readonly code: number | null; readonly signal: string | null; readonly endedByDriver?: boolean };
}
