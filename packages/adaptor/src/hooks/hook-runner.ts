import {
  FeatureUnsupportedError,
  type DriverEvent,
  type HookAnswer,
  type HookAsk,
  type HookPoint,
  type ToolHookPoint,
} from "@adaptor/driver";
import { raceAbort, type McpServerTools } from "@adaptor/driver/kit";
import { AdaptorError, DriverError, ErrCode, InvalidOptionError } from "@adaptor/errors";
import { HOST_TOOL_SERVER_NAME } from "../tools/agent-tools.js";
import { hostToolOf } from "../tools/host-tool-of.js";
import type { AfterToolCallHook, BeforeToolCallHook, HookContext, MatchedToolHook, RunHooks, ToolHookOption } from "./run-hooks.js";
import { matchesTool } from "./tool-matcher.js";

/** The hook option of each hook point. */
const HOOK_NAMES: Readonly<Record<HookPoint, keyof RunHooks>> = {
  beforeToolCall: "beforeToolCall",
  afterToolCall: "afterToolCall",
  promptSubmit: "onPromptSubmit",
  stop: "onStop",
  sessionStart: "onSessionStart",
  sessionEnd: "onSessionEnd",
  notification: "onNotification",
  preCompact: "onPreCompact",
  subagentStart: "onSubagentStart",
  subagentStop: "onSubagentStop",
};

/** The `RunHooks` option name of a hook point, e.g. `onStop` for `stop`. */
export function hookName(point: HookPoint): keyof RunHooks {
  return HOOK_NAMES[point];
}

/** The hook points of the hooks the host set. */
export function hookPoints(hooks: RunHooks): HookPoint[] {
  return (Object.keys(HOOK_NAMES) as HookPoint[]).filter((point) => hooks[HOOK_NAMES[point]] !== undefined);
}

/** The hook points the SDK can call a hook at by observing the run, where the agent does not wait for it. */
export const OBSERVABLE_HOOK_POINTS: readonly HookPoint[] = ["afterToolCall", "promptSubmit", "stop"];

/** One matcher group of a tool hook: its function and its matcher (undefined: every tool). */
export interface ToolHookGroup<H> {
  readonly hook: H;
  readonly matcher: string | undefined;
}

/** A tool hook option's matcher groups, in order; none when unset. */
export function toolHookGroups<H>(option: ToolHookOption<H> | undefined): ToolHookGroup<H>[] {
  if (option === undefined) return [];
  const entries = (Array.isArray(option) ? option : [option]) as readonly (H | MatchedToolHook<H>)[];
  return entries.map((entry) => {
    if (typeof entry === "object" && entry !== null) {
      const matched = entry as MatchedToolHook<H>;
      return { hook: matched.hook, matcher: matched.matcher };
    }
    return { hook: entry, matcher: undefined };
  });
}

/**
 * The matchers of the run's tool hooks, per point one per group in order (`"*"` for a group
 * without one); a point whose only group has no matcher is left out (every tool).
 */
export function toolHookMatchers(hooks: RunHooks): Partial<Record<ToolHookPoint, string[]>> {
  const matchers: Partial<Record<ToolHookPoint, string[]>> = {};
  for (const point of ["beforeToolCall", "afterToolCall"] as const) {
    const groups = toolHookGroups<unknown>(hooks[point]);
    if (groups.length > 1 || groups.some((group) => group.matcher !== undefined))
      matchers[point] = groups.map((group) => group.matcher ?? "*");
  }
  return matchers;
}

/** How many denied tool call ids a run's hooks keep, to answer the later groups of a denied call. */
const DENIED_KEPT = 256;

/** How long one hook call may take by default before it fails the run, in ms (the Claude Agent SDK's hook `timeout`). */
export const DEFAULT_HOOK_TIMEOUT_MS = 60_000;

/** The verdict keys each point may answer with (none: the hook observes). */
const VERDICTS: Readonly<Record<HookPoint, readonly (keyof HookAnswer)[]>> = {
  beforeToolCall: ["deny", "updatedInput", "additionalContext"],
  afterToolCall: ["additionalContext"],
  promptSubmit: ["additionalContext"],
  stop: ["continueWith"],
  sessionStart: ["additionalContext"],
  sessionEnd: [],
  notification: [],
  preCompact: [],
  subagentStart: ["additionalContext"],
  subagentStop: ["continueWith"],
};

