import { AdaptorError, DriverError } from "@adaptor/errors";
import { Result, RunError, StructuredOutput, type ResultInit, type StructuredOutputInit } from "adaptor";
import { toJsonEvent, type JsonValue } from "@adaptor/sessionrecorder";
import {
  FleetAttemptsExhaustedError,
  FleetRemoteError,
  FleetRunCancelledError,
  FleetRunExpiredError,
  type StoredError,
} from "../errors/fleet-errors.js";

/**
 * A `Result` as stored: its fields, JSON. `structuredOutput`: the checked answer of a run with a
 * schema (`source`, `schema`, `schemaName`, `present`, `value`, `errors`); `structured`: the value
 * `decode()` returns beyond what the text parses to (a native value without a schema, or, in
 * verdicts of earlier versions, a valid checked value); `interrupted`: set when the host interrupted
 * the turn. The raw streams, the transcript and the terminal line are stored whole as the worker
 * kept them (the streams each capped by the driver's `maxRawBytes`).
 */
export type StoredResult = { readonly [K in keyof ResultInit]?: JsonValue } & {
  readonly runId: string;
  readonly text: string;
  readonly structuredOutput?: JsonValue;
};

/**
 * A run's one verdict as PostgreSQL keeps it (`kind`): `result` (the run resolved), `run-error` (a
 * business failure with its partial result), `error` (anything else, its chain), `cancelled`
 * (through a handle), `attempts-exhausted` (every attempt lost its worker, the last one perhaps
 * drained).
 */
export type StoredVerdict =
  | { readonly kind: "result"; readonly result: StoredResult; readonly recovered?: boolean }
  | {
      readonly kind: "run-error";
      readonly reason: string;
      readonly message: string;
      readonly details: JsonValue;
      readonly result: StoredResult;
      readonly cause?: StoredError;
    }
  | {
      readonly kind: "error";
      readonly error: StoredError;
      /**
       * Set when the run expired unstarted (its queue deadline, ms): read as `FleetRunExpiredError`.
       * Stored as an `error` verdict so that hosts of versions before queue deadlines, which know
       * no other kind, read it as a `FleetRemoteError` of the same name, message, code and sentinel.
       */
      readonly expired?: { readonly queueDeadlineMs: number };
    }
  | { readonly kind: "cancelled"; readonly reason?: string }
  | {
      readonly kind: "attempts-exhausted";
      readonly attempts: number;
      /** Set when the last attempt's worker was drained and wrote this verdict (read as `drained`). */
      readonly drained?: boolean;
    };

const MAX_CHAIN = 8;

/**
 * The members of a stored `Result` kept only in the run's row, not in its `verdict` event: the
 * bulky ones beside the text (the raw streams with the terminal line, the transcript).
 */
const ROW_ONLY = ["raw", "transcript"] as const;

/**
 * The `verdict` event's body for `verdict` (which the run's row keeps whole): the verdict without
 * the bulky members of its Result ({@link ROW_ONLY}), and `inRow` naming what was left out, so a
 * reader takes the whole verdict from the row (see {@link wholeVerdictEvent}). A verdict without a
 * Result, or whose Result has none of them, is the event as it always was.
 */
export function verdictEventBody(verdict: StoredVerdict): { type: "verdict"; verdict: StoredVerdict; inRow?: string[] } {
  if (verdict.kind !== "result" && verdict.kind !== "run-error") return { type: "verdict", verdict };
  const result: Record<string, unknown> = { ...verdict.result };
  const inRow = ROW_ONLY.filter((member) => member in result);
  if (inRow.length === 0) return { type: "verdict", verdict };
  for (const member of inRow) delete result[member];
  return { type: "verdict", verdict: { ...verdict, result: result as StoredResult }, inRow: inRow.map((m) => `result.${m}`) };
}

/**
 * A stored `verdict` event as every reader gets it: with the whole verdict (`rowVerdict()`, the run's
 * row) when the event left members to the row (`inRow`), else as stored (events of earlier
 * versions carry the whole verdict).
 */
