import type {
  ApprovalAsk,
  DriverDescriptor,
  DriverEvent,
  DriverResponse,
  NoticeEvent,
  PolicyEnforcement,
  RunPolicy,
} from "@adaptor/driver";
import { hasNoEffect, raceAbort, reportEnforcement, type McpServerTools } from "@adaptor/driver/kit";
import { DriverError, ErrCode } from "@adaptor/errors";
import { hostToolOf } from "../tools/host-tool-of.js";
import type { ApprovalRule } from "../approval/approval-rule.js";

/** ms added to three kill graces in {@link driverStopMs}. */
const STOP_MARGIN_MS = 5_000;
/** The kit's default `killGraceMs`, for a driver that exposes none. */
const DEFAULT_KILL_GRACE_MS = 2_000;

/**
 * How long a run waits, after its abort, for its driver to settle: three times the driver's
 * `config.killGraceMs` (the kit's drivers expose their config; 2,000 when absent), time for an
 * interrupt, a closed stdin and a SIGTERM to be escalated, plus 5,000 ms.
 */
export function driverStopMs(driver: object): number {
  const config = (driver as { readonly config?: { readonly killGraceMs?: unknown } }).config;
  const grace = typeof config?.killGraceMs === "number" ? config.killGraceMs : DEFAULT_KILL_GRACE_MS;
  return 3 * grace + STOP_MARGIN_MS;
}

/**
 * Settles like `work` (a driver's `run()`), unless `signal` aborted and `work` has not settled
 * `waitMs` later: then `onGiveUp()` runs and the promise rejects with `signal.reason`, leaving the
 * driver behind (a driver that ignores its signal is the driver's bug; its later settlement is ignored).
 */
export async function settleAfterAbort<T>(work: Promise<T>, signal: AbortSignal, waitMs: number, onGiveUp: () => void): Promise<T> {
  const giveUp = new AbortController();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const onAbort = (): void => {
    timer = setTimeout(() => {
      onGiveUp();
      giveUp.abort(signal.reason);
    }, waitMs);
  };
  signal.addEventListener("abort", onAbort, { once: true });
  if (signal.aborted) onAbort();
  try {
    return await raceAbort(work, giveUp.signal);
  } finally {
    clearTimeout(timer);
    signal.removeEventListener("abort", onAbort);
  }
}

/**
 * What the SDK checks of every driver's response before the verdict (docs/errors.md "What the SDK
 * checks of a driver"), so that a driver's mistake never turns into a wrong answer:
 * - a response without a failure whose process exited with a non-zero code (and that the driver
 *   did not end itself) is an `agent_error`, `details.exitCode` / `details.exitSignal` set and
 *   `details.driverClaimedSuccess: true` noting the driver's claim; a driver's own `agent_error`
 *   for a process that exited non-zero or by a signal gets `details.exitCode` / `details.exitSignal`
 *   when it has none;
 * - a tool that ran without an approval request under an explicit `approvals.permission` of `ask`
 *   or `auto_deny` (`unasked`, see {@link UnaskedTools}; the mode in effect when the call started,
 *   also one `stream.setApprovalMode` set), or under any mode while a deny rule of the run names
 *   it, fails the run `policy_violation`
 *   (`details.fields`, `details.toolCallIds`) whatever the driver's own failure, unless the driver
 *   already found a `policy_violation` or the host accepted the mode on best effort (which never
 *   excuses a call a deny rule names); the `approvals.permission` entry says not enforced, naming
 *   the calls (its value the deny rule when the permission is unset);
 * - each explicitly set policy field of `policy` (the one the driver was given) that the response's
 *   `enforcement` does not list is added as not enforced ("the driver did not report enforcing it");
 * - a response without a failure whose `enforcement` (with those added entries) lists a value
 *   `enforced: false` without `bestEffort` is a `policy_violation` (`details.fields`), keeping the
 *   driver's report: a value not shown enforced is never a success.
 */
