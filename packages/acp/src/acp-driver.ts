import {
  RequestError,
  type ClientContext,
  type McpServer,
  type NewSessionResponse,
  type PromptResponse,
  type ToolCallUpdate,
} from "@agentclientprotocol/sdk";
import {
  PolicyCapabilityUnsupportedError,
  type EnforcementMechanism,
  type PolicyEnforcement,
  type Driver,
  type DriverCapabilities,
  type DriverDescriptor,
  type DriverFailure,
  type DriverRequest,
  type DriverResponse,
  type PrewarmRequest,
  type DriverSink,
  type McpServerConfig,
} from "@adaptor/driver";
import { DriverError, ErrCode } from "@adaptor/errors";
import { deepFreeze, graceMs, IDLE_SINK, InterruptEscalation, launchSignature, ProcessPool, spawnLimits } from "@adaptor/driver/kit";
import { forceKilledError, isolateStdioServer, mergeChildEnv, SAFE_ENV_BASE } from "@adaptor/driver/process";
import { ErrMCPTransportUnsupportedFailure } from "./failures.js";
import { HostClient } from "./host/host-client.js";
import { HostTerminals } from "./host/host-terminals.js";
import { acpPolicyCapabilities, planAcpPolicy, type AcpPolicyPlan } from "./policy/acp-policy.js";
import { applyMode } from "./policy/apply-mode.js";
import { AcpModeNotAppliedError } from "./policy/mode-not-applied-error.js";
import { validateAcpConfig, type AcpConfig } from "./config/acp-config.js";
import { AcpProcess } from "./connection/acp-process.js";
import { AcpTurn, promptUsage } from "./turn/acp-turn.js";
import { toolNameOf } from "./turn/tool-call.js";
import { parseStructured, stopReasonFailure, withSchemaInstructions } from "./turn/verdict.js";

/** Descriptor capabilities of an ACP agent from its config: what the protocol and the config let the driver enforce. */
function capabilitiesOf(config: Partial<AcpConfig>): DriverCapabilities {
  return {
    sessions: { resume: config.loadSession !== false, fork: config.loadSession !== false && config.fork === true },
    processReuse: true,
    structuredOutput: { native: false, prompt: true },
    mcp: { transports: Array.isArray(config.mcpTransports) ? [...config.mcpTransports] : ["stdio"] },
    ...acpPolicyCapabilities(config),
    streaming: { textDeltas: true, thinking: true, toolCallArgs: false },
  };
}

/** How a preset adapts {@link AcpDriver} to its agent. */
export interface AcpDriverOptions {
  /** Turns the preset's own config into the ACP config, checking it. Default: `validateAcpConfig` of the config given. */
  readonly resolve?: () => AcpConfig;
  /** The tool's name from a tool call. Default: ACP `name`, a `_meta` `toolName`, the title, the kind. */
  readonly toolName?: (call: ToolCallUpdate) => string;
}

/**
 * A driver for any agent that speaks the Agent Client Protocol on stdio, on the official
 * `@agentclientprotocol/sdk` client. Build it with {@link acp} (or a preset such as `gemini`).
 */
export class AcpDriver implements Driver {
  readonly descriptor: DriverDescriptor;
  readonly #resolve: () => AcpConfig;
  readonly #toolName: (call: ToolCallUpdate) => string;
  readonly #pool: ProcessPool<AcpProcess>;

  /**
   * @param config - the ACP configuration (checked by `validateConfig()` and before every run, never here).
   * @param options - how a preset resolves its config and names tools (see {@link AcpDriverOptions}).
   */
  constructor(config: unknown, options: AcpDriverOptions = {}) {
    const partial = (typeof config === "object" && config !== null ? config : {}) as Partial<AcpConfig>;
    const type = typeof partial.type === "string" && partial.type !== "" ? partial.type : "acp";
    const displayName = typeof partial.displayName === "string" && partial.displayName !== "" ? partial.displayName : "ACP agent";
    this.descriptor = deepFreeze({ type, displayName, capabilities: capabilitiesOf(partial) });
    this.#resolve = options.resolve ?? (() => validateAcpConfig(type, config));
    this.#toolName = options.toolName ?? toolNameOf;
    let limits: Pick<AcpConfig, "idleMs" | "maxConcurrentSpawns"> = {};
    try {
      limits = this.#resolve();
    } catch {
      // refused again by validateConfig() before any run
    }
    this.#pool = new ProcessPool<AcpProcess>(limits);
  }

