import { isDeepStrictEqual } from "node:util";
import type { DriverEvent } from "@adaptor/driver";
import { knownInput, type McpServerTools } from "@adaptor/driver/kit";
import { hostToolOf } from "./host-tool-of.js";

/** One `tool-call` of a host tool the run reported and no host-tool call has claimed yet. */
interface ReportedCall {
  readonly id: string;
  readonly name: string;
  input: unknown;
  /** An argument fragment came and the complete input (`end`) has not: the input is not known yet. */
  streaming: boolean;
}

/** A reported host-tool call: its tool's own name, the name the agent gave it, and its input once reported. */
interface HostCall {
  readonly tool: string;
  readonly agentName: string;
  /** Whether an event of the call carried its input (the `end` phase, or an earlier one that had it). */
  inputKnown: boolean;
  input: unknown;
}

/** A host-tool call waiting for its `tool-call` event. */
interface Waiter {
  readonly tool: string;
  readonly args: unknown;
  readonly settle: (id: string | undefined) => void;
}

/** Reported calls kept for matching at most; the oldest go first beyond it. */
const MAX_UNCLAIMED = 256;
/** Ids of reported calls (of any tool) kept at most; the oldest go first beyond it. */
const MAX_REPORTED = 1024;
/** Answered calls awaiting the CLI's own result kept at most; the oldest go first beyond it. */
const MAX_ANSWERED = 256;
/** Ids of calls a host-tool call took kept at most; the oldest go first beyond it. */
const MAX_CLAIMED = 1024;
/**
 * Host-tool calls with an id waiting for that id's `tool-call` event (or its input) at most; one
 * beyond it is refused at once.
 */
const MAX_REPORT_WAITERS = 64;
/** Host-tool calls without an id waiting for a reported call at most; one beyond it is refused at once. */
const MAX_WAITERS = 64;

/**
 * How long a host-tool call waits for its `tool-call` event when the agent has not reported it
 * yet (its notice and its MCP request travel apart), ms.
 */
export const CLAIM_WAIT_MS = 5_000;

/**
 * How long a host-tool call whose CLI sent its call id waits for the run's `tool-call` event of
 * that id before its approval, notices and `tool-result` go out without it, ms. The CLI reports
 * the call before it calls the tool, but the report (the CLI's output) and the MCP request (HTTP)
 * travel apart and either can reach the SDK first.
 */
export const REPORT_WAIT_MS = 5_000;

/**
 * Ties a run's host-tool calls to the `tool-call` events the run reported for them. Fed every
 * driver event of the run ({@link observe}), before the event is queued.
 *
 * - Ids: a call whose CLI sent no call id with its MCP request (Gemini CLI, codex-acp) claims
 *   ({@link claim}) the oldest reported, unclaimed call of that tool whose input is its arguments,
 *   else the oldest whose input the agent did not report (absent, `null` or `{}`), waiting up to
 *   {@link CLAIM_WAIT_MS} for one to be reported. Each reported call is claimed at most once.
 * - Order: a call whose CLI sent its id waits ({@link reported}) until the run's `tool-call` event
 *   of that id is out, so the call's approval, notices and `tool-result` follow it.
 * - Trust: a call is one the run's agent made only when it matches a reported call of that tool,
 *   once ({@link reported} true, or {@link claim} an id); any other request that reaches the
 *   server with the run's token (a process that read the token) is not the agent's call.
 * - One result: the host's `tool-result` of a call ({@link answered}) stands for it; the CLI's own
 *   `tool-result` of that id that follows is folded into it ({@link folds}).
 */
export class HostCallIds {
  readonly #server: McpServerTools;
  readonly #unclaimed: ReportedCall[] = [];
  /** Ids of reported calls a host-tool call took, oldest first. */
  readonly #claimed = new Set<string>();
  readonly #waiters: Waiter[] = [];
  /** Ids of the run's reported calls, each with its delegation's id (a subagent's call), oldest first. */
  readonly #reported = new Map<string, string | undefined>();
  /** What to call once the call of an id is reported (and again once its input is). */
  readonly #reportWaiters = new Map<string, (() => void)[]>();
  /** How many host-tool calls wait in {@link #reportWaiters}. */
  #reportWaiting = 0;
  /** Calls the host answered whose CLI result has not come yet, oldest first. */
  readonly #answered = new Set<string>();
  /** The reported calls of host tools: their tool's own name and the name the agent gave the call, oldest first. */
  readonly #hostCalls = new Map<string, HostCall>();