export function checkDriverResponse(
  device: string,
  response: DriverResponse,
  policy: RunPolicy | undefined,
  unasked: readonly UnaskedCall[] = [],
): DriverResponse {
  const exit = response.exit && response.exit.endedByDriver !== true ? response.exit : undefined;
  const failure = response.failure;
  let checked = response;
  if (!failure && response.interrupted !== true && exit && exit.code !== null && exit.code !== 0)
    checked = {
      ...response,
      failure: {
        reason: "agent_error",
        message: `${device} exited with code ${String(exit.code)}; its driver reported a success`,
        details: { exitCode: exit.code, exitSignal: exit.signal, driverClaimedSuccess: true },
      },
    };
  else if (
    failure?.reason === "agent_error" &&
    exit &&
    (exit.code !== 0 || exit.signal !== null) &&
    failure.details?.["exitCode"] === undefined
  )
    // The promised fields of a crash, for a driver that classified it without them.
    checked = { ...response, failure: { ...failure, details: { ...failure.details, exitCode: exit.code, exitSignal: exit.signal } } };
  checked = refuseUnasked(device, checked, policy, unasked);
  return refuseUnenforced(device, withUnreported(checked, policy, "the driver did not report enforcing it"));
}

/** At most this many unasked calls are named in the verdict's message and entry (`details.toolCallIds` has them all). */
const NAMED_CALLS = 5;

/**
 * `response` failed as `policy_violation` for the `calls` that ran without an approval request
 * under `policy`'s `approvals.permission` (see {@link checkDriverResponse}).
 */
function refuseUnasked(
  device: string,
  response: DriverResponse,
  policy: RunPolicy | undefined,
  unasked: readonly UnaskedCall[],
): DriverResponse {
  const field = "approvals.permission";
  const reported = response.enforcement ?? [];
  const entry = reported.find((e) => e.field === field);
  // The host accepted that the mode may not hold: the run stays a success, listed not enforced;
  // not that a call a deny rule names may run, which fails it all the same.
  const bestEffort = entry !== undefined && !entry.enforced && entry.bestEffort === true;
  const calls = bestEffort ? unasked.filter((call) => call.rule !== undefined) : unasked;
  if (calls.length === 0) return response;
  // The mode the calls broke: the run's own, or the one a switch during the run set.
  const launched = policy?.approvals?.permission;
  const checkedMode = calls.find((call) => call.mode !== undefined)?.mode;
  // Calls a deny rule names may break no mode (permission unset, inherit or auto_approve).
  const mode = checkedMode ?? launched ?? "unset";
  const duringRun = checkedMode !== undefined && checkedMode !== launched;
  const named = calls
    .slice(0, NAMED_CALLS)
    .map((call) => `${call.toolName} (${call.toolCallId}${call.rule ? `, named by the deny rule ${JSON.stringify(call.rule)}` : ""})`);
  const which = named.join(", ") + (calls.length > NAMED_CALLS ? ` and ${String(calls.length - NAMED_CALLS)} more calls` : "");
  const detail = `${which} ran without an approval request`;
  // A driver that found the mode broken itself keeps its own entry (one on best effort does not:
  // the run fails for a deny rule's call, not for the mode the host accepted might not hold).
  const switched = duringRun ? ` (switched to ${JSON.stringify(mode)} during the run)` : "";
  // With the permission unset, the value a call broke is the deny rule that names it.
  const rule = calls.find((call) => call.rule !== undefined)?.rule;
  const value = launched ?? (mode === "unset" && rule ? `deny rule ${JSON.stringify(rule)}` : mode);
  const marked: PolicyEnforcement =
    entry && !entry.enforced && !bestEffort ? entry : { field, value, enforced: false, mechanisms: [], detail: detail + switched };
  const enforcement = entry ? reported.map((e) => (e === entry ? marked : e)) : [...reported, marked];
  if (response.failure?.reason === "policy_violation") return { ...response, enforcement };
  const { interrupted: _interrupted, ...ran } = response;
  return {
    ...ran,
    enforcement,
    failure: {
      reason: "policy_violation",
      message: `${device}: ${detail} under approvals.permission ${mode === "unset" ? mode : JSON.stringify(mode)}${duringRun ? ", set during the run" : ""}`,
      details: { fields: [field], toolCallIds: calls.map((call) => call.toolCallId) },
    },
  };
}

