import { setTimeout as sleep } from "node:timers/promises";
import { describe, expect, it } from "vitest";
import { ErrCode, errorCode, isError, walkError } from "@adaptor/errors";
import {
  ErrHumanDecisionModeUnsupported,
  ErrInvalidDriverConfig,
  ErrPolicyCapabilityUnsupported,
  ErrStructuredOutputUnsupported,
} from "../errors/index.js";
import type { AllowDeny, ApprovalMode, DriverCapabilities, SandboxMode } from "../spi/descriptor.js";
import type { InspectFailureReason } from "../spi/inspect.js";
import type { Driver } from "../spi/driver.js";
import type { RunPolicy } from "../spi/policy.js";
import type { DriverRequest } from "../spi/request.js";
import type { Usage } from "../spi/response.js";
import { reportEnforcement } from "../kit/policy/report-enforcement.js";
import { APPROVAL_KINDS, APPROVAL_MODES_BY_KIND, approvalModes } from "../policy/approval-modes.js";
import { processGone } from "../kit/process-gone/process-gone.js";
import { runDriver, type DriverRun, type RunDriverOptions } from "./run-driver.js";

/** What `makeDriver` returns: the driver under test, plus whatever its scripted turns need, plus cleanup. */
export interface DriverFixture {
  /** The driver under test. */
  readonly driver: Driver;
  /** Releases the fixture (servers, temp dirs); called after each clause, after `driver.close()`. */
  cleanup?(): void | Promise<void>;
}

/** One scripted turn: the request that makes the driver's backend behave a given way, and what to expect. */
export interface ScriptedTurn {
  /** The request (`runId` is filled in by the kit). */
  readonly request: Omit<DriverRequest, "runId">;
  /** Text the successful response's `text` must contain (a substring) or match. */
  readonly expectText?: string | RegExp;
  /** Failing turn: the failure message must contain or match it. */
  readonly expectMessage?: string | RegExp;
  /** Failing turn: the failure reason. Default `"agent_error"`. */
  readonly expectReason?: string;
  /**
   * Text turn: the usage the backend reports for this turn (e.g. the token counts the scripted model
   * server answers with). Clause 3.4 checks that `response.usage` carries these fields with these
   * values; it is skipped without it.
   */
  readonly expectUsage?: Partial<Usage>;
  /**
   * Tool turn: whether the turn's tool took effect, read from outside the driver's events (the file
   * the tool writes exists, the scripted model server saw a successful tool result). Must be false
   * before the turn runs. The approval clauses (6.x) use it instead of the events; clause 1.4
   * (`read_only`) requires it when the descriptor declares `sandbox: ["read_only", ...]`.
   */
  toolRan?(): boolean | Promise<boolean>;
}

/** A structured-output turn: the request carries `outputSchema`; `response.structured` must deep-equal `expectValue`. */
export interface StructuredTurn extends ScriptedTurn {
  /** The structured value the turn must produce. */
  readonly expectValue: unknown;
}

/**
 * The turns a driver's harness provides, each a function of the fixture `makeDriver` made (so a
 * turn can name a path in the fixture's workspace or a rule of its scripted model server).
 */
export interface ScriptedTurns<F extends DriverFixture> {
  /** A plain text turn that succeeds. */
  text(fixture: F): ScriptedTurn;
  /**
   * A turn whose model calls a tool that needs one `permission` approval (policy included in the
   * request if needed). Best a tool with an effect the harness can see (a file write) and a
   * `toolRan` that reads it: the approval and sandbox clauses then check that effect.
   */
  toolApproval(fixture: F): ScriptedTurn;
  /** A turn that keeps running (several seconds at least) until cancelled. */
  slow(fixture: F): ScriptedTurn;
  /** A turn the backend fails (e.g. the model API answers HTTP 400). */
  failing(fixture: F): ScriptedTurn;
  /**
   * A structured-output turn; required when the descriptor declares native structured output
   * (`structuredOutput.native`). With prompt-mode structured output only, the SDK validates the
   * text itself and never hands the driver an `outputSchema`, so clause 7.1 does not apply.
   */
  structured?(fixture: F): StructuredTurn;
  /**
   * A turn in which the CLI dies before its terminal line (it exits non-zero or is killed by a
   * signal the driver did not send). Clause 8.3 is skipped without it.
   */
  crashing?(fixture: F): ScriptedTurn;
  /** The follow-up turn of the resume clauses. Default: `text(fixture)`. */
  followUp?(fixture: F): ScriptedTurn;
}

/** Options of {@link describeDriverConformance}. */
export interface DriverConformanceOptions<F extends DriverFixture> {
  /** Makes a fresh fixture for one clause. */
  makeDriver(): F | Promise<F>;
  /** Prompts and expectations for the scripted turns the suite runs. */
  readonly scripted: ScriptedTurns<F>;
  /** A driver of the same type built with a foreign (invalid) config; clause 2.2 is skipped without it. */
  makeForeignDriver?(): Driver;
  /** A driver whose executable does not exist; clause 8.2 is skipped without it. */
  makeMissingDriver?(): Driver;
  /** Clauses to skip, by number (`"1.3"`), with the reason shown in the test name. */
  readonly skip?: Readonly<Record<string, string>>;
  /** Timeout of one clause in ms. Default 60 000. */
  readonly timeoutMs?: number;
  /** When the slow turn is cancelled, in ms after `run()` was called. Default 1500. */
  readonly cancelAfterMs?: number;
  /**
   * Run the clauses concurrently (`it.concurrent`, up to vitest's `maxConcurrency`). Each clause has
   * its own fixture, so this is safe when fixtures share nothing. Default false.
   */
  readonly concurrent?: boolean;
}