  /** The checked configuration. @throws InvalidDriverConfigError */
  get config(): AcpConfig {
    return this.#resolve();
  }

  validateConfig(): void {
    void this.config;
  }

  fingerprint(): unknown {
    const c = this.config;
    return {
      type: this.descriptor.type,
      command: c.command,
      args: c.args ?? [],
      model: c.model ?? null,
      sandboxModes: c.sandboxModes ?? {},
    };
  }

  async run(request: DriverRequest, sink: DriverSink, signal: AbortSignal): Promise<DriverResponse> {
    signal.throwIfAborted();
    const config = this.config;
    const plan = planAcpPolicy(this.descriptor, config, request.policy);
    if (request.session?.fork && !this.descriptor.capabilities.sessions.fork) {
      throw new PolicyCapabilityUnsupportedError(this.descriptor.type, "sessions.fork", "true");
    }
    const cwd = request.cwd ?? config.cwd ?? process.cwd();
    const model = request.model ?? config.model;

    const env = this.#env(config, request);
    // A parked process serves a turn only if it was launched, and its session opened, exactly alike.
    const signature = launchSignature({ config, env, request });
    let proc = await this.#pool.acquire({ request, signature, sink });
    if (!proc && request.session && !request.session.fork && config.loadSession === false) {
      return emptyResponse(plan, {
        reason: "resume_rejected",
        message:
          config.loadSessionUnsupportedReason ??
          `${this.descriptor.displayName} cannot continue session ${request.session.resumeId} in a new process (session/load is off for this agent)`,
        details: { sessionId: request.session.resumeId },
      });
    }
    if (!proc) {
      proc = await this.#start(config, request, signature, sink);
      sink.emit({ type: "process", kind: "spawn", pid: proc.pid });
    }
    const served = proc;
    served.stderrTo.sink = sink;
    return this.#pool.serve(served, async () => {
      try {
        const response = await this.#turn(served, config, request, sink, signal, cwd, model, plan);
        const reusable = request.reuseProcess === true && served.usable && !response.failure && response.checkpoint !== undefined;
        if (!reusable) {
          await served.close();
          return { ...response, ...(await exitOf(served)) };
        }
        // A parked process's stderr belongs to no run until the next turn takes it.
        served.stderrTo.sink = IDLE_SINK;
        this.#pool.park(response.checkpoint!.resumeId, served);
        return response;
      } catch (error) {
        await served.close();
        const exit = await served.child.exited;
        if (signal.aborted) throw exit.forceKilled ? forceKilledError(this.descriptor.type, signal.reason) : signal.reason;
        throw error;
      }
    });
  }

  /**
   * Starts the agent for a future first turn built from `request` and sends `initialize`; a fresh
   * run launched alike (same launch signature) takes it and only opens its session. Resolves true
   * once it is ready. It waits at most `idleMs`, then ends.
   * @throws like `run` for a refused config or policy; the spawn's `DriverError`; the SDK's error
   * when `initialize` fails; `signal.reason` when aborted (the process is then ended).
   */
  async prewarm(request: PrewarmRequest, signal: AbortSignal = new AbortController().signal): Promise<boolean> {
    signal.throwIfAborted();
    const config = this.config;
    planAcpPolicy(this.descriptor, config, request.policy);
    const first: DriverRequest = { ...request, runId: "prewarm", prompt: "" };
    const signature = launchSignature({ config, env: this.#env(config, first), request: first });
    await this.#pool.prewarm(
      signature,
      () => this.#start(config, first, signature, IDLE_SINK),
      async (proc) => {
        const abort = (): void => void proc.close();
        signal.addEventListener("abort", abort, { once: true });
        try {
          await proc.initialize(signal);
        } finally {
          signal.removeEventListener("abort", abort);
        }
      },
      signal,
      this.descriptor.type,
    );
    return true;
  }

  #start(config: AcpConfig, request: DriverRequest, signature: string, sink: Pick<DriverSink, "emit">): Promise<AcpProcess> {
    const model = request.model ?? config.model;
    const stderrTo = { sink };
    return this.#pool.spawn(() =>
      AcpProcess.start(
        {
          command: config.command,
          args: [
            ...(config.args ?? []),
            ...(config.extraArgs ?? []),
            ...(model !== undefined && config.modelFlag ? [config.modelFlag, model] : []),
          ],
          cwd: request.cwd ?? config.cwd ?? process.cwd(),
          env: this.#env(config, request),
          device: this.descriptor.type,
          ...spawnLimits(config),
          onStderr: (text) => stderrTo.sink.emit({ type: "process", kind: "stderr", text }),
          hostCapabilities: config.hostCapabilities !== false,
        },
        signature,
        stderrTo,
      ),
    );
  }

  /** Ends every live, parked and pre-warmed agent process of this driver. Idempotent. */
  async close(): Promise<void> {
    await this.#pool.close();
  }

  #env(config: AcpConfig, request: DriverRequest): Record<string, string | undefined> {
    return mergeChildEnv({ inheritEnv: config.inheritEnv, defaultInherit: SAFE_ENV_BASE, layers: [config.env, request.env] });
  }

  /** One prompt turn on `proc`: initialize (a new process), open or load the session, set its mode, prompt. */
  async #turn(
    proc: AcpProcess,
    config: AcpConfig,
    request: DriverRequest,
    sink: DriverSink,
    signal: AbortSignal,
    cwd: string,
    model: string | undefined,
    plan: AcpPolicyPlan,
  ): Promise<DriverResponse> {
    const trusted = (request.mcpServers ?? []).filter((server) => server.trusted === true).map((server) => server.name);
    const host = new HostClient({
      plan,
      sink,
      cwd,
      driver: this.descriptor.type,
      terminals: new HostTerminals({ env: proc.env, cwd, device: `${this.descriptor.type} terminal`, ...spawnLimits(config) }),
    });
    const turn = new AcpTurn(host.sink, this.#toolName, trusted);
    let enforcement = plan.enforcement;
    const finish = (
      proc: AcpProcess,
      turn: AcpTurn,
      failure: DriverFailure | undefined,
      extra: Partial<DriverResponse> = {},
    ): DriverResponse => finishTurn(proc, turn, failure, { ...extra, enforcement });
    const agent = proc.connection.agent;
    let aborted!: (reason: unknown) => void;
    let honoured!: (value: unknown) => void;
    const abortion = new Promise<never>((_, reject) => (aborted = reject));
    abortion.catch(() => undefined);
    let sessionId: string | undefined =
      request.session?.resumeId !== undefined && proc.sessions.has(request.session.resumeId) ? request.session.resumeId : undefined;
    let prompting: Promise<unknown> | undefined;
    let offered: NewSessionResponse | undefined;
    // The kit's escalation: ACP's session/cancel first, then (turn over or not) stdin closed, SIGTERM, SIGKILL.
    const escalation = new InterruptEscalation(proc.child, {
      graceMs: graceMs(config),
      interrupt: () => {
        if (!prompting || sessionId === undefined) return false;
        void agent.notify("session/cancel", { sessionId }).catch(() => undefined);
        return true;
      },
      honoured: new Promise((resolve) => (honoured = resolve)),
    });
    const onAbort = (): void => {
      turn.end();
      escalation.start();
      // A prompt in flight ends by the agent's answer or the process's end; anything else at once.
      if (!prompting) aborted(signal.reason);
    };
    signal.addEventListener("abort", onAbort, { once: true });
    if (signal.aborted) onAbort();
    const step = <T>(promise: Promise<T>): Promise<T> => Promise.race([promise, abortion]);
    let detach: (() => void) | undefined;
    try {
      const init = proc.initialized ?? (await step(proc.initialize(signal)));
      const caps = init.agentCapabilities ?? {};
      const mcpServers = this.#mcpServers(request.mcpServers ?? [], proc, caps.mcpCapabilities ?? {});
      if ("failure" in mcpServers) return finish(proc, turn, mcpServers.failure);

      if (sessionId === undefined) {
        if (request.session?.fork) {
          const parent = request.session.resumeId;
          if (!caps.sessionCapabilities?.["fork" as keyof typeof caps.sessionCapabilities]) {
            return finish(proc, turn, {
              reason: "agent_error",
              message: `${this.descriptor.displayName} does not offer session/fork (no sessionCapabilities.fork in its initialize answer)`,
              details: { sessionId: parent },
            });
          }
          try {
            const forked = await step(
              agent.request<NewSessionResponse>("session/fork", { sessionId: parent, cwd, mcpServers: mcpServers.servers }),
            );
            sessionId = forked.sessionId;
            offered = forked;
          } catch (error) {
            if (signal.aborted) throw error;
            return finish(proc, turn, { reason: "resume_rejected", message: rpcMessage(error), details: rpcDetails(error), cause: error });
          }
        } else if (request.session) {
          if (!caps.loadSession) {
            return finish(proc, turn, {
              reason: "resume_rejected",
              message: `${this.descriptor.displayName} does not offer session/load, so session ${request.session.resumeId} cannot be continued in a new process`,
              details: { sessionId: request.session.resumeId },
            });
          }
          const id = request.session.resumeId;
          // Replayed history arrives as updates during session/load; it is not this turn's output.
          try {
            offered = (await step(
              agent.request("session/load", { sessionId: id, cwd, mcpServers: mcpServers.servers }),
            )) as NewSessionResponse;
          } catch (error) {
            if (signal.aborted) throw error;
            return finish(proc, turn, { reason: "resume_rejected", message: rpcMessage(error), details: rpcDetails(error), cause: error });
          }
          sessionId = id;
        } else {
          try {
            const created = await step(agent.request("session/new", { cwd, mcpServers: mcpServers.servers }));
            sessionId = created.sessionId;
            offered = created;
          } catch (error) {
            if (signal.aborted) throw error;
            return finish(proc, turn, { reason: "agent_error", message: rpcMessage(error), details: rpcDetails(error), cause: error });
          }
        }
        proc.sessions.add(sessionId);
        const started = request.session?.fork ? "session forked" : request.session ? "session loaded" : "session started";
        sink.emit({ type: "notice", kind: "lifecycle", message: started, data: { sessionId } });
        if (plan.mode) {
          const reported = await applyMode(proc, sessionId, plan.mode.id, offered, step, config.modeConfirmedByAnswer === true);
          if (reported !== plan.mode.id) {
            const error = new AcpModeNotAppliedError(this.descriptor.type, plan.mode.field, plan.mode.value, plan.mode.id, reported);
            if (!plan.bestEffort) throw error;
            enforcement = notEnforcedBy(enforcement, "agent_mode", error.message);
          }
          sink.emit({ type: "notice", kind: "lifecycle", message: `session mode ${String(reported)}`, data: { modeId: reported } });
        }
        if (model !== undefined && !config.modelFlag) {
          const failure = await step(this.#selectModel(agent, sessionId, model, offered));
          if (failure) return finish(proc, turn, failure);
        }
      }
      detach = proc.attach(sessionId, {
        onUpdate: (update) => turn.onUpdate(update),
        onPermission: (params, permissionSignal) => turn.onPermission(params, permissionSignal),
        onText: (line) => turn.onText(line),
        onHost: (method, params) => host.handle(method, params),
      });
      proc.child.takeOutput();
      const prompt = request.outputSchema ? withSchemaInstructions(request.prompt, request.outputSchema) : request.prompt;
      turn.transcript.push({ kind: "user", text: request.prompt });
      let answer: PromptResponse;
      const prompted = agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: prompt }] });
      prompting = prompted.then(honoured, honoured);
      try {
        answer = await prompted;
      } catch (error) {
        if (signal.aborted) {
          await escalation.settled();
          throw signal.reason;
        }
        // The connection closed under the request: the agent's process ended during the turn.
        if (!(error instanceof RequestError) || proc.connection.signal.aborted) {
          const exit = await proc.child.exited;
          return finish(proc, turn, {
            reason: "agent_error",
            message: `${this.descriptor.displayName} ended during the turn (${exit.signal ? `signal ${exit.signal}` : `exit code ${String(exit.code)}`})${tail(proc)}`,
            details: { exitCode: exit.code, exitSignal: exit.signal },
            cause: error,
          });
        }
        return finish(proc, turn, { reason: "agent_error", message: rpcMessage(error), details: rpcDetails(error), cause: error });
      } finally {
        prompting = undefined;
      }
      if (signal.aborted) {
        await escalation.settled();
        throw signal.reason;
      }
      // Some adapters offer only an option that ends the turn to reject a tool (codex-acp's "abort"):
      // a turn the agent cancelled right after a host denial ended by that denial, not by a failure.
      const endedByDenial = answer.stopReason === "cancelled" && turn.denied > 0;
      if (endedByDenial)
        sink.emit({
          type: "notice",
          kind: "lifecycle",
          message: "the agent ended the turn at the denied tool call",
          data: { stopReason: answer.stopReason },
        });
      const refused = host.editRefused;
      const failure: DriverFailure | undefined = refused
        ? {
            reason: "approval_denied",
            message: refused.message,
            details: { toolName: refused.toolName, toolCallId: refused.toolCallId },
            cause: refused,
          }
        : endedByDenial
          ? undefined
          : stopReasonFailure(answer.stopReason);
      const usage = promptUsage(answer);
      return finish(proc, turn, failure, {
        ...(usage ? { usage } : {}),
        ...(model !== undefined ? { model } : {}),
        ...(request.outputSchema && !failure ? parseStructured(turn.text) : {}),
        ...(failure ? {} : { checkpoint: { resumeId: sessionId } }),
      });
    } catch (error) {
      // The agent's process ended while the session was being set up (before the prompt): say how it
      // ended and what it last wrote on stderr, not only that the connection closed.
      if (signal.aborted || error instanceof RequestError || !proc.connection.signal.aborted) throw error;
      const exit = await proc.child.exited;
      const how = exit.signal ? `signal ${exit.signal}` : `exit code ${String(exit.code)}`;
      throw new DriverError({
        op: "session setup",
        device: this.descriptor.type,
        code: ErrCode.DeviceDisconnected,
        cause: new Error(`${this.descriptor.displayName} ended before its turn began (${how})${tail(proc)}`, { cause: error }),
      });
    } finally {
      signal.removeEventListener("abort", onAbort);
      turn.end();
      detach?.();
      await host.close();
    }
  }

  /**
   * Selects `model` on a new session: the agent's `model` config option (`session/set_config_option`)
   * when it lists one, else the unstable `session/set_model` when it lists models.
   */
  async #selectModel(
    agent: ClientContext,
    sessionId: string,
    model: string,
    offered: NewSessionResponse | undefined,
  ): Promise<DriverFailure | undefined> {
    const option = offered?.configOptions?.find((o) => o.category === "model");
    try {
      if (option) await agent.request("session/set_config_option", { sessionId, configId: option.id, value: model });
      else if ((offered as { models?: unknown } | undefined)?.models !== undefined)
        await agent.request("session/set_model", { sessionId, modelId: model });
      else
        return {
          reason: "agent_error",
          message: `${this.descriptor.displayName} offers no model selection for model ${JSON.stringify(model)}`,
        };
    } catch (error) {
      return { reason: "agent_error", message: rpcMessage(error), details: { ...rpcDetails(error), model }, cause: error };
    }
    return undefined;
  }

  #mcpServers(
    servers: readonly McpServerConfig[],
    proc: AcpProcess,
    caps: { readonly http?: boolean; readonly sse?: boolean },
  ): { servers: McpServer[] } | { failure: DriverFailure } {
    const out: McpServer[] = [];
    for (const server of servers) {
      if (server.transport === "stdio") {
        const launch = isolateStdioServer(server, proc.env);
        out.push({
          name: server.name,
          command: launch.command,
          args: launch.args,
          env: Object.entries(server.env ?? {}).map(([name, value]) => ({ name, value })),
        });
        continue;
      }
      if (!caps[server.transport])
        return { failure: ErrMCPTransportUnsupportedFailure(this.descriptor.displayName, server.name, server.transport) };
      out.push({
        type: server.transport,
        name: server.name,
        url: server.url,
        headers: Object.entries(server.headers ?? {}).map(([name, value]) => ({ name, value })),
      });
    }
    return { servers: out };
  }
}