/**
 * `response` as a plain completion when it says `interrupted: true` although no host interrupt
 * reached the turn (`asked` false): only `stream.interrupt()` makes a turn `interrupted`. The
 * notice (kind `driver.contract`, `data.check` `unasked-interrupt`) says so; the response then
 * goes through every check of a completed turn (a crash, a value not enforced, structured output).
 */
export function withoutUnaskedInterrupt(
  device: string,
  response: DriverResponse,
  asked: boolean,
): [DriverResponse, NoticeEvent | undefined] {
  if (response.interrupted !== true || asked) return [response, undefined];
  const { interrupted: _unasked, ...completed } = response;
  return [
    completed,
    {
      type: "notice",
      kind: "driver.contract",
      message: `${device} reported the turn interrupted, but the host did not interrupt it; the turn counts as completed`,
      data: { driver: device, check: "unasked-interrupt" },
    },
  ];
}

/** The event types a driver may emit ({@link DriverEvent}); every other type is the SDK's own. */
const DRIVER_EVENT_TYPES: ReadonlySet<string> = new Set(["text-delta", "thinking-delta", "tool-call", "tool-result", "notice", "process"]);

/**
 * Keeps a driver to its events: `run-started`, `approval-request`, `dropped` and `run-finished`
 * (and any type the driver SPI does not define) are the SDK's alone, so one a driver emits is
 * dropped and counted, and one notice (kind `driver.contract`, `data.check` `sdk-only-events`)
 * reports the count per type when the driver's call ends.
 */
export class ForeignEvents {
  readonly #counts = new Map<string, number>();

  /** True when a driver may emit `event`; else it is counted and must be dropped. */
  admit(event: DriverEvent): boolean {
    const type: unknown = (event as { readonly type?: unknown } | null)?.type;
    if (typeof type === "string" && DRIVER_EVENT_TYPES.has(type)) return true;
    const name = typeof type === "string" ? type : "(no type)";
    this.#counts.set(name, (this.#counts.get(name) ?? 0) + 1);
    return false;
  }

