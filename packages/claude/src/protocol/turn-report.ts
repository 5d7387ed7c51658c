import type { ModelUsage, PermissionDenial } from "@adaptor/driver";
import type { ResultLine } from "@adaptor/driver/kit";
import { CLAUDE_TOOL_ALIASES } from "./foreground-agents.js";
import { roundCost } from "./turn-cost.js";

/** What a turn's `result` lines say beyond its text, usage and cost, in the SDK's terms. */
export interface TurnReport {
  /**
   * Model responses of the main conversation: the lines' `num_turns`, summed (they count more in
   * places, e.g. the interrupt's own messages, one more on `error_max_turns` or for the
   * StructuredOutput tool's round: the session reports the responses the turn read instead).
   */
  readonly numTurns?: number;
  /** The turn's share of the session's running API time (`duration_api_ms`), in ms. */
  readonly durationApiMs?: number;
  /** Per model, what the turn used and cost (`model_usage_since_last_result`), summed. */
  readonly modelUsage?: Readonly<Record<string, ModelUsage>>;
  /** The tool calls the CLI's permission checks refused (`permission_denials`), in order. */
  readonly permissionDenials?: readonly PermissionDenial[];
}

/** The session's running API time before a turn, for {@link apiDurationMs}. */
export interface ApiTimeBaseline {
  /** `duration_api_ms` of the last result line on the same process that reported one (not a local command's). */
  readonly previousTotal?: number;
  /** The process started a new session (no `--resume`) and has written no result yet: the running total starts at 0. */
  readonly freshSession: boolean;
}

/**
 * The running API time `line` reports, when it is one: a local command's result (`/compact`)
 * reports 0 whatever the session's total, so it is none.
 */
export function apiTimeTotal(line: ResultLine): number | undefined {
  const total = line.duration_api_ms;
  if (line.local_command !== undefined || typeof total !== "number" || !Number.isFinite(total) || total < 0) return undefined;
  return total;
}

/**
 * The API time in ms of the turn whose result line reports the running total `total`
 * ({@link apiTimeTotal} of the line). `duration_api_ms` is the session's running total (a reused
 * process adds to it, `--resume` restores it), so this is its growth since the previous result on
 * the same process, or the total itself for the first result of a session that began in this
 * process; undefined when neither is known, or for a local command's result, which reports none
 * (the API time of a `/compact` summary is then counted in the next turn's).
 */
function apiDurationMs(total: number | undefined, baseline: ApiTimeBaseline): number | undefined {
  if (total === undefined) return undefined;
  if (baseline.previousTotal !== undefined) return total >= baseline.previousTotal ? total - baseline.previousTotal : undefined;
  return baseline.freshSession ? total : undefined;
}

/** The number `value` is, when it is a finite one. */
function finite(value: unknown): number | undefined {
  return typeof value === "number" && Number.isFinite(value) ? value : undefined;
}

/**
 * `model_usage_since_last_result` of `line` in the SDK's terms (input, output, cache read and
 * write tokens, cost rounded by `roundCost`); undefined when the line has none or an entry lacks its token counts.
 */
export function lineModelUsage(line: ResultLine): Record<string, ModelUsage> | undefined {
  const since = line.model_usage_since_last_result;
  if (!since || typeof since !== "object" || Array.isArray(since)) return undefined;
  const out: Record<string, ModelUsage> = {};
  for (const [model, entry] of Object.entries(since)) {
    const inputTokens = finite(entry?.inputTokens);
    const outputTokens = finite(entry?.outputTokens);
    if (inputTokens === undefined || outputTokens === undefined) return undefined;
    const cacheReadTokens = finite(entry?.cacheReadInputTokens);
    const cacheWriteTokens = finite(entry?.cacheCreationInputTokens);
    const cost = finite(entry?.costUSD);
    const costUsd = cost === undefined ? undefined : roundCost(cost);
    out[model] = {
      inputTokens,
      outputTokens,
      ...(cacheReadTokens !== undefined ? { cacheReadTokens } : {}),
      ...(cacheWriteTokens !== undefined ? { cacheWriteTokens } : {}),
      ...(costUsd !== undefined ? { costUsd } : {}),
    };
  }
  return out;
}