/** What the agent is told when the run ended or a hook failed while it waited for an answer: a tool call is denied. */
export function fallback(point: HookPoint, why: string): HookAnswer {
  return point === "beforeToolCall" ? { deny: why } : {};
}

/**
 * Calls one run's {@link RunHooks}: at the points the driver carries (`native`), when the driver
 * asks ({@link ask}); at the others, as the run goes by (a `tool-result` event, the prompt before
 * launch, the driver's success). Each matcher group of a tool hook is called only for the calls
 * its matcher names: the agent filters them and names the group where the driver handed it the
 * matchers (`matchersApplied`), the runner does elsewhere; the groups' verdicts combine as
 * `ToolHookOption` says (the first deny wins). One hook at a time, in order. A hook that fails, answers what it may not, or has
 * not settled within `timeoutMs` (a `DriverError` `TIMEOUT`, op `hook`), calls `onFailure` once with an `AdaptorError` (`hook <name> failed`) whose cause says why; later
 * asks get the fallback answer (a tool call is denied) without calling the host.
 */
export class HookRunner {
  readonly #hooks: RunHooks;
  readonly #native: ReadonlySet<HookPoint>;
  /** The agent calls the native tool hooks only for the calls their matchers name. */
  readonly #matchersApplied: boolean;
  readonly #runId: string;
  readonly #driver: string;
  /** The run's host-tool server and its tools' own names, to read a call's name in any form agents give it. */
  readonly #hostTools: McpServerTools;
  readonly #onFailure: (error: AdaptorError) => void;
  readonly #ended = new AbortController();
  readonly #signal: AbortSignal;
  readonly #timeoutMs: number;
  /** Observed tool calls by id: their name and input, from `tool-call` events. */
  readonly #calls = new Map<string, { name: string; input: unknown }>();
  /**
   * The tool calls a `beforeToolCall` group denied, by id (at most {@link DENIED_KEPT}, oldest
   * dropped first): an agent that calls each group itself (Claude Code, all at once) gets no verdict
   * from the later groups of a denied call, which are not called, so the first deny stands.
   */
  readonly #denied = new Set<string>();
  /** The observed hooks called so far, in order. */
  #queue: Promise<void> = Promise.resolve();
  #failed = false;

  constructor(init: {
    readonly hooks: RunHooks;
    readonly native: readonly HookPoint[];
    /** The driver handed the agent the tool hooks' matchers (`DriverRequest.hookMatchers`). */
    readonly matchersApplied?: boolean;
    readonly runId: string;
    readonly driver: string;
    /** The names of the run's host tools. */
    readonly hostTools?: readonly string[];
    readonly signal: AbortSignal;
    /** How long one hook call may take, in ms; `Infinity` for no bound. Default {@link DEFAULT_HOOK_TIMEOUT_MS}. */
    readonly timeoutMs?: number;
    readonly onFailure: (error: AdaptorError) => void;
  }) {
    this.#hooks = init.hooks;
    this.#native = new Set(init.native);
    this.#matchersApplied = init.matchersApplied === true;
    this.#runId = init.runId;
    this.#driver = init.driver;
    this.#hostTools = { name: HOST_TOOL_SERVER_NAME, tools: init.hostTools ?? [] };
    this.#onFailure = init.onFailure;
    this.#signal = AbortSignal.any([init.signal, this.#ended.signal]);
    this.#timeoutMs = init.timeoutMs ?? DEFAULT_HOOK_TIMEOUT_MS;
  }