  /** The notice of the events dropped so far, if any. */
  notice(device: string): NoticeEvent | undefined {
    if (this.#counts.size === 0) return undefined;
    const refused = Object.fromEntries(this.#counts);
    const count = [...this.#counts.values()].reduce((sum, n) => sum + n, 0);
    const which = [...this.#counts].map(([type, n]) => `${type} ×${n}`).join(", ");
    return {
      type: "notice",
      kind: "driver.contract",
      message: `${device} emitted ${count} event${count === 1 ? "" : "s"} only the SDK may emit (${which}); dropped`,
      data: { driver: device, check: "sdk-only-events", refused, count },
    };
  }
}

/**
 * `response` failed as `policy_violation` when, without a failure of its own, it lists a set
 * policy value not enforced that the host did not accept on best effort (`bestEffort`), reported so
 * by the driver or not reported at all: a value a driver cannot enforce is refused before launch,
 * so such a run must not end as a success. The Result keeps the driver's report; `details.fields`
 * names the fields.
 */
function refuseUnenforced(device: string, response: DriverResponse): DriverResponse {
  if (response.failure || response.interrupted === true) return response;
  const unenforced = (response.enforcement ?? []).filter((entry) => !entry.enforced && entry.bestEffort !== true);
  if (unenforced.length === 0) return response;
  const which = unenforced.map((entry) => `${entry.field}=${entry.value} not enforced (${entry.detail})`).join(", ");
  return {
    ...response,
    failure: {
      reason: "policy_violation",
      message: `${device}: ${which}; a value a driver cannot enforce must be refused before launch`,
      details: { fields: unenforced.map((entry) => entry.field) },
    },
  };
}

/**
 * `output` with each explicitly set field of `policy` its `enforcement` does not list added as not
 * enforced, `why` the entry's detail (every Result, also a `RunError`'s, lists each such field).
 */
export function withUnreported<T extends Partial<DriverResponse>>(output: T, policy: RunPolicy | undefined, why: string): T {
  const reported = output.enforcement ?? [];
  const listed = new Set(reported.map((entry) => entry.field));
  const missing = reportEnforcement(policy, () => ({ notEnforced: why })).filter((entry) => !listed.has(entry.field));
  return missing.length ? { ...output, enforcement: [...reported, ...missing] } : output;
}

/**
 * A tool call that ran without an approval request under `ask` or `auto_deny`, or under any mode
 * while a deny rule of the run names it.
 */
export interface UnaskedCall {
  readonly toolCallId: string;
  /** The tool's name as the driver reported it; `"a tool"` when it gave none. */
  readonly toolName: string;
  /** The `permission` approval mode in effect when the call started: `ask` or `auto_deny`; undefined under another mode. */
  readonly mode: CheckedMode | undefined;
  /** The deny rule that names the call, when one does. */
  readonly rule?: ApprovalRule;
}

/**
 * The rule of a deny the run holds (given before it or remembered) that names a call of `toolName`
 * with `input` and the `kind` its `tool-call` events gave (an ACP kind, such as `execute`), if any.
 */
export type DeniedBy = (toolName: string, input: unknown, toolKind?: string) => ApprovalRule | undefined;

/** The `permission` approval modes under which a call that runs unasked breaks the run's policy. */
type CheckedMode = "ask" | "auto_deny";

function checked(mode: string | undefined): CheckedMode | undefined {
  return mode === "ask" || mode === "auto_deny" ? mode : undefined;
}

/**
 * The run's `permission` approval mode as the CLI applies it, for the check of unasked calls: the
 * explicit mode the run started with, then each `stream.setApprovalMode` switch from the moment it
 * took effect on the CLI: at once for a driver whose CLI needs no request, else at the driver's
 * `approval.mode` notice naming a mode the host asked for (a driver cannot switch the check to a
 * mode the host never asked for). `inherit` and `auto_approve` are not checked.
 */
export class PermissionClock {
  #mode: CheckedMode | undefined;
  /** Modes the host asked for, in order, that the driver has not yet reported in effect on the CLI. */
  #awaited: string[] = [];

  /** @param permission - the run's `approvals.permission` as it started (undefined: not set). */
  constructor(permission: string | undefined) {
    this.#mode = checked(permission);
  }

  /** The mode in effect now: `ask` or `auto_deny` when unasked calls break it, else undefined. */
  get mode(): CheckedMode | undefined {
    return this.#mode;
  }

  /**
   * The host switched to `permission`: in effect `now`, or once the driver reports it (`cli`: its
   * `approval.mode` notice, else its answer to the switch, `answered`, whichever comes first).
   */
  switched(permission: string, when: "now" | "cli" | "answered"): void {
    if (when === "cli") this.#awaited.push(permission);
    else if (when === "answered") this.taken(permission);
    else {
      this.#awaited = [];
      this.#mode = checked(permission);
    }
  }

  /**
   * The driver reported `permission` in effect on the CLI (an `approval.mode` notice): the latest
   * such switch the host asked for takes effect; switches asked for after it still wait.
   */
  taken(permission: unknown): void {
    const at = typeof permission === "string" ? this.#awaited.lastIndexOf(permission) : -1;
    if (at < 0) return;
    this.#awaited = this.#awaited.slice(at + 1);
    this.#mode = checked(permission as string);
  }
}

/**
 * Watches one driver call for tool calls that ran unasked under an explicit `approvals.permission`
 * of `ask` or `auto_deny` (as the run started, or as `stream.setApprovalMode` switched it, see
 * {@link PermissionClock}; each call is judged by the mode in effect when its `tool-call` started):
 * a tool call that returned a result without error although no approval asked about
 * its id gets an `approval.unasked` notice, unless the call can have no effect: a tool the driver
 * declares its CLI runs unasked (`capabilities.askExemptTools`: Claude Code's Read, its task list),
 * or a call whose `tool-call` `kind` is `read`, `search` or `think` (ACP agents say so), or a call
 * of the run's host tools (the SDK's own server applies the run's approvals to each call itself, so
 * the CLI runs them unasked by design), or a result the driver marks `coveredByAsk` (an ask the host
 * answered covered it without naming its id). Each such call also fails the run ({@link calls}, given to
 * {@link checkDriverResponse}): whether the CLI exempted the tool itself or the driver skipped the
 * ask, the mode the host set did not hold for it. A call that a deny rule of the run names (given
 * before it or remembered, compared as an ask of the call's tool, input and kind would be) and that
 * returned a result without an ask about its id gets the notice (`data.rule`) and fails the run
 * under every mode, none of those exemptions applying: the host said never, and it ran.
 */
export class UnaskedTools {
  readonly #clock: PermissionClock;
  /** The mode can be checked during this call: it is now, or the host may switch it. */
  readonly #watch: boolean;
  readonly #exempt: ReadonlySet<string>;
  readonly #asked = new Set<string>();
  readonly #names = new Map<string, string>();
  /** The mode in effect when each call started, by call id. */
  readonly #startedUnder = new Map<string, CheckedMode | undefined>();
  /** Calls that cannot have an effect (by their name or kind). */
  readonly #harmless = new Set<string>();
  readonly #calls: UnaskedCall[] = [];

  /** The run's host-tool server and its tools, whose calls the SDK gates itself. */
  readonly #hostTools: McpServerTools | undefined;
  /** The deny rule (up-front or remembered) that names a call, if any. */
  readonly #deniedBy: DeniedBy | undefined;
  /** Whether the run holds a deny rule now (default: whenever {@link #deniedBy} is given). */
  readonly #holdsDeny: () => boolean;
  /**
   * The input and kind (the last its events gave) of each call reported and not yet returned, by
   * call id: kept only while the run holds a deny rule ({@link #holdsDeny}), to compare the call
   * with it as it returns, as an ask about it would be.
   */
  readonly #inputs = new Map<string, { input?: unknown; kind?: string }>();

  /**
   * @param clock - the run's permission mode over time (shared by the run's driver calls); by
   * default the mode `policy` sets, never switched.
   * @param hostTools - the run's host-tool server (its name and its tools' names), if it has host tools.
   * @param deniedBy - the run's deny rules (up-front and remembered so far): a call one names that
   * ran unasked is reported under every mode, exempt tool, harmless kind or earlier grant.
   * @param holdsDeny - whether the run holds a deny rule now; a call's input is kept until its
   * result only while it does. Default: always, when `deniedBy` is given.
   */
  constructor(
    policy: RunPolicy | undefined,
    descriptor?: DriverDescriptor,
    hostTools?: McpServerTools,
    clock?: PermissionClock,
    deniedBy?: DeniedBy,
    holdsDeny?: () => boolean,
  ) {
    this.#clock = clock ?? new PermissionClock(policy?.approvals?.permission);
    this.#watch = deniedBy !== undefined || this.#clock.mode !== undefined || descriptor?.capabilities.turnControl?.approvalMode === true;
    this.#exempt = new Set(descriptor?.capabilities.askExemptTools ?? []);
    this.#hostTools = hostTools;
    this.#deniedBy = deniedBy;
    this.#holdsDeny = holdsDeny ?? (() => deniedBy !== undefined);
  }

  /** Whether `name` (an agent's name or title for a call) is one of the run's host tools. */
  #isHostTool(name: string | undefined): boolean {
    return this.#hostTools !== undefined && hostToolOf(name, this.#hostTools) !== undefined;
  }

  /** The calls that got an `approval.unasked` notice so far, in order. */
  get calls(): readonly UnaskedCall[] {
    return this.#calls;
  }

  /** Notes an approval the driver asked for. */
  asked(ask: ApprovalAsk): void {
    if (this.#watch && ask.toolCallId !== undefined) this.#asked.add(ask.toolCallId);
  }

  /** The notice `event` calls for, if any. */
  observe(event: DriverEvent): DriverEvent | undefined {
    if (!this.#watch) return undefined;
    if (event.type === "notice" && event.kind === "approval.mode") {
      this.#clock.taken(event.data?.["permission"]);
      return undefined;
    }
    if (event.type === "tool-call") {
      if (!this.#startedUnder.has(event.id)) this.#startedUnder.set(event.id, this.#clock.mode);
      if (event.phase === "start" || !this.#names.has(event.id)) this.#names.set(event.id, event.name);
      if ((event.input !== undefined || event.kind !== undefined) && this.#deniedBy && this.#holdsDeny()) {
        const kept = this.#inputs.get(event.id) ?? {};
        this.#inputs.set(event.id, {
          ...kept,
          ...(event.input !== undefined ? { input: event.input } : {}),
          ...(event.kind !== undefined ? { kind: event.kind } : {}),
        });
      }
      if (this.#exempt.has(event.name) || hasNoEffect(event.kind) || this.#isHostTool(event.name)) this.#harmless.add(event.id);
      return undefined;
    }
    if (event.type !== "tool-result") return undefined;
    const kept = this.#inputs.get(event.id);
    this.#inputs.delete(event.id);
    if (event.isError || this.#asked.has(event.id)) return undefined;
    const toolName = event.name ?? this.#names.get(event.id) ?? "a tool";
    // A deny rule naming the call: it ran although the host said never, whatever let it run.
    const rule = this.#deniedBy?.(toolName, kept?.input, kept?.kind);
    // A call whose start was not reported is judged by the mode in effect as it returned.
    const mode = this.#startedUnder.has(event.id) ? this.#startedUnder.get(event.id) : this.#clock.mode;
    if (rule === undefined) {
      if (mode === undefined || event.coveredByAsk === true || this.#harmless.has(event.id)) return undefined;
      if (this.#exempt.has(toolName) || this.#isHostTool(event.name)) return undefined;
    }
    this.#calls.push({ toolCallId: event.id, toolName, mode, ...(rule ? { rule } : {}) });
    const under = mode === undefined ? "" : ` under approvals.permission "${mode}"`;
    return {
      type: "notice",
      kind: "approval.unasked",
      message: `${toolName} ran without an approval request${under}${rule ? `, though a deny rule names it (${JSON.stringify(rule)})` : ""}`,
      data: { toolCallId: event.id, toolName, ...(mode !== undefined ? { mode } : {}), ...(rule ? { rule } : {}) },
    };
  }
}

/** At most this many characters of a non-Error rejection are quoted in {@link asDriverRejection}'s message. */
const QUOTED_CHARS = 200;

/**
 * What a driver's `run()` rejected with, as the host gets it: an `Error` (or the run's own abort
 * reason, whatever it is) unchanged; any other value (a string, `undefined`, a plain object) as a
 * `DriverError` `INTERNAL`, op `driver run`, device the driver's type, whose `cause` is the value
 * and whose message quotes it (at most 200 characters).
 */
export function asDriverRejection(device: string, rejected: unknown, abortReason: unknown): unknown {
  if (rejected instanceof Error || (rejected === abortReason && rejected !== undefined)) return rejected;
  let quoted: string;
  try {
    quoted = typeof rejected === "string" ? JSON.stringify(rejected) : (JSON.stringify(rejected) ?? String(rejected));
  } catch {
    quoted = Object.prototype.toString.call(rejected);
  }
  if (quoted.length > QUOTED_CHARS) quoted = `${quoted.slice(0, QUOTED_CHARS)}…`;
  return new DriverError({
    op: "driver run",
    device,
    code: ErrCode.Internal,
    cause: rejected,
    detail: `the driver's run() rejected with a value that is not an Error: ${quoted}`,
  });
}
