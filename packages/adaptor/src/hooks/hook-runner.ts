import { FeatureUnsupportedError, type DriverEvent, type HookAnswer, type HookAsk, type HookPoint } from "@adaptor/driver";
import { raceAbort, type McpServerTools } from "@adaptor/driver/kit";
import { AdaptorError, InvalidOptionError } from "@adaptor/errors";
import { HOST_TOOL_SERVER_NAME } from "../tools/agent-tools.js";
import { hostToolOf } from "../tools/host-tool-of.js";
import type { HookContext, RunHooks } from "./run-hooks.js";

/** The hook option of each hook point. */
const HOOK_NAMES: Readonly<Record<HookPoint, keyof RunHooks>> = {
  beforeToolCall: "beforeToolCall",
  afterToolCall: "afterToolCall",
  promptSubmit: "onPromptSubmit",
  stop: "onStop",
};

/** The `RunHooks` option name of a hook point, e.g. `onStop` for `stop`. */
export function hookName(point: HookPoint): keyof RunHooks {
  return HOOK_NAMES[point];
}

/** The hook points of the hooks the host set. */
export function hookPoints(hooks: RunHooks): HookPoint[] {
  return (Object.keys(HOOK_NAMES) as HookPoint[]).filter((point) => hooks[HOOK_NAMES[point]] !== undefined);
}

/** The verdict key each point may answer with, and what it means for people. */
const VERDICTS: Readonly<Record<HookPoint, readonly (keyof HookAnswer)[]>> = {
  beforeToolCall: ["deny", "updatedInput"],
  afterToolCall: ["additionalContext"],
  promptSubmit: ["additionalContext"],
  stop: ["continueWith"],
};

/** What the agent is told when the run ended or a hook failed while it waited for an answer: a tool call is denied. */
export function fallback(point: HookPoint, why: string): HookAnswer {
  return point === "beforeToolCall" ? { deny: why } : {};
}

/**
 * Calls one run's {@link RunHooks}: at the points the driver carries (`native`), when the driver
 * asks ({@link ask}); at the others, as the run goes by (a `tool-result` event, the prompt before
 * launch, the driver's success). One hook at a time, in order. A hook that fails, or answers what
 * it may not, calls `onFailure` once with an `AdaptorError` (`hook <name> failed`) whose cause says
 * why; later asks get the fallback answer (a tool call is denied) without calling the host.
 */
export class HookRunner {
  readonly #hooks: RunHooks;
  readonly #native: ReadonlySet<HookPoint>;
  readonly #runId: string;
  readonly #driver: string;
  /** The run's host-tool server and its tools' own names, to read a call's name in any form agents give it. */
  readonly #hostTools: McpServerTools;
  readonly #onFailure: (error: AdaptorError) => void;
  readonly #ended = new AbortController();
  readonly #signal: AbortSignal;
  /** Observed tool calls by id: their name and input, from `tool-call` events. */
  readonly #calls = new Map<string, { name: string; input: unknown }>();
  /** The observed hooks called so far, in order. */
  #queue: Promise<void> = Promise.resolve();
  #failed = false;

  constructor(init: {
    readonly hooks: RunHooks;
    readonly native: readonly HookPoint[];
    readonly runId: string;
    readonly driver: string;
    /** The names of the run's host tools. */
    readonly hostTools?: readonly string[];
    readonly signal: AbortSignal;
    readonly onFailure: (error: AdaptorError) => void;
  }) {
    this.#hooks = init.hooks;
    this.#native = new Set(init.native);
    this.#runId = init.runId;
    this.#driver = init.driver;
    this.#hostTools = { name: HOST_TOOL_SERVER_NAME, tools: init.hostTools ?? [] };
    this.#onFailure = init.onFailure;
    this.#signal = AbortSignal.any([init.signal, this.#ended.signal]);
  }

  /** The answer of the hook at a native point, for `DriverSink.hook`. Always resolves. */
  ask(ask: HookAsk): Promise<HookAnswer> {
    const run = this.#queue.then(() => this.#call(ask, true));
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

  async #call(ask: HookAsk, native: boolean): Promise<HookAnswer> {
    const name = HOOK_NAMES[ask.point];
    if (this.#failed) return fallback(ask.point, "a hook of this run failed");
    if (this.#signal.aborted) return fallback(ask.point, "the run has ended");
    const context: HookContext = { runId: this.#runId, signal: this.#signal, native };
    try {
      // A hook still working when the run ends is not waited for: the agent gets the fallback.
      const verdict = await raceAbort(
        Promise.resolve().then(() => this.#invoke(ask, context)),
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

  #invoke(ask: HookAsk, context: HookContext): unknown {
    const hooks = this.#hooks;
    switch (ask.point) {
      case "beforeToolCall": {
        const { point: _, ...call } = ask;
        return hooks.beforeToolCall?.(this.#named(call), context);
      }
      case "afterToolCall": {
        const { point: _, ...call } = ask;
        return hooks.afterToolCall?.(this.#named(call), context);
      }
      case "promptSubmit":
        return hooks.onPromptSubmit?.({ prompt: ask.prompt }, context);
      case "stop": {
        const { point: _, ...stop } = ask;
        return hooks.onStop?.(stop, context);
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
    if (typeof verdict !== "object" || Array.isArray(verdict)) throw invalid(`must return nothing or { ${allowed.join(" } or { ")} }`);
    const keys = Object.keys(verdict).filter((key) => (verdict as Record<string, unknown>)[key] !== undefined);
    if (keys.length === 0) return {};
    if (keys.length > 1 || !allowed.includes(keys[0] as keyof HookAnswer))
      throw invalid(`must return nothing or { ${allowed.join(" } or { ")} }, not { ${keys.join(", ")} }`);
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