export async function wholeVerdictEvent(
  event: { type: "verdict"; verdict: StoredVerdict; inRow?: unknown },
  rowVerdict: () => Promise<StoredVerdict | null | undefined>,
): Promise<{ type: "verdict"; verdict: StoredVerdict }> {
  if (event.inRow === undefined) return event;
  const verdict = await rowVerdict();
  if (!verdict) throw new Error("fleet: a verdict event without its run's verdict");
  return { type: "verdict", verdict };
}

/** The verdict of run `runId` expired unstarted past its queue deadline (`queueDeadlineMs`). */
export function expiredVerdict(runId: string, queueDeadlineMs: number): StoredVerdict {
  const error = new FleetRunExpiredError(runId, queueDeadlineMs);
  return {
    kind: "error",
    error: { name: error.name, message: error.message, code: error.code, sentinels: error.sentinels.map((s) => s.id) },
    expired: { queueDeadlineMs },
  };
}

/** The stored form of an error chain (at most 8 deep). */
export function storeError(err: unknown, depth = 0): StoredError {
  if (!(err instanceof Error)) return { name: "Error", message: String(err), sentinels: [] };
  const sentinels = err instanceof AdaptorError ? err.sentinels.map((s) => s.id) : [];
  const code = err instanceof DriverError ? err.code : undefined;
  const reason = (err as { reason?: unknown }).reason;
  const cause = (err as { cause?: unknown }).cause;
  return {
    name: err.name,
    message: err.message,
    ...(code ? { code } : {}),
    ...(typeof reason === "string" ? { reason } : {}),
    sentinels,
    ...(cause !== undefined && depth < MAX_CHAIN ? { cause: storeError(cause, depth + 1) } : {}),
  };
}

/**
 * The stored form of a `Result`: every field `loadResult` gives back, so the Result a host reads
 * through the fleet is the worker's, field for field (dates as ISO text, a zod schema's parsed value
 * as JSON carries it).
 */
export function storeResult(result: Result): StoredResult {
  const checked = result.structuredOutput;
  return toJsonEvent({
    runId: result.runId,
    model: result.model,
    provider: result.provider,
    text: result.text,
    sessionId: result.sessionId,
    usage: result.usage,
    costUsd: result.costUsd,
    durationMs: result.durationMs,
    numTurns: result.numTurns,
    durationApiMs: result.durationApiMs,
    modelUsage: result.modelUsage,
    permissionDenials: result.permissionDenials,
    structuredOutput: checked && {
      source: checked.source,
      schema: checked.schema,
      schemaName: checked.schemaName,
      present: checked.present,
      value: checked.value,
      errors: checked.errors,
    },
    structured: checked ? undefined : decodedBeyondText(result),
    raw: result.raw(),
    transcript: result.transcript(),
    pendingApproval: result.pendingApproval,
    interrupted: result.status === "interrupted" ? true : undefined,
    enforcement: result.enforcement.length > 0 ? result.enforcement : undefined,
  }) as StoredResult;
}

/**
 * What `decode()` of a Result without a schema returns when the text alone would not give it back:
 * the native structured value the driver reported (e.g. the JSON inside a fenced answer); undefined
 * when `decode()` is `JSON.parse(text)` or throws.
 */
function decodedBeyondText(result: Result): unknown {
  let decoded: unknown;
  try {
    decoded = result.decode();
  } catch {
    return undefined;
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(result.text);
  } catch {
    return decoded;
  }
  return JSON.stringify(parsed) === JSON.stringify(decoded) ? undefined : decoded;
}

/** The stored verdict of what a run's `result()` settled with. */
export function storeOutcome(outcome: { ok: true; value: Result } | { ok: false; error: unknown }): StoredVerdict {
  if (outcome.ok) return { kind: "result", result: storeResult(outcome.value) };
  const err = outcome.error;
  if (err instanceof RunError) {
    const cause = (err as { cause?: unknown }).cause;
    return {
      kind: "run-error",
      reason: err.reason,
      message: err.message,
      details: toJsonEvent(err.details),
      result: storeResult(err.result),
      ...(cause !== undefined ? { cause: storeError(cause) } : {}),
    };
  }
  return { kind: "error", error: storeError(err) };
}