const SANDBOXES: readonly SandboxMode[] = ["read_only", "workspace_write", "unrestricted"];
const ALLOW_DENY: readonly AllowDeny[] = ["allow", "deny"];

function matches(text: string, pattern: string | RegExp | undefined): boolean {
  if (pattern === undefined) return true;
  return typeof pattern === "string" ? text.includes(pattern) : pattern.test(text);
}

/** How long late events may take to show up once the run's processes are gone, in ms. */
const LATE_EVENT_SETTLE_MS = 1000;
/** How long the run's processes may take to exit after `run()` settled, in ms (a safety net). */
const PROCESS_EXIT_WAIT_MS = 10_000;

/**
 * Waits until every process the run spawned is gone (unless the driver reuses processes, which
 * outlive a run) and then {@link LATE_EVENT_SETTLE_MS} more, so a driver that emits after `run()`
 * settled is seen doing it however busy the machine is.
 */
async function settleAfterRun(run: DriverRun, caps: DriverCapabilities): Promise<void> {
  if (!caps.processReuse) {
    const deadline = Date.now() + PROCESS_EXIT_WAIT_MS;
    while (!run.recording.pids().every(processGone) && Date.now() < deadline) await sleep(100);
  }
  await sleep(LATE_EVENT_SETTLE_MS);
}

/** Whether the tool of a tool turn took effect: the harness's `toolRan` when given, else a successful tool result. */
async function toolTookEffect(turn: ScriptedTurn, run: DriverRun): Promise<boolean> {
  if (turn.toolRan) return await turn.toolRan();
  return run.recording.ofType("tool-result").some((result) => !result.isError);
}

/** Each explicitly set policy field of `policy` (`inherit` and unset excluded), as `response.enforcement` must list it. */
function explicitPolicyFields(policy: RunPolicy): { field: string; value: string }[] {
  return reportEnforcement(policy, () => ({ notEnforced: "" })).map(({ field, value }) => ({ field, value }));
}

function withPolicy(turn: ScriptedTurn, policy: RunPolicy): Omit<DriverRequest, "runId"> {
  return { ...turn.request, policy: { ...turn.request.policy, ...policy } };
}

/**
 * True when `run` was refused before launch for a policy that sets two or more fields (a
 * combination a driver may not be able to enforce together): `ErrPolicyCapabilityUnsupported` or
 * `ErrHumanDecisionModeUnsupported`.
 */
function refusedCombination(run: DriverRun, policy: RunPolicy): boolean {
  return (
    run.error !== undefined &&
    explicitPolicyFields(policy).length > 1 &&
    (isError(run.error, ErrPolicyCapabilityUnsupported) || isError(run.error, ErrHumanDecisionModeUnsupported))
  );
}

/** One policy per explicitly set field of `policy` (sandbox, web search, permission mode), each alone. */
function singleFieldPolicies(policy: RunPolicy): RunPolicy[] {
  return [
    ...(policy.sandbox !== undefined ? [{ sandbox: policy.sandbox }] : []),
    ...(policy.webSearch !== undefined ? [{ webSearch: policy.webSearch }] : []),
    ...(policy.approvals?.permission !== undefined ? [{ approvals: { permission: policy.approvals.permission } }] : []),
  ];
}

function succeeded(run: DriverRun): asserts run is DriverRun & { response: NonNullable<DriverRun["response"]> } {
  if (run.error !== undefined) throw new Error(`run rejected: ${String((run.error as Error)?.message ?? run.error)}`, { cause: run.error });
  expect(run.response?.failure, `unexpected failure: ${run.response?.failure?.message}`).toBeUndefined();
  expect(run.response?.interrupted, UNASKED_INTERRUPT).not.toBe(true);
}

/** Why a turn the kit never interrupted must not say `interrupted`. */
const UNASKED_INTERRUPT =
  "response.interrupted is true, but nothing interrupted the turn: only a host's TurnControl.interrupt() makes a turn interrupted";

/** The assertion message of a text that does not match `expected`. */
function textMessage(text: string, expected: string | RegExp | undefined): string {
  return `text ${JSON.stringify(text)} does not ${typeof expected === "string" ? "contain" : "match"} ${typeof expected === "string" ? JSON.stringify(expected) : String(expected)}`;
}

