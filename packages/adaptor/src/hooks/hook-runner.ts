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
import type { HookContext, MatchedToolHook, RunHooks } from "./run-hooks.js";
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

/** A tool hook's function and its matcher (undefined: every tool). */
export function toolHook<H>(hook: H | MatchedToolHook<H> | undefined): { hook: H | undefined; matcher: string | undefined } {
  if (typeof hook === "object" && hook !== null) {
    const matched = hook as MatchedToolHook<H>;
    return { hook: matched.hook, matcher: matched.matcher };
  }
  return { hook: hook as H | undefined, matcher: undefined };
}

/** The matchers of the run's tool hooks that have one. */
export function toolHookMatchers(hooks: RunHooks): Partial<Record<ToolHookPoint, string>> {
  const matchers: Partial<Record<ToolHookPoint, string>> = {};
  for (const point of ["beforeToolCall", "afterToolCall"] as const) {
    const { matcher } = toolHook<unknown>(hooks[point]);
    if (matcher !== undefined) matchers[point] = matcher;
  }
  return matchers;
}

/** How long one hook call may take by default before it fails the run, in ms (the Claude Agent SDK's hook `timeout`). */
export const DEFAULT_HOOK_TIMEOUT_MS = 60_000;

/** The verdict keys each point may answer with (none: the hook observes). */
const VERDICTS: Readonly<Record<HookPoint, readonly (keyof HookAnswer)[]>> = {
  beforeToolCall: ["deny", "updatedInput"],
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
 * launch, the driver's success). A tool hook with a matcher is called only for the calls it names:
 * the agent filters them where the driver handed it the matcher (`matchersApplied`), the runner
 * does elsewhere. One hook at a time, in order. A hook that fails, answers what it may not, or has
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

  /** The answer of the hook at a native point, for `DriverSink.hook`. Always resolves. */
  ask(ask: HookAsk): Promise<HookAnswer> {
    const run = this.#queue.then(() => this.#call(ask, true));
    this.#queue = run.then(() => undefined);
    return run;
  }

  /** Calls the observed `afterToolCall` at each `tool-result` event. Never throws. */
  observe(event: DriverEvent): void {
    if (toolHook(this.#hooks.afterToolCall).hook === undefined || this.#native.has("afterToolCall")) return;
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

  async #call(ask: HookAsk, native: boolean): Promise<HookAnswer> {
    const name = HOOK_NAMES[ask.point];
    if (this.#failed) return fallback(ask.point, "a hook of this run failed");
    if (this.#signal.aborted) return fallback(ask.point, "the run has ended");
    if (!this.#isFor(ask, native)) return {};
    const context: HookContext = { runId: this.#runId, signal: this.#signal, native };
    try {
      // A hook still working when the run ends is not waited for: the agent gets the fallback.
      const verdict = await raceAbort(
        this.#bounded(
          Promise.resolve().then(() => this.#invoke(ask, context)),
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

  /** False for a tool call the hook's matcher does not name, unless the agent already filtered the calls by it. */
  #isFor(ask: HookAsk, native: boolean): boolean {
    if (ask.point !== "beforeToolCall" && ask.point !== "afterToolCall") return true;
    if (native && this.#matchersApplied) return true;
    const { matcher } = toolHook<unknown>(this.#hooks[ask.point]);
    return matcher === undefined || matchesTool(matcher, ask.toolName);
  }

  #invoke(ask: HookAsk, context: HookContext): unknown {
    const hooks = this.#hooks;
    switch (ask.point) {
      case "beforeToolCall": {
        const { point: _, ...call } = ask;
        return toolHook(hooks.beforeToolCall).hook?.(this.#named(call), context);
      }
      case "afterToolCall": {
        const { point: _, ...call } = ask;
        return toolHook(hooks.afterToolCall).hook?.(this.#named(call), context);
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
   * @throws InvalidOptionError (field `hooks.<name>`) for a verdict that is not nothing or exactly one allowed key of the right type.
   */
  #read(point: HookPoint, verdict: unknown): HookAnswer {
    if (verdict === undefined || verdict === null) return {};
    const field = `hooks.${HOOK_NAMES[point]}`;
    const allowed = VERDICTS[point];
    const invalid = (reason: string): InvalidOptionError => new InvalidOptionError({ subject: "hook verdict", field, reason });
    const expected = allowed.length === 0 ? "must return nothing (it observes)" : `must return nothing or { ${allowed.join(" } or { ")} }`;
    if (typeof verdict !== "object" || Array.isArray(verdict)) throw invalid(expected);
    const keys = Object.keys(verdict).filter((key) => (verdict as Record<string, unknown>)[key] !== undefined);
    if (keys.length === 0) return {};
    if (keys.length > 1 || !allowed.includes(keys[0] as keyof HookAnswer)) throw invalid(`${expected}, not { ${keys.join(", ")} }`);
    const key = keys[0] as keyof HookAnswer;
    const value = (verdict as Record<string, unknown>)[key];
    if (key === "updatedInput") {
      if (typeof value !== "object" || value === null || Array.isArray(value)) throw invalid("updatedInput must be a plain object");
      return { updatedInput: value as Record<string, unknown> };
    }
    if (typeof value !== "string" || value === "") throw invalid(`${key} must be a non-empty string`);
    return { [key]: value };
  }
}