function tail(proc: AcpProcess): string {
  const text = proc.child.stderrTail(2048);
  return text === "" ? "" : `: ${text}`;
}

/** The API's own error of a JSON error body some agents put in the message (`{"error":{"code","message"}}`). */
function apiError(message: string): { message: string; status?: number } | undefined {
  const start = message.indexOf("{");
  if (start < 0) return undefined;
  try {
    const body = JSON.parse(message.slice(start)) as { error?: { message?: unknown; code?: unknown } };
    if (typeof body.error?.message !== "string") return undefined;
    // The HTTP status: Google's `error.code`, else a status before the body ("API Error: 400 {...}").
    const before = /\b([45]\d\d)\b/.exec(message.slice(0, start))?.[1];
    const status = typeof body.error.code === "number" ? body.error.code : before !== undefined ? Number(before) : undefined;
    return { message: body.error.message, ...(status !== undefined ? { status } : {}) };
  } catch {
    return undefined;
  }
}

/** The agent's error text: the JSON-RPC message, or the `message` / `details` it carries in `data`. */
function rpcText(error: RequestError): string {
  const data = error.data as Record<string, unknown> | string | undefined;
  if (typeof data === "string") return data;
  for (const key of ["message", "details"]) if (typeof data?.[key] === "string") return data[key];
  return error.message;
}