/** Capability requests the descriptor does not declare, each with the identity its refusal must match. */
function undeclaredProbes(
  caps: DriverCapabilities,
): { name: string; policy?: RunPolicy; outputSchema?: Record<string, unknown>; sentinel: typeof ErrPolicyCapabilityUnsupported }[] {
  const probes: {
    name: string;
    policy?: RunPolicy;
    outputSchema?: Record<string, unknown>;
    sentinel: typeof ErrPolicyCapabilityUnsupported;
  }[] = [];
  for (const value of SANDBOXES)
    if (!caps.policy.sandbox.includes(value))
      probes.push({ name: `sandbox=${value}`, policy: { sandbox: value }, sentinel: ErrPolicyCapabilityUnsupported });
  for (const value of ALLOW_DENY)
    if (!caps.policy.webSearch.includes(value))
      probes.push({ name: `webSearch=${value}`, policy: { webSearch: value }, sentinel: ErrPolicyCapabilityUnsupported });
  for (const value of ALLOW_DENY)
    if (!caps.policy.browser.includes(value))
      probes.push({ name: `browser=${value}`, policy: { browser: value }, sentinel: ErrPolicyCapabilityUnsupported });
  if (!caps.policy.activeExecutionTimeout)
    probes.push({
      name: "activeExecutionTimeoutMs",
      policy: { activeExecutionTimeoutMs: 60_000 },
      sentinel: ErrPolicyCapabilityUnsupported,
    });
  for (const kind of APPROVAL_KINDS) {
    // Only the kind's domain: a value outside it (a question's auto_approve) is InvalidPolicyError, not a capability.
    for (const mode of APPROVAL_MODES_BY_KIND[kind]) {
      if (!approvalModes(caps, kind).includes(mode))
        probes.push({
          name: `approvals.${kind}=${mode}`,
          policy: { approvals: { [kind]: mode } },
          sentinel: ErrHumanDecisionModeUnsupported,
        });
    }
  }
  if (!caps.structuredOutput.native && !caps.structuredOutput.prompt) {
    probes.push({
      name: "outputSchema",
      outputSchema: { type: "object", properties: { a: { type: "string" } }, required: ["a"] },
      sentinel: ErrStructuredOutputUnsupported,
    });
  }
  return probes;
}

/**
 * Registers the driver conformance suite as vitest `describe`/`it` blocks: numbered
 * clauses a `Driver` must pass, driven directly through the SPI with a recording sink (no SDK).
 *
 * 1 Descriptor — 1.1 deterministic and well-formed; 1.2 every declared sandbox / web-search /
 *   permission-mode value is accepted for a text turn, and `response.enforcement` lists each explicitly
 *   set one (`inherit` excluded) as enforced, with its mechanisms (the values are combined; a
 *   combination the driver refuses before any turn with `ErrPolicyCapabilityUnsupported` or
 *   `ErrHumanDecisionModeUnsupported`, having at most started the agent to read its own setting
 *   (process events and notices only, every process gone), is checked one value at a time instead);
 *   1.3 every undeclared one (and structured output when
 *   neither native nor prompt) is refused before launch with its identity, emitting nothing;
 *   1.4 `read_only` (when declared): the tool turn, approved, leaves no effect (`toolRan()` is false:
 *   the file system is checked, not the events) and the run reports `sandbox=read_only` enforced. A
 *   driver that cannot confine a tool the host approved under the turn's approval mode refuses that
 *   pair before launch (`ErrPolicyCapabilityUnsupported` / `ErrHumanDecisionModeUnsupported`, nothing
 *   launched, no effect); the turn then runs with `auto_approve` (when declared) and must hold.
 * 2 Config — 2.1 `validateConfig()` accepts the driver's config; 2.2 rejects a foreign config with
 *   `ErrInvalidDriverConfig`; 2.3 `inspect()` (when the driver has it) returns a well-formed
 *   inspection whose failed checks carry known reasons.
 * 3 Events — 3.1 events only while `run()` is in flight, in order (late events are awaited until
 *   the run's processes are gone plus one second); 3.2 text turn: deltas carry the final text,
 *   transcript holds it; 3.3 tool turn: tool-call start/end and tool-result well-formed; 3.4 (when
 *   the text turn gives `expectUsage`) `response.usage` carries the usage the backend reported; 3.5 a
 *   turn nobody interrupted does not say `interrupted: true` (only `TurnControl.interrupt()` makes a
 *   turn interrupted; every clause that expects a success checks it too).
 * 4 Cancel — 4.1 an aborted signal rejects at once without launching; 4.2 cancel mid-turn rejects with
 *   the abort reason on the cause chain, every spawned process is gone, nothing is emitted after.
 * 5 Checkpoints — 5.1 a failed run yields none; 5.2 a successful one yields one (when resume is
 *   declared) that 5.3 resumes in a new run; 5.4 fork yields a different id; 5.5 an unknown id is
 *   `resume_rejected` without a checkpoint.
 * 6 Approvals — 6.1 approve: asked once per tool call, awaited, tool succeeds (and `toolRan()` is
 *   true); 6.2 deny: the run completes, the tool result is an error and the tool took no effect;
 *   6.3 `auto_deny` (when declared): the run completes and the tool takes no effect (asks the driver
 *   forwards are denied, as the SDK's broker does); 6.4 an explicit `ask`: an approval is asked before
 *   the tool runs, and a denied tool takes no effect. "Took effect" is the turn's `toolRan()` when
 *   given, else a successful tool result.
 * 7 Structured output — 7.1 (native structured output only; prompt mode is the SDK's) the value
 *   comes back as `response.structured`.
 * 8 Error verdicts — 8.1 a failing turn resolves with a classified failure carrying the backend's
 *   message; 8.2 a missing executable rejects with DriverError `NOT_FOUND`; 8.3 (with
 *   `scripted.crashing`) a CLI that dies before its terminal line resolves with an `agent_error`
 *   failure whose `details` carry `exitCode` (number) or `exitSignal` (string), without a checkpoint.
 *
 * @example
 * describeDriverConformance("reference", {
 *   makeDriver: () => ({ driver: new ReferenceDriver() }),
 *   scripted: REFERENCE_SCRIPTS,
 * });
 */