  /**
   * The answer of the hook at a native point, for `DriverSink.hook`. Always resolves. A host tool's
   * `beforeToolCall` is not asked here (the answer is empty: the CLI goes on to call the tool): the
   * SDK's host-tool server asks it for each call that reaches it ({@link beforeHostToolCall}), so
   * the hook is called once per call, and also for a request the CLI's own hook never saw.
   */
  ask(ask: HookAsk): Promise<HookAnswer> {
    if (ask.point === "beforeToolCall" && hostToolOf(ask.toolName, this.#hostTools) !== undefined) return Promise.resolve({});
    const run = this.#queue.then(() => this.#call(ask, true));
    this.#queue = run.then(() => undefined);
    return run;
  }

  /**
   * The `beforeToolCall` verdict for a host-tool call that reached the SDK's host-tool server (a
   * run whose driver takes `beforeToolCall`; the others refuse it before launch): every matcher group whose matcher names `ask.toolName` (the name the agent gave the
   * call, e.g. `mcp__adaptor__lookup`), in order, combined as for a CLI's call (the first deny
   * wins). Empty without a `beforeToolCall` hook. Fails closed: once the run ended or a hook failed,
   * the call is denied. Always resolves.
   */
  beforeHostToolCall(ask: Extract<HookAsk, { readonly point: "beforeToolCall" }>): Promise<HookAnswer> {
    if (this.#hooks.beforeToolCall === undefined) return Promise.resolve({});
    const run = this.#queue.then(() => this.#call(ask, true, true));
    this.#queue = run.then(() => undefined);
    return run;
  }

  /** Calls the observed `afterToolCall` at each `tool-result` event. Never throws. */
  observe(event: DriverEvent): void {
    if (this.#hooks.afterToolCall === undefined || this.#native.has("afterToolCall")) return;
    if (event.type === "tool-call") {
      const known = this.#calls.get(event.id);
      if (event.phase === "start" || event.phase === "end")
        this.#calls.set(event.id, { name: event.name, input: event.phase === "end" ? event.input : known?.input });
      return;
    }
    if (event.type !== "tool-result") return;
    const call = this.#calls.get(event.id);
    this.#calls.delete(event.id);
    const ask: HookAsk = {
      point: "afterToolCall",
      toolCallId: event.id,
      ...(event.parentToolCallId !== undefined ? { parentToolCallId: event.parentToolCallId } : {}),
      toolName: event.name ?? call?.name ?? "",
      input: call?.input,
      output: event.output,
      isError: event.isError,
    };
    this.#queue = this.#queue.then(() => this.#call(ask, false)).then(() => undefined);
  }

  /** Calls the observed `onPromptSubmit` for the run's prompt, before the driver starts. */
  async promptSubmitted(prompt: string): Promise<void> {
    if (this.#hooks.onPromptSubmit === undefined || this.#native.has("promptSubmit")) return;
    await this.#call({ point: "promptSubmit", prompt }, false);
  }

  /** Calls the observed `onStop` once the driver finished without failure, then waits for every observed hook. */
  async stopped(text: string): Promise<void> {
    await this.settled();
    if (this.#hooks.onStop === undefined || this.#native.has("stop")) return;
    await this.#call({ point: "stop", text }, false);
  }

  /** Resolves once the hooks called so far have answered. */
  settled(): Promise<void> {
    return this.#queue;
  }

  /** The run ended: hooks still working see their signal aborted; later asks get the fallback. */
  end(): void {
    this.#ended.abort(new AdaptorError("the run has ended"));
  }

  /** `byMatcher`: pick the tool hook's groups by their matchers, even where the agent applies them (a host-tool server's call). */
  async #call(ask: HookAsk, native: boolean, byMatcher = false): Promise<HookAnswer> {
    const name = HOOK_NAMES[ask.point];
    if (this.#failed) return fallback(ask.point, "a hook of this run failed");
    if (this.#signal.aborted) return fallback(ask.point, "the run has ended");
    const context: HookContext = { runId: this.#runId, signal: this.#signal, native };
    try {
      if (ask.point !== "beforeToolCall" && ask.point !== "afterToolCall") return await this.#answer(ask, native, context, undefined);
      // A tool hook: each matcher group the call is for, in order; the first deny stops the others.
      const callId = ask.point === "beforeToolCall" ? ask.toolCallId : undefined;
      if (callId !== undefined && this.#denied.has(callId)) return {};
      const answers: HookAnswer[] = [];
      for (const group of this.#groupsFor(ask, native && !byMatcher)) {
        const answer = await this.#answer(ask, native, context, group);
        if (this.#signal.aborted) return fallback(ask.point, "the run has ended");
        if (answer.deny !== undefined) {
          if (callId !== undefined) this.#deniedCall(callId);
          return answer;
        }
        answers.push(answer);
      }
      return combine(answers);
    } catch (error) {
      if (this.#signal.aborted) return fallback(ask.point, "the run has ended");
      if (!this.#failed) {
        this.#failed = true;
        this.#onFailure(new AdaptorError(`hook ${name} failed`, { cause: error }));
      }
      return fallback(ask.point, `the host's ${name} hook failed`);
    }
  }

  /**
   * Calls the hook of `ask` (for a tool hook, the `group` one) within the hook timeout, and reads
   * its verdict; the fallback when the run ended meanwhile.
   * @throws what the hook threw, the timeout's `DriverError`, or why its verdict is refused.
   */
  async #answer(ask: HookAsk, native: boolean, context: HookContext, group: ToolHookGroup<unknown> | undefined): Promise<HookAnswer> {
    const name = HOOK_NAMES[ask.point];
    // A hook still working when the run ends is not waited for: the agent gets the fallback.
    const verdict = await raceAbort(
      this.#bounded(
        Promise.resolve().then(() => this.#invoke(ask, context, group)),
        name,
      ),
      this.#signal,
    );
    if (this.#signal.aborted) return fallback(ask.point, "the run has ended");
    const answer = this.#read(ask.point, verdict);
    if (!native && Object.keys(answer).length > 0) {
      throw new FeatureUnsupportedError(
        this.#driver,
        `hooks.${name}`,
        `its agent does not wait for this hook, so ${Object.keys(answer).join(", ")} cannot be carried (the hook can only observe)`,
      );
    }
    return answer;
  }

  /**
   * `call`, or a `DriverError` `TIMEOUT` (no cause; the message says how long) once it has not
   * settled within the hook timeout; the timer ends with it.
   */
  #bounded<T>(call: Promise<T>, name: keyof RunHooks): Promise<T> {
    if (this.#timeoutMs === Infinity) return call;
    let timer: NodeJS.Timeout | undefined;
    const expired = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        reject(
          new DriverError({
            op: "hook",
            device: `hooks.${name}`,
            code: ErrCode.Timeout,
            // The reason is the message's detail, not a cause: every cause on the chain is an Error.
            detail: `did not settle within hookTimeoutMs=${this.#timeoutMs}`,
          }),
        );
      }, this.#timeoutMs);
    });
    return Promise.race([call, expired]).finally(() => clearTimeout(timer));
  }

  /** Records that a group denied the tool call `id`, forgetting the oldest beyond {@link DENIED_KEPT}. */
  #deniedCall(id: string): void {
    this.#denied.add(id);
    if (this.#denied.size > DENIED_KEPT) this.#denied.delete(this.#denied.values().next().value!);
  }

  /**
   * The matcher groups a tool call is for, in order: the one the agent named (`ask.group`, where
   * the driver handed it the matchers), every group where the agent filtered the calls without
   * naming one, else those whose matcher names the tool.
   */
  #groupsFor(ask: Extract<HookAsk, { readonly point: ToolHookPoint }>, native: boolean): ToolHookGroup<unknown>[] {
    const groups = toolHookGroups<unknown>(this.#hooks[ask.point]);
    if (native && this.#matchersApplied) {
      if (ask.group === undefined) return groups;
      const named = groups[ask.group];
      return named ? [named] : [];
    }
    return groups.filter((group) => group.matcher === undefined || matchesTool(group.matcher, ask.toolName));
  }

  #invoke(ask: HookAsk, context: HookContext, group: ToolHookGroup<unknown> | undefined): unknown {
    const hooks = this.#hooks;
    switch (ask.point) {
      case "beforeToolCall": {
        const { point: _, group: _group, ...call } = ask;
        return (group?.hook as BeforeToolCallHook | undefined)?.(this.#named(call), context);
      }
      case "afterToolCall": {
        const { point: _, group: _group, ...call } = ask;
        return (group?.hook as AfterToolCallHook | undefined)?.(this.#named(call), context);
      }
      case "promptSubmit":
        return hooks.onPromptSubmit?.({ prompt: ask.prompt }, context);
      case "stop": {
        const { point: _, ...stop } = ask;
        return hooks.onStop?.(stop, context);
      }
      case "sessionStart": {
        const { point: _, ...start } = ask;
        return hooks.onSessionStart?.(start, context);
      }
      case "sessionEnd":
        return hooks.onSessionEnd?.({ reason: ask.reason }, context);
      case "notification": {
        const { point: _, ...notification } = ask;
        return hooks.onNotification?.(notification, context);
      }
      case "preCompact": {
        const { point: _, ...compact } = ask;
        return hooks.onPreCompact?.(compact, context);
      }
      case "subagentStart": {
        const { point: _, ...start } = ask;
        return hooks.onSubagentStart?.(start, context);
      }
      case "subagentStop": {
        const { point: _, ...stop } = ask;
        return hooks.onSubagentStop?.(stop, context);
      }
    }
  }

  /** `call` with a host tool named as approvals name it (its own name), and the agent's name in `agentToolName`. */
  #named<T extends { readonly toolName: string }>(call: T): T & { readonly agentToolName: string } {
    return { ...call, toolName: hostToolOf(call.toolName, this.#hostTools) ?? call.toolName, agentToolName: call.toolName };
  }

  /**
   * The driver's answer from a hook's verdict.
   * @throws InvalidOptionError (field `hooks.<name>`) for a verdict that is not nothing or exactly one allowed key of the right type
   * (at `beforeToolCall` also `{ updatedInput, additionalContext }` together).
   */
  #read(point: HookPoint, verdict: unknown): HookAnswer {
    if (verdict === undefined || verdict === null) return {};
    const field = `hooks.${HOOK_NAMES[point]}`;
    const allowed = VERDICTS[point];
    const invalid = (reason: string): InvalidOptionError => new InvalidOptionError({ subject: "hook verdict", field, reason });
    const shapes = point === "beforeToolCall" ? [...allowed, "updatedInput, additionalContext"] : allowed;
    const expected = allowed.length === 0 ? "must return nothing (it observes)" : `must return nothing or { ${shapes.join(" } or { ")} }`;
    if (typeof verdict !== "object" || Array.isArray(verdict)) throw invalid(expected);
    const keys = Object.keys(verdict).filter((key) => (verdict as Record<string, unknown>)[key] !== undefined);
    if (keys.length === 0) return {};
    const together = point === "beforeToolCall" && keys.length === 2 && keys.includes("updatedInput") && keys.includes("additionalContext");
    if ((keys.length > 1 && !together) || !keys.every((key) => allowed.includes(key as keyof HookAnswer))) {
      const peer = point === "beforeToolCall" && keys.some((key) => PEER_DECISION_KEYS.has(key)) ? `; ${PEER_DECISION_HINT}` : "";
      throw invalid(`${expected}, not { ${keys.join(", ")} }${peer}`);
    }
    let answer: HookAnswer = {};
    for (const key of keys as (keyof HookAnswer)[]) {
      const value = (verdict as Record<string, unknown>)[key];
      if (key === "updatedInput") {
        if (typeof value !== "object" || value === null || Array.isArray(value)) throw invalid("updatedInput must be a plain object");
        answer = { ...answer, updatedInput: value as Record<string, unknown> };
        continue;
      }
      if (typeof value !== "string" || value === "") throw invalid(`${key} must be a non-empty string`);
      answer = { ...answer, [key]: value };
    }
    return answer;
  }
}

/** The keys of a Claude Agent SDK `PreToolUse` hook output that allow or ask (its `permissionDecision`). */
const PEER_DECISION_KEYS: ReadonlySet<string> = new Set(["permissionDecision", "hookSpecificOutput", "decision"]);

/** What a `beforeToolCall` verdict in the peer's allow / ask shape is told. */
const PEER_DECISION_HINT =
  'a beforeToolCall hook cannot allow a call or ask about it (the PreToolUse permissionDecision): calls run unasked by policy.approvals.rules or allowedTools, and are asked about under policy.approvals.permission "ask" with onApproval; the hook denies ({ deny: reason }) or edits ({ updatedInput })';

/**
 * The one answer of a tool call's matcher groups that did not deny, in order: the last
 * `updatedInput`; every `additionalContext`, joined by a blank line.
 */
function combine(answers: readonly HookAnswer[]): HookAnswer {
  const updated = answers.findLast((answer) => answer.updatedInput !== undefined)?.updatedInput;
  const contexts = answers.flatMap((answer) => (answer.additionalContext !== undefined ? [answer.additionalContext] : []));
  return {
    ...(updated !== undefined ? { updatedInput: updated } : {}),
    ...(contexts.length > 0 ? { additionalContext: contexts.join("\n\n") } : {}),
  };
}