function rpcMessage(error: unknown): string {
  if (error instanceof RequestError) {
    const text = rpcText(error);
    const api = apiError(text) ?? apiError(error.message);
    if (api) return api.message;
    return text === error.message || error.message.includes(text) ? error.message : `${error.message}: ${text}`;
  }
  return error instanceof Error ? error.message : String(error);
}

function rpcDetails(error: unknown): Record<string, unknown> {
  if (!(error instanceof RequestError)) return {};
  const status = (apiError(rpcText(error)) ?? apiError(error.message))?.status;
  return {
    rpcCode: error.code,
    ...(status !== undefined ? { apiErrorStatus: status } : {}),
    ...(error.data !== undefined ? { rpcData: error.data } : {}),
  };
}

async function exitOf(proc: AcpProcess): Promise<Pick<DriverResponse, "exit">> {
  const exit = await proc.child.exited;
  return { exit: { code: exit.code, signal: exit.signal } };
}

function emptyResponse(plan: AcpPolicyPlan, failure: DriverFailure): DriverResponse {
  return { text: "", transcript: [], raw: { stdout: "", stderr: "" }, enforcement: plan.enforcement, failure };
}

/** The report with every entry that relied on `mechanism` marked not enforced, saying why. */
function notEnforcedBy(report: readonly PolicyEnforcement[], mechanism: EnforcementMechanism, why: string): PolicyEnforcement[] {
  return report.map((entry) =>
    entry.mechanisms.includes(mechanism) ? { ...entry, enforced: false, mechanisms: [], detail: `${why} (best effort accepted)` } : entry,
  );
}

function finishTurn(
  proc: AcpProcess,
  turn: AcpTurn,
  failure: DriverFailure | undefined,
  extra: Partial<DriverResponse> = {},
): DriverResponse {
  turn.end();
  const out = proc.child.takeOutput();
  return {
    text: turn.text,
    transcript: turn.transcript,
    raw: {
      stdout: out.stdout,
      stderr: out.stderr,
      stdoutBytes: out.stdoutBytes,
      stderrBytes: out.stderrBytes,
      stdoutTruncated: out.stdoutTruncated,
      stderrTruncated: out.stderrTruncated,
    },
    ...extra,
    ...(failure ? { failure } : {}),
  };
}