/** Every `InspectFailureReason`. */
const INSPECT_REASONS: readonly InspectFailureReason[] = [
  "invalid_config",
  "executable_not_found",
  "executable_not_runnable",
  "version_unreadable",
  "version_unsupported",
  "version_mismatch",
  "unauthenticated",
  "probe_failed",
  "probe_timeout",
];

export function describeDriverConformance<F extends DriverFixture>(name: string, options: DriverConformanceOptions<F>): void {
  const timeout = options.timeoutMs ?? 60_000;
  const skip = options.skip ?? {};
  const test = options.concurrent ? it.concurrent : it;

  const clause = (
    id: string,
    title: string,
    body: (fixture: F) => Promise<void>,
    applies: (caps: DriverCapabilities, fixture: F) => boolean | string = () => true,
  ): void => {
    const reason = skip[id];
    if (reason !== undefined) {
      it.skip(`${id} ${title} (skipped: ${reason})`, () => undefined);
      return;
    }
    test(
      `${id} ${title}`,
      async (context) => {
        const fixture = await options.makeDriver();
        try {
          const applicable = applies(fixture.driver.descriptor.capabilities, fixture);
          if (applicable !== true) {
            context.skip(applicable === false ? `not declared by ${fixture.driver.descriptor.type}` : applicable);
            return;
          }
          await body(fixture);
        } finally {
          await fixture.driver.close?.();
          await fixture.cleanup?.();
        }
      },
      timeout,
    );
  };

  const run = (fixture: F, request: Omit<DriverRequest, "runId">, runOptions: RunDriverOptions = {}): Promise<DriverRun> =>
    runDriver(fixture.driver, request, runOptions);

  describe(`driver conformance: ${name}`, () => {
    describe("1 descriptor", () => {
      clause("1.1", "is deterministic and well-formed", async (fixture) => {
        const { driver } = fixture;
        expect(driver.descriptor).toBe(driver.descriptor);
        const other = await options.makeDriver();
        try {
          expect(other.driver.descriptor).toEqual(driver.descriptor);
        } finally {
          await other.driver.close?.();
          await other.cleanup?.();
        }
        const { type, displayName, capabilities: caps } = driver.descriptor;
        expect(type).toMatch(/\S/);
        expect(displayName).toMatch(/\S/);
        for (const v of caps.policy.sandbox) expect(SANDBOXES).toContain(v);
        for (const v of [...caps.policy.webSearch, ...caps.policy.browser]) expect(ALLOW_DENY).toContain(v);
        for (const kind of APPROVAL_KINDS)
          for (const mode of approvalModes(caps, kind)) expect(APPROVAL_MODES_BY_KIND[kind]).toContain(mode);
        expect(typeof caps.sessions.resume).toBe("boolean");
        expect(typeof caps.sessions.fork).toBe("boolean");
        if (caps.sessions.fork) expect(caps.sessions.resume).toBe(true);
        // A driver that declares listing (reading) has the method that lists (reads).
        if (caps.sessions.list === true) expect(typeof driver.listSessions).toBe("function");
        if (caps.sessions.messages === true) expect(typeof driver.getSessionMessages).toBe("function");
        if (caps.sessions.info === true) expect(typeof driver.getSessionInfo).toBe("function");
        if (caps.sessions.rename === true) expect(typeof driver.renameSession).toBe("function");
        if (caps.sessions.tag === true) expect(typeof driver.tagSession).toBe("function");
        if (caps.sessions.forkSession === true) expect(typeof driver.forkSession).toBe("function");
      });

      clause(
        "1.2",
        "accepts every declared sandbox, web-search and permission-mode value and reports how it enforced each",
        async (fixture) => {
          const caps = fixture.driver.descriptor.capabilities;
          const sandboxes = caps.policy.sandbox;
          const web = caps.policy.webSearch;
          const modes = caps.approvals.permission;
          const rounds = Math.max(sandboxes.length, web.length, modes.length, 1);
          const policies = Array.from({ length: rounds }, (_, i): RunPolicy => ({
            ...(sandboxes.length ? { sandbox: sandboxes[i % sandboxes.length] } : {}),
            ...(web.length ? { webSearch: web[i % web.length] } : {}),
            ...(modes.length ? { approvals: { permission: modes[i % modes.length] as ApprovalMode } } : {}),
          }));
          // Independent runs, one after another: CLIs sharing one home may lock their own state
          // against each other when started together (OpenCode's database, on a busy machine).
          const results = [];
          for (const policy of policies) {
            const turn = options.scripted.text(fixture);
            const result = await run(fixture, withPolicy(turn, policy));
            if (!refusedCombination(result, policy)) {
              results.push({ policy, turn, result });
              continue;
            }
            // A driver may refuse two declared values together (one cannot be enforced with the
            // other) before any turn: then each value must be accepted on its own. It may have
            // started the agent only to read the agent's own setting (process events and notices),
            // which must be gone; nothing of a turn may have happened.
            const turnEvents = result.recording.events.filter((e) => e.event.type !== "process" && e.event.type !== "notice");
            expect(turnEvents, `${JSON.stringify(policy)} refused: no turn may start`).toEqual([]);
            for (const pid of result.recording.pids())
              expect(processGone(pid), `${JSON.stringify(policy)} refused: pid ${pid} ended`).toBe(true);
            for (const single of singleFieldPolicies(policy)) {
              const alone = options.scripted.text(fixture);
              results.push({ policy: single, turn: alone, result: await run(fixture, withPolicy(alone, single)) });
            }
          }
          for (const { policy, turn, result } of results) {
            succeeded(result);
            expect(matches(result.response.text, turn.expectText), `text for ${JSON.stringify(policy)}`).toBe(true);
            const enforcement = result.response.enforcement ?? [];
            for (const { field, value } of explicitPolicyFields(policy)) {
              const entry = enforcement.find((e) => e.field === field && e.value === value);
              // A declared value is enforced: `enforced: false` is only for a driver option that accepts best effort.
              expect(entry, `response.enforcement lists ${field}=${value}`).toBeDefined();
              expect(entry?.enforced, `${field}=${value} enforced`).toBe(true);
              expect(entry?.mechanisms.length, `${field}=${value} enforced by some mechanism`).toBeGreaterThan(0);
              expect(entry?.detail).toMatch(/\S/);
            }
          }
        },
      );

      clause("1.3", "refuses every undeclared capability before launch, with its identity", async (fixture) => {
        const probes = undeclaredProbes(fixture.driver.descriptor.capabilities);
        for (const probe of probes) {
          const turn = options.scripted.text(fixture);
          const request = {
            ...(probe.policy ? withPolicy(turn, probe.policy) : turn.request),
            ...(probe.outputSchema ? { outputSchema: probe.outputSchema } : {}),
          };
          const result = await run(fixture, request);
          expect(result.error, `${probe.name} must be refused`).toBeDefined();
          expect(isError(result.error, probe.sentinel), `${probe.name}: ${String(result.error)}`).toBe(true);
          expect(result.recording.events, `${probe.name}: nothing may be launched`).toEqual([]);
        }
      });

      clause(
        "1.4",
        "read_only: an approved tool turn leaves the file system untouched, and the run says so",
        async (fixture) => {
          const turn = options.scripted.toolApproval(fixture);
          if (!turn.toolRan)
            throw new Error("the descriptor declares sandbox read_only but scripted.toolApproval gives no toolRan to check it with");
          const approve = { onApproval: () => ({ outcome: "approve" }) as const };
          const policy: RunPolicy = { ...turn.request.policy, sandbox: "read_only" };
          let result = await run(fixture, withPolicy(turn, { sandbox: "read_only" }), approve);
          const permission = policy.approvals?.permission;
          if (permission !== undefined && permission !== "inherit" && refusedCombination(result, policy)) {
            // The driver cannot confine an approved tool under the turn's approval mode and refused
            // the pair before launch: nothing ran, and read_only must then hold with auto_approve.
            expect(result.recording.events, "the refused run launched nothing").toEqual([]);
            expect(await turn.toolRan(), "the refused run took no effect").toBe(false);
            const caps = fixture.driver.descriptor.capabilities;
            if (!caps.approvals.permission.includes("auto_approve")) return;
            const approvals = { ...policy.approvals, permission: "auto_approve" as const };
            result = await run(fixture, { ...turn.request, policy: { ...policy, approvals } }, approve);
          }
          expect(result.error, String(result.error)).toBeUndefined();
          expect(await turn.toolRan(), "the tool took effect under read_only").toBe(false);
          const entry = result.response?.enforcement?.find((e) => e.field === "sandbox" && e.value === "read_only");
          expect(entry, "response.enforcement lists sandbox=read_only").toBeDefined();
          expect(entry?.enforced, "sandbox=read_only enforced").toBe(true);
        },
        (caps) => caps.policy.sandbox.includes("read_only"),
      );
    });

    describe("2 config", () => {
      clause("2.1", "validateConfig() accepts the driver's own config", async (fixture) => {
        expect(() => fixture.driver.validateConfig()).not.toThrow();
      });
      if (options.makeForeignDriver) {
        const makeForeign = options.makeForeignDriver;
        clause("2.2", "validateConfig() rejects a foreign config with ErrInvalidDriverConfig", async () => {
          const foreign = makeForeign();
          let thrown: unknown;
          try {
            foreign.validateConfig();
          } catch (err) {
            thrown = err;
          }
          expect(isError(thrown, ErrInvalidDriverConfig), String(thrown)).toBe(true);
        });
      } else {
        it.skip("2.2 validateConfig() rejects a foreign config (no makeForeignDriver given)", () => undefined);
      }
    });

    describe("2 config: inspect", () => {
      clause(
        "2.3",
        "inspect(), when the driver has it, returns a well-formed inspection and names every failure with a known reason",
        async (fixture) => {
          const { driver } = fixture;
          if (!driver.inspect) return; // optional member: nothing to check
          const inspection = await driver.inspect();
          const caps = driver.descriptor.capabilities;
          expect(inspection.driver).toBe(driver.descriptor.type);
          expect(inspection.ok).toBe(inspection.failed.length === 0);
          expect(inspection.mcp).toEqual({ supported: caps.mcp.transports.length > 0, transports: caps.mcp.transports });
          expect(typeof inspection.authentication.present).toBe("boolean");
          expect(typeof inspection.skills.supported).toBe("boolean");
          for (const failure of inspection.failed) {
            expect(INSPECT_REASONS, failure.message).toContain(failure.reason);
            expect(failure.message).toMatch(/\S/);
          }
          if (inspection.models.supported) for (const model of inspection.models.models) expect(model).toMatch(/\S/);
          else expect(inspection.models.reason).toMatch(/\S/);
          if (inspection.version.matches !== undefined)
            expect(inspection.version.matches).toBe(inspection.version.found === inspection.version.pinned);
        },
        () => true,
      );
    });

    describe("3 events", () => {
      clause("3.1", "emits only while run() is in flight, in order", async (fixture) => {
        const result = await run(fixture, options.scripted.text(fixture).request);
        succeeded(result);
        const { events, lateEvents } = result.recording;
        expect(events.length).toBeGreaterThan(0);
        events.forEach((e, i) => expect(e.sequence).toBe(i + 1));
        for (const { event } of events)
          expect(["text-delta", "thinking-delta", "tool-call", "tool-result", "notice", "process"]).toContain(event.type);
        await settleAfterRun(result, fixture.driver.descriptor.capabilities);
        expect(lateEvents).toEqual([]);
      });

      clause("3.2", "text turn: deltas carry the final text; transcript and raw hold it", async (fixture) => {
        const turn = options.scripted.text(fixture);
        const result = await run(fixture, turn.request);
        succeeded(result);
        const { response, recording } = result;
        expect(response.text).toMatch(/\S/);
        expect(matches(response.text, turn.expectText), textMessage(response.text, turn.expectText)).toBe(true);
        const deltas = recording.ofType("text-delta");
        for (const delta of deltas) expect(typeof delta.text).toBe("string");
        if (fixture.driver.descriptor.capabilities.streaming.textDeltas) {
          expect(deltas.length).toBeGreaterThan(0);
          expect(recording.text()).toContain(response.text);
        }
        expect(response.transcript.some((item) => item.kind === "assistant" && item.text === response.text)).toBe(true);
        expect(typeof response.raw.stdout).toBe("string");
        if (response.usage) {
          expect(response.usage.inputTokens).toBeGreaterThanOrEqual(0);
          expect(response.usage.outputTokens).toBeGreaterThanOrEqual(0);
        }
      });

      clause(
        "3.3",
        "tool turn: tool-call start/end and tool-result are well-formed and paired",
        async (fixture) => {
          const result = await run(fixture, options.scripted.toolApproval(fixture).request);
          succeeded(result);
          const calls = result.recording.ofType("tool-call");
          const results = result.recording.ofType("tool-result");
          expect(calls.length).toBeGreaterThan(0);
          expect(results.length).toBeGreaterThan(0);
          const started = new Set<string>();
          for (const call of calls) {
            expect(call.id).toMatch(/\S/);
            expect(call.name).toMatch(/\S/);
            if (call.phase === "start") started.add(call.id);
            else expect(started.has(call.id), `${call.phase} of ${call.id} before its start`).toBe(true);
            if (call.phase === "end") expect(call.input).not.toBeUndefined();
            if (call.phase === "args") expect(typeof call.argsDelta).toBe("string");
          }
          for (const toolResult of results) {
            expect(started.has(toolResult.id), `tool-result ${toolResult.id} without a tool-call`).toBe(true);
            expect(typeof toolResult.output).toBe("string");
            expect(typeof toolResult.isError).toBe("boolean");
          }
        },
        (caps) => caps.approvals.permission.includes("ask") || caps.approvals.permission.includes("inherit"),
      );

      clause(
        "3.4",
        "usage: the response carries the usage the backend reported",
        async (fixture) => {
          const turn = options.scripted.text(fixture);
          const result = await run(fixture, turn.request);
          succeeded(result);
          expect(result.response.usage, "response.usage").toBeDefined();
          expect(result.response.usage).toMatchObject(turn.expectUsage ?? {});
        },
        (_caps, fixture) => options.scripted.text(fixture).expectUsage !== undefined || "scripted.text gives no expectUsage",
      );

      clause("3.5", "a turn nobody interrupted is not reported interrupted", async (fixture) => {
        const result = await run(fixture, options.scripted.text(fixture).request);
        expect(result.error, String(result.error)).toBeUndefined();
        expect(result.response?.interrupted, UNASKED_INTERRUPT).not.toBe(true);
      });
    });

    describe("4 cancel", () => {
      clause("4.1", "an already aborted signal rejects at once, launching nothing", async (fixture) => {
        const controller = new AbortController();
        const reason = new DOMException("aborted before the run", "AbortError");
        controller.abort(reason);
        const result = await run(fixture, options.scripted.text(fixture).request, { signal: controller.signal });
        expect(result.error).toBeDefined();
        expect(walkError(result.error, (node) => node === result.abortReason)).toBe(true);
        expect(result.recording.pids()).toEqual([]);
      });

      clause("4.2", "cancel mid-turn: rejects with the abort reason on the cause chain, every process gone", async (fixture) => {
        const cancelAfterMs = options.cancelAfterMs ?? 1500;
        const result = await run(fixture, options.scripted.slow(fixture).request, { cancelAfterMs });
        expect(result.abortReason).toBeDefined();
        expect(result.response, "a cancelled run must not resolve").toBeUndefined();
        expect(
          walkError(result.error, (node) => node === result.abortReason),
          String(result.error),
        ).toBe(true);
        expect(result.durationMs).toBeLessThan(cancelAfterMs + 15_000);
        for (const pid of result.recording.pids()) expect(processGone(pid), `pid ${pid} still alive`).toBe(true);
        await settleAfterRun(result, fixture.driver.descriptor.capabilities);
        expect(result.recording.lateEvents).toEqual([]);
      });
    });

    describe("5 checkpoints", () => {
      clause("5.1", "a failed run yields no checkpoint", async (fixture) => {
        const result = await run(fixture, options.scripted.failing(fixture).request);
        expect(result.error).toBeUndefined();
        expect(result.response?.failure).toBeDefined();
        expect(result.response?.checkpoint).toBeUndefined();
      });

      clause(
        "5.2",
        "a successful run yields a checkpoint with a resume id",
        async (fixture) => {
          const result = await run(fixture, options.scripted.text(fixture).request);
          succeeded(result);
          expect(result.response.checkpoint?.resumeId).toMatch(/\S/);
        },
        (caps) => caps.sessions.resume,
      );

      clause(
        "5.3",
        "the checkpoint resumes in a new run, which yields a checkpoint again",
        async (fixture) => {
          const first = await run(fixture, options.scripted.text(fixture).request);
          succeeded(first);
          const resumeId = first.response.checkpoint?.resumeId as string;
          const followUp = (options.scripted.followUp ?? options.scripted.text)(fixture);
          const second = await run(fixture, { ...followUp.request, session: { resumeId } });
          succeeded(second);
          expect(matches(second.response.text, followUp.expectText), textMessage(second.response.text, followUp.expectText)).toBe(true);
          expect(second.response.checkpoint?.resumeId).toMatch(/\S/);
        },
        (caps) => caps.sessions.resume,
      );

      clause(
        "5.4",
        "fork yields a checkpoint with a different resume id",
        async (fixture) => {
          const first = await run(fixture, options.scripted.text(fixture).request);
          succeeded(first);
          const resumeId = first.response.checkpoint?.resumeId as string;
          const followUp = (options.scripted.followUp ?? options.scripted.text)(fixture);
          const forked = await run(fixture, { ...followUp.request, session: { resumeId, fork: true } });
          succeeded(forked);
          expect(forked.response.checkpoint?.resumeId).toMatch(/\S/);
          expect(forked.response.checkpoint?.resumeId).not.toBe(resumeId);
        },
        (caps) => caps.sessions.fork,
      );

      clause(
        "5.5",
        "an unknown resume id is resume_rejected, without a checkpoint",
        async (fixture) => {
          const turn = options.scripted.text(fixture);
          const result = await run(fixture, { ...turn.request, session: { resumeId: "01a22a7a-0000-7000-8000-000000000000" } });
          expect(result.error, String(result.error)).toBeUndefined();
          expect(result.response?.failure?.reason).toBe("resume_rejected");
          expect(result.response?.checkpoint).toBeUndefined();
        },
        (caps) => caps.sessions.resume,
      );
    });

    describe("6 approvals", () => {
      const asks = (caps: DriverCapabilities): boolean => caps.approvals.permission.includes("ask");
      clause(
        "6.1",
        "approve: asked once per tool call, awaited, the tool succeeds",
        async (fixture) => {
          let answeredAt = 0;
          const turn = options.scripted.toolApproval(fixture);
          const result = await run(fixture, turn.request, {
            onApproval: async () => {
              await new Promise((resolve) => setTimeout(resolve, 150));
              answeredAt = Date.now();
              return { outcome: "approve" };
            },
          });
          succeeded(result);
          const { asks: asked, events } = result.recording;
          expect(asked.length).toBeGreaterThan(0);
          for (const ask of asked) {
            expect(ask.kind).toBe("permission");
            expect(ask.title).toMatch(/\S/);
          }
          const ids = asked.map((ask) => ask.toolCallId).filter((id): id is string => id !== undefined);
          expect(new Set(ids).size).toBe(ids.length);
          const approvedResults = events.filter((e) => e.event.type === "tool-result" && (ids.length === 0 || ids.includes(e.event.id)));
          expect(approvedResults.length).toBeGreaterThan(0);
          for (const e of approvedResults) {
            expect(e.time).toBeGreaterThanOrEqual(answeredAt);
            expect(e.event.type === "tool-result" && e.event.isError).toBe(false);
          }
          if (turn.toolRan) expect(await turn.toolRan(), "the approved tool took effect").toBe(true);
        },
        asks,
      );

      clause(
        "6.2",
        "deny: the run completes and the tool result is an error",
        async (fixture) => {
          const turn = options.scripted.toolApproval(fixture);
          const result = await run(fixture, turn.request, {
            onApproval: () => ({ outcome: "deny", reason: "denied by the conformance kit" }),
          });
          succeeded(result);
          expect(result.recording.asks.length).toBeGreaterThan(0);
          const ids = result.recording.asks.map((ask) => ask.toolCallId);
          for (const toolResult of result.recording.ofType("tool-result")) {
            if (ids.includes(toolResult.id)) expect(toolResult.isError).toBe(true);
          }
          expect(await toolTookEffect(turn, result), "the denied tool took effect").toBe(false);
        },
        asks,
      );

      clause(
        "6.3",
        "auto_deny: the run completes and the tool takes no effect",
        async (fixture) => {
          const turn = options.scripted.toolApproval(fixture);
          // The SDK's approval broker answers auto modes; the kit's sink plays that part for asks the driver forwards.
          const result = await run(fixture, withPolicy(turn, { approvals: { permission: "auto_deny" } }), {
            onApproval: () => ({ outcome: "deny", reason: "denied by policy" }),
          });
          succeeded(result);
          const ids = result.recording.asks.map((ask) => ask.toolCallId);
          for (const toolResult of result.recording.ofType("tool-result")) {
            if (ids.includes(toolResult.id)) expect(toolResult.isError).toBe(true);
          }
          expect(await toolTookEffect(turn, result), "the tool took effect under auto_deny").toBe(false);
        },
        (caps) => caps.approvals.permission.includes("auto_deny"),
      );

      clause(
        "6.4",
        "explicit ask: the tool does not run before an approval is asked (denied here)",
        async (fixture) => {
          const turn = options.scripted.toolApproval(fixture);
          const result = await run(fixture, withPolicy(turn, { approvals: { permission: "ask" } }), {
            onApproval: () => ({ outcome: "deny", reason: "denied by the conformance kit" }),
          });
          succeeded(result);
          const ran = await toolTookEffect(turn, result);
          expect(ran && result.recording.asks.length === 0, "the tool ran without an approval being asked").toBe(false);
          expect(result.recording.asks.length, "approvals asked under ask").toBeGreaterThan(0);
          expect(ran, "the denied tool took effect").toBe(false);
        },
        asks,
      );
    });

    describe("7 structured output", () => {
      clause(
        "7.1",
        "the value comes back as response.structured",
        async (fixture) => {
          const structured = options.scripted.structured;
          if (!structured) throw new Error("the descriptor declares structured output but scripted.structured is missing");
          const turn = structured(fixture);
          expect(turn.request.outputSchema).toBeDefined();
          const result = await run(fixture, turn.request);
          succeeded(result);
          expect(result.response.structured).toEqual(turn.expectValue);
        },
        // Prompt mode is the SDK's: it validates the text and never hands the driver an outputSchema.
        (caps) => caps.structuredOutput.native || (caps.structuredOutput.prompt ? "structured output by prompt: the SDK's part" : false),
      );
    });

    describe("8 error verdicts", () => {
      clause("8.1", "a failing turn resolves with a classified failure carrying the backend's message", async (fixture) => {
        const turn = options.scripted.failing(fixture);
        const result = await run(fixture, turn.request);
        expect(result.error, String(result.error)).toBeUndefined();
        const failure = result.response?.failure;
        expect(failure?.reason).toBe(turn.expectReason ?? "agent_error");
        expect(failure?.message).toMatch(/\S/);
        expect(matches(failure?.message ?? "", turn.expectMessage), `message ${JSON.stringify(failure?.message)}`).toBe(true);
      });
      if (options.makeMissingDriver) {
        const makeMissing = options.makeMissingDriver;
        clause("8.2", "a missing executable rejects with DriverError NOT_FOUND", async (fixture) => {
          const result = await runDriver(makeMissing(), options.scripted.text(fixture).request);
          expect(errorCode(result.error)).toBe(ErrCode.NotFound);
        });
      } else {
        it.skip("8.2 a missing executable rejects with NOT_FOUND (no makeMissingDriver given)", () => undefined);
      }
      if (options.scripted.crashing) {
        const crashing = options.scripted.crashing;
        clause("8.3", "a CLI that dies before its terminal line resolves with an agent_error failure naming the exit", async (fixture) => {
          const turn = crashing(fixture);
          const result = await run(fixture, turn.request);
          expect(result.error, String(result.error)).toBeUndefined();
          const failure = result.response?.failure;
          expect(failure?.reason, "a crash is a failure, never a success").toBe(turn.expectReason ?? "agent_error");
          expect(failure?.message).toMatch(/\S/);
          const details = failure?.details ?? {};
          expect(
            typeof details.exitCode === "number" || typeof details.exitSignal === "string",
            `failure.details names the exit: ${JSON.stringify(details)}`,
          ).toBe(true);
          expect(result.response?.checkpoint).toBeUndefined();
        });
      } else {
        it.skip("8.3 a crashing CLI is an agent_error failure (no scripted.crashing given)", () => undefined);
      }
    });
  });
}