  /** `server` is the host-tool server's name in the run's `mcpServers`, `tools` its tools' names. */
  constructor(server: string, tools: Iterable<string>) {
    this.#server = { name: server, tools: new Set(tools) };
  }

  /**
   * Notes the run's `tool-call` events: every call's id, and the host tools' calls (and the input a
   * later `end` phase gives) for {@link claim}. A `tool-result` of a reported host-tool call no
   * request has taken yet is the CLI's own answer to it (it refused the call: a tool taken away by
   * `disallowedTools`, a rule of its own): the call is closed, so no later request takes it.
   */
  observe(event: DriverEvent): void {
    if (event.type === "tool-result") {
      if (!this.#hostCalls.has(event.id) || this.#claimed.has(event.id)) return;
      this.#claim(event.id);
      const at = this.#unclaimed.findIndex((unclaimed) => unclaimed.id === event.id);
      if (at !== -1) this.#unclaimed.splice(at, 1);
      return;
    }
    if (event.type !== "tool-call") return;
    const hostTool = hostToolOf(event.name, this.#server);
    if (hostTool !== undefined) {
      const noted = this.#hostCalls.get(event.id);
      if (noted === undefined) {
        this.#hostCalls.set(event.id, { tool: hostTool, agentName: event.name, inputKnown: false, input: undefined });
        if (this.#hostCalls.size > MAX_REPORTED) this.#hostCalls.delete(this.#hostCalls.keys().next().value!);
      }
      const hostCall = this.#hostCalls.get(event.id);
      if (hostCall && (event.phase === "end" || event.input !== undefined)) {
        if (event.input !== undefined || !hostCall.inputKnown) hostCall.input = event.input;
        hostCall.inputKnown = true;
      }
    }
    this.#noteReported(event.id, event.parentToolCallId);
    if (this.#claimed.has(event.id)) return;
    const known = this.#unclaimed.find((call) => call.id === event.id);
    if (known) {
      if (event.input !== undefined) known.input = event.input;
      if (event.phase === "args") known.streaming = true;
      if (event.phase === "end") known.streaming = false;
    } else {
      if (hostTool === undefined) return;
      this.#unclaimed.push({ id: event.id, name: hostTool, input: event.input, streaming: event.phase === "args" });
      if (this.#unclaimed.length > MAX_UNCLAIMED) this.#unclaimed.shift();
    }
    for (const waiter of [...this.#waiters]) {
      const id = this.#take(waiter.tool, waiter.args);
      if (id !== undefined) waiter.settle(id);
    }
  }

  /**
   * The id of the reported call of `tool` that a call with `args` is, now claimed; `undefined`
   * when none fits within {@link CLAIM_WAIT_MS} (the agent reports it differently or not at all)
   * or `signal` aborts first.
   */
  async claim(tool: string, args: unknown, signal?: AbortSignal): Promise<string | undefined> {
    const now = this.#take(tool, args);
    if (now !== undefined || signal?.aborted || this.#waiters.length >= MAX_WAITERS) return now;
    return new Promise((resolve) => {
      const settle = (id: string | undefined): void => {
        clearTimeout(timer);
        signal?.removeEventListener("abort", abort);
        const at = this.#waiters.indexOf(waiter);
        if (at !== -1) this.#waiters.splice(at, 1);
        resolve(id);
      };
      const abort = (): void => settle(undefined);
      const waiter: Waiter = { tool, args, settle };
      const timer = setTimeout(abort, CLAIM_WAIT_MS);
      signal?.addEventListener("abort", abort, { once: true });
      this.#waiters.push(waiter);
    });
  }

  /**
   * Whether call `id`, as a host-tool call sent it with `args`, is a call of host tool `tool` the
   * run reported with that input: waits until the run's `tool-call` event of that id is out and
   * has given the call's input (the `end` phase; at once when it has), at most
   * {@link REPORT_WAIT_MS} or until `signal` aborts. The reported input must be `args` (compared
   * as {@link claim} does). One-shot: a call that matches is claimed (no {@link claim} takes it)
   * and a second request with the same id gets false; an id the run reported for another tool,
   * with another input, or never (within the wait) gets false and stays as it was. Beyond
   * `MAX_REPORT_WAITERS` calls waiting at once, a call that would wait gets false at once.
   */
  async reported(id: string, tool: string, args: unknown, signal?: AbortSignal): Promise<boolean> {
    if (this.#claimed.has(id)) return false;
    // Ready once the id is reported and, for a call of this tool, its input is known.
    const ready = (): boolean => {
      const call = this.#hostCalls.get(id);
      return this.#reported.has(id) && (call?.tool !== tool || call.inputKnown);
    };
    if (!ready() && !signal?.aborted && this.#reportWaiting < MAX_REPORT_WAITERS) await this.#reportOf(id, ready, signal);
    const call = this.#hostCalls.get(id);
    if (this.#claimed.has(id) || !this.#reported.has(id) || call?.tool !== tool || !call.inputKnown) return false;
    if (!sameArguments(call.input ?? {}, args)) return false;
    this.#claim(id);
    const at = this.#unclaimed.findIndex((unclaimed) => unclaimed.id === id);
    if (at !== -1) this.#unclaimed.splice(at, 1);
    return true;
  }

  /** The name the agent gave reported host-tool call `id` (e.g. `mcp__adaptor__lookup`); `undefined` for another id. */
  agentNameOf(id: string): string | undefined {
    return this.#hostCalls.get(id)?.agentName;
  }

  /** Resolves once `ready()` holds after an event of call `id`, after {@link REPORT_WAIT_MS}, or when `signal` aborts. */
  #reportOf(id: string, ready: () => boolean, signal: AbortSignal | undefined): Promise<void> {
    this.#reportWaiting++;
    return new Promise((resolve) => {
      const check = (): void => {
        if (ready()) settle();
      };
      const settle = (): void => {
        clearTimeout(timer);
        this.#reportWaiting--;
        signal?.removeEventListener("abort", settle);
        const waiting = this.#reportWaiters.get(id)?.filter((other) => other !== check) ?? [];
        if (waiting.length > 0) this.#reportWaiters.set(id, waiting);
        else this.#reportWaiters.delete(id);
        resolve();
      };
      const timer = setTimeout(settle, REPORT_WAIT_MS);
      signal?.addEventListener("abort", settle, { once: true });
      this.#reportWaiters.set(id, [...(this.#reportWaiters.get(id) ?? []), check]);
    });
  }

  /** The delegation's `tool-call` id of reported call `id` (a subagent's call); `undefined` for others. */
  parentOf(id: string): string | undefined {
    return this.#reported.get(id);
  }

  /** Notes that the host's `tool-result` of call `id` is out: it stands for the call ({@link folds}). */
  answered(id: string): void {
    this.#answered.add(id);
    if (this.#answered.size > MAX_ANSWERED) this.#answered.delete(this.#answered.values().next().value!);
  }

  /**
   * Whether `event` is the CLI's own `tool-result` of a call the host already answered, which the
   * host's result stands for and the run does not emit again. True once per answered call.
   */
  folds(event: DriverEvent): boolean {
    if (event.type !== "tool-result" || !this.#answered.has(event.id)) return false;
    this.#answered.delete(event.id);
    return true;
  }

  #noteReported(id: string, parent: string | undefined): void {
    if (!this.#reported.has(id) || parent !== undefined) this.#reported.set(id, parent ?? this.#reported.get(id));
    if (this.#reported.size > MAX_REPORTED) this.#reported.delete(this.#reported.keys().next().value!);
    const waiting = this.#reportWaiters.get(id);
    if (waiting) for (const check of waiting) check();
  }

  #claim(id: string): void {
    this.#claimed.add(id);
    if (this.#claimed.size > MAX_CLAIMED) this.#claimed.delete(this.#claimed.values().next().value!);
  }

  /**
   * Claims the best reported call for `tool` with `args`, if any: one whose input is `args`, else
   * one whose input the agent did not report (a call whose input is still streaming is not one:
   * it waits for its `end`).
   */
  #take(tool: string, args: unknown): string | undefined {
    const fits = (call: ReportedCall): boolean => call.name === tool;
    const exact = this.#unclaimed.findIndex((call) => fits(call) && sameArguments(call.input, args));
    const at = exact !== -1 ? exact : this.#unclaimed.findIndex((call) => fits(call) && !call.streaming && !knownInput(call.input));
    if (at === -1) return undefined;
    const [call] = this.#unclaimed.splice(at, 1);
    this.#claim(call!.id);
    return call!.id;
  }
}

/** The reported input is the call's arguments, or wraps them (`{ server, tool, arguments }`, codex-acp). */
function sameArguments(input: unknown, args: unknown): boolean {
  const given = args ?? {};
  if (isDeepStrictEqual(input, given)) return true;
  if (typeof input !== "object" || input === null || !("arguments" in input)) return false;
  return isDeepStrictEqual((input as { arguments: unknown }).arguments ?? {}, given);
}
