import type {
  ApprovalAsk,
  ApprovalDecision,
  ApprovalMode,
  Driver,
  DriverRequest,
  DriverResponse,
  HookAnswer,
  HookAsk,
} from "@adaptor/driver";
import type { RunOptions } from "../options/run-options.js";
import type { RunToolBinding } from "../tools/agent-tools.js";
import type { RunTelemetry } from "../telemetry/run-telemetry.js";
import type { PendingImage } from "../prompt/prompt.js";

/** A hook run on the driver's response before the verdict (e.g. structured output validation). */
export type ResponseHook = (response: DriverResponse) => DriverResponse | Promise<DriverResponse>;

/** How host-tool calls reach the run's approvals (the run's approval broker). */
export interface RunApprovals {
  /** The run's `policy.approvals.permission` as currently set, `inherit` when unset. */
  readonly permission: ApprovalMode;
  /** Decides one ask as a CLI's would be: auto modes, `onApproval`, the event, fallbacks. Always resolves. */
  ask(ask: ApprovalAsk): Promise<ApprovalDecision>;
}

/** Asks the run's `beforeToolCall` hooks about one host-tool call (see `HookRunner.beforeHostToolCall`). Always resolves. */
export type HostToolHooks = (ask: Extract<HookAsk, { readonly point: "beforeToolCall" }>) => Promise<HookAnswer>;

/**
 * The pre-invocation stage of one run (docs/design.md, "One run" step 2): each step validates one
 * concern, may add to the driver request, and may register cleanups and response hooks. A step
 * that throws rejects the run before the driver starts; cleanups registered so far still run.
 */
export class Preparation {
  readonly runId: string;
  readonly driver: Driver;
  readonly options: RunOptions;
  readonly signal: AbortSignal;
  /** The agent's host tools as this run sees them; absent when the agent has none. */
  readonly tools: RunToolBinding | undefined;
  /** The run's approvals, which gate host-tool calls; absent in unit tests of single steps. */
  readonly approvals: RunApprovals | undefined;
  /** The run's spans; absent when the run records none. */
  readonly telemetry: RunTelemetry | undefined;
  /**
   * The run's `beforeToolCall` hooks for its host-tool calls, set once the run's hooks are ready
   * (after preparation, before the driver starts); absent without a `beforeToolCall` hook.
   */
  hostToolHooks: HostToolHooks | undefined;
  /** The prompt's images, not yet read (read by the images step). */
  readonly images: readonly PendingImage[];
  /** The request being built; steps add their fields. */
  request: DriverRequest;
  readonly #cleanups: (() => Promise<void> | void)[] = [];
  readonly #hooks: ResponseHook[] = [];

  constructor(init: {
    runId: string;
    driver: Driver;
    options: RunOptions;
    signal: AbortSignal;
    prompt: string;
    images?: readonly PendingImage[] | undefined;
    tools?: RunToolBinding | undefined;
    approvals?: RunApprovals | undefined;
    telemetry?: RunTelemetry | undefined;
  }) {
    this.runId = init.runId;
    this.telemetry = init.telemetry;
    this.images = init.images ?? [];
    this.tools = init.tools;
    this.approvals = init.approvals;
    this.driver = init.driver;
    this.options = init.options;
    this.signal = init.signal;
    const { model, cwd, env, metadata } = init.options;
    this.request = {
      runId: init.runId,
      prompt: init.prompt,
      ...(model ? { model } : {}),
      ...(cwd ? { cwd } : {}),
      ...(env ? { env } : {}),
      ...(metadata ? { metadata } : {}),
    };
  }

  /** Registers work to undo after the run (staged files, temp dirs); run in reverse order. */
  onCleanup(cleanup: () => Promise<void> | void): void {
    this.#cleanups.push(cleanup);
  }

  /** Registers a response hook; hooks run in registration order. */
  onResponse(hook: ResponseHook): void {
    this.#hooks.push(hook);
  }

  /** Applies the response hooks. */
  async finish(response: DriverResponse): Promise<DriverResponse> {
    let current = response;
    for (const hook of this.#hooks) current = await hook(current);
    return current;
  }

  /** Runs cleanups (reverse order); never throws. */
  async cleanup(): Promise<void> {
    for (const cleanup of this.#cleanups.splice(0).reverse()) {
      try {
        await cleanup();
      } catch {
        // Cleanup is best effort: the verdict is already decided.
      }
    }
  }
}