/**
 * What `RunHandle.result()` resolves: the worker's `Result`, field for field, and whether it was
 * recovered.
 */
export interface FleetResult extends Result {
  /**
   * True when the attempt that ran the turn committed it to the thread store and then lost its
   * worker before writing the verdict, so a later attempt settled the run with what was kept: the
   * text, model, `sessionId` (the committed thread record's) and the transcript come from that
   * attempt's logged events; `usage`, `costUsd`, `durationMs` (0), `numTurns`, `durationApiMs`,
   * `modelUsage`, `permissionDenials` and `raw()` (empty) went with the worker. False for a Result the worker that ran the turn wrote.
   */
  readonly recovered: boolean;
}

/** A Result read from its stored verdict, with {@link FleetResult.recovered}. */
class LoadedResult extends Result implements FleetResult {
  readonly recovered: boolean;
  constructor(init: ResultInit, recovered: boolean) {
    super(init);
    this.recovered = recovered;
  }
}

function loadResult(stored: StoredResult, recovered = false): FleetResult {
  const s = stored as Record<string, unknown>;
  const pending = s.pendingApproval as Record<string, unknown> | undefined;
  const checked = s.structuredOutput as (Omit<StructuredOutputInit, "errors"> & { errors?: StructuredOutputInit["errors"] }) | undefined;
  return new LoadedResult(
    {
      runId: stored.runId,
      model: s.model as string | undefined,
      provider: s.provider as string | undefined,
      text: stored.text,
      sessionId: s.sessionId as string | undefined,
      usage: s.usage as ResultInit["usage"],
      costUsd: s.costUsd as number | undefined,
      durationMs: (s.durationMs as number | undefined) ?? 0,
      numTurns: s.numTurns as number | undefined,
      durationApiMs: s.durationApiMs as number | undefined,
      modelUsage: s.modelUsage as ResultInit["modelUsage"],
      permissionDenials: s.permissionDenials as ResultInit["permissionDenials"],
      structured: checked ? new StructuredOutput({ ...checked, errors: checked.errors ?? [] }) : s.structured,
      raw: (s.raw as ResultInit["raw"] | undefined) ?? { stdout: "", stderr: "" },
      transcript: (s.transcript as ResultInit["transcript"] | undefined) ?? [],
      pendingApproval: pending
        ? ({
            ...pending,
            createdAt: new Date(pending.createdAt as string),
            ...(pending.deadline ? { deadline: new Date(pending.deadline as string) } : {}),
            ...(pending.resolvedAt ? { resolvedAt: new Date(pending.resolvedAt as string) } : {}),
          } as unknown as ResultInit["pendingApproval"])
        : undefined,
      interrupted: s.interrupted === true ? true : undefined,
      enforcement: s.enforcement as ResultInit["enforcement"],
    },
    recovered,
  );
}

/**
 * What `result()` settles with for a stored verdict, the same on every host: a `Result` to resolve,
 * or the error to reject with (`RunError`, a typed fleet error, or a {@link FleetRemoteError}).
 */
export function loadVerdict(runId: string, verdict: StoredVerdict): { ok: true; value: FleetResult } | { ok: false; error: Error } {
  switch (verdict.kind) {
    case "result":
      return { ok: true, value: loadResult(verdict.result, verdict.recovered === true) };
    case "run-error":
      return {
        ok: false,
        error: new RunError({
          reason: verdict.reason as RunError["reason"],
          message: verdict.message,
          details: (verdict.details ?? {}) as Record<string, unknown>,
          result: loadResult(verdict.result),
          ...(verdict.cause ? { cause: new FleetRemoteError(verdict.cause) } : {}),
        }),
      };
    case "cancelled":
      return { ok: false, error: new FleetRunCancelledError(runId, verdict.reason) };
    case "attempts-exhausted":
      return { ok: false, error: new FleetAttemptsExhaustedError(runId, verdict.attempts, { drained: verdict.drained === true }) };
    case "error":
      if (verdict.expired) return { ok: false, error: new FleetRunExpiredError(runId, verdict.expired.queueDeadlineMs) };
      return { ok: false, error: new FleetRemoteError(verdict.error) };
  }
}