/** `a + b` model by model, field by field (a field present in either is kept; costs rounded by `roundCost`). */
export function addModelUsage(
  a: Readonly<Record<string, ModelUsage>>,
  b: Readonly<Record<string, ModelUsage>>,
): Record<string, ModelUsage> {
  const out: Record<string, ModelUsage> = { ...a };
  const sum = (x: number | undefined, y: number | undefined): number | undefined =>
    x === undefined && y === undefined ? undefined : (x ?? 0) + (y ?? 0);
  for (const [model, usage] of Object.entries(b)) {
    const before = out[model];
    if (!before) {
      out[model] = usage;
      continue;
    }
    const cacheReadTokens = sum(before.cacheReadTokens, usage.cacheReadTokens);
    const cacheWriteTokens = sum(before.cacheWriteTokens, usage.cacheWriteTokens);
    const summed = sum(before.costUsd, usage.costUsd);
    const costUsd = summed === undefined ? undefined : roundCost(summed);
    out[model] = {
      inputTokens: before.inputTokens + usage.inputTokens,
      outputTokens: before.outputTokens + usage.outputTokens,
      ...(cacheReadTokens !== undefined ? { cacheReadTokens } : {}),
      ...(cacheWriteTokens !== undefined ? { cacheWriteTokens } : {}),
      ...(costUsd !== undefined ? { costUsd } : {}),
    };
  }
  return out;
}

/**
 * `permission_denials` of `line` in the SDK's terms, each tool under the name events, approvals
 * and hooks give it (`Task` is `Agent`, see `CLAUDE_TOOL_ALIASES`); undefined when the line has no
 * such list.
 */
export function linePermissionDenials(line: ResultLine): PermissionDenial[] | undefined {
  const denials = line.permission_denials;
  if (!Array.isArray(denials)) return undefined;
  return denials.flatMap((entry) => {
    const denial = entry as { tool_name?: unknown; tool_use_id?: unknown; tool_input?: unknown } | null;
    if (typeof denial?.tool_name !== "string" || typeof denial.tool_use_id !== "string") return [];
    const toolName = CLAUDE_TOOL_ALIASES[denial.tool_name] ?? denial.tool_name;
    return [{ toolName, toolCallId: denial.tool_use_id, input: denial.tool_input }];
  });
}

/**
 * The report of a turn whose host-prompted `results` (in order: the parts answering messages the
 * host sent, then its last) are `results`, after the turns the CLI ran by itself, `ownResults`,
 * whose model usage and API time count with it as their usage and cost do. A field is left out
 * when a line that should give it does not: `numTurns` and `permissionDenials` of the prompted
 * lines, `modelUsage` of every line, `durationApiMs` of the prompted lines (each its growth over
 * the one before, the first over `baseline`).
 */
export function turnReport(results: readonly ResultLine[], ownResults: readonly ResultLine[], baseline: ApiTimeBaseline): TurnReport {
  if (results.length === 0) return {};
  let numTurns: number | undefined = 0;
  let permissionDenials: PermissionDenial[] | undefined = [];
  let modelUsage: Record<string, ModelUsage> | undefined = {};
  let from = baseline.previousTotal;
  let fresh = baseline.freshSession;
  let durationApiMs: number | undefined = 0;
  // The CLI's own turns count with this one: their API time is in the first share.
  for (const line of ownResults) {
    const used = lineModelUsage(line);
    modelUsage = modelUsage && used ? addModelUsage(modelUsage, used) : undefined;
  }
  for (const line of results) {
    const turns = finite(line.num_turns);
    numTurns = numTurns === undefined || turns === undefined ? undefined : numTurns + turns;
    const denials = linePermissionDenials(line);
    permissionDenials = permissionDenials && denials ? [...permissionDenials, ...denials] : undefined;
    const used = lineModelUsage(line);
    modelUsage = modelUsage && used ? addModelUsage(modelUsage, used) : undefined;
    const total = apiTimeTotal(line);
    const share = apiDurationMs(total, { ...(from !== undefined ? { previousTotal: from } : {}), freshSession: fresh });
    durationApiMs = durationApiMs === undefined || share === undefined ? undefined : durationApiMs + share;
    if (total !== undefined) {
      from = total;
      fresh = false;
    }
  }
  return {
    ...(numTurns !== undefined ? { numTurns } : {}),
    ...(durationApiMs !== undefined ? { durationApiMs } : {}),
    ...(modelUsage !== undefined ? { modelUsage } : {}),
    ...(permissionDenials !== undefined ? { permissionDenials } : {}),
  };
}
