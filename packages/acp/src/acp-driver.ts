import {
  RequestError,
  type ClientContext,
  type ContentBlock,
  type InitializeResponse,
  type ListSessionsResponse,
  type McpServer,
  type NewSessionResponse,
  type PromptResponse,
  type ToolCallUpdate,
} from "@agentclientprotocol/sdk";
import {
  FeatureUnsupportedError,
  HumanDecisionModeUnsupportedError,
  MCP_CONNECT_OP,
  PolicyCapabilityUnsupportedError,
  type EnforcementMechanism,
  type PolicyEnforcement,
  type Driver,
  type DriverCapabilities,
  type DriverDescriptor,
  type DriverFailure,
  type DriverRequest,
  type Checkpoint,
  type DriverResponse,
  type PrewarmRequest,
  type DriverSink,
  type McpServerConfig,
  type DriverListSessionsQuery,
  type DriverSessionMessagesQuery,
  type DriverSessionQuery,
  type SessionSummary,
  type SessionMessagePage,
  type SessionPage,
} from "@adaptor/driver";
import { DriverError, ErrCode } from "@adaptor/errors";
import {
  deepFreeze,
  DEFAULT_REPLY_TIMEOUT_MS,
  graceMs,
  IDLE_SINK,
  InterruptEscalation,
  launchSignature,
  ProcessPool,
  spawnLimits,
  sessionInit,
  StallWatchdog,
} from "@adaptor/driver/kit";
import {
  checkStdioServerCommands,
  forceKilledError,
  isolateStdioServer,
  launchSecrets,
  mergeChildEnv,
  rawStreams,
  SAFE_ENV_BASE,
  STDIO_SERVER_VAR,
} from "@adaptor/driver/process";
import { MCP_SERVER_NAME_VAR, stdioServersNotRunning } from "./mcp/stdio-server-check.js";
import { ErrMCPTransportUnsupportedFailure } from "./failures.js";
import { HostClient } from "./host/host-client.js";
import { HostTerminals } from "./host/host-terminals.js";
import { CLAUDE_ASKED_TOOLS, withAskRules } from "./policy/claude-ask-rules.js";
import { isClaudeCodeAdapter, userSettingsOnly } from "./policy/claude-setting-sources.js";
import {
  CLAUDE_UNASKED_WRITING_TOOLS,
  disallowedToolsOf,
  isClaudeUnaskedWritingTool,
  controlsApprovedTerminal,
  withoutUnaskedWritingTools,
} from "./policy/claude-unasked-tools.js";
import {
  acpPolicyCapabilities,
  confinesAgent,
  planAcpPolicy,
  withUnknownAgentScope,
  type AcpPolicyPlan,
  type HostOffer,
} from "./policy/acp-policy.js";
import { applyMode, notOffered } from "./policy/apply-mode.js";
import { AcpModeNotAppliedError } from "./policy/mode-not-applied-error.js";
import { DEFAULT_MAX_TERMINAL_OUTPUT_BYTES, validateAcpConfig, type AcpConfig } from "./config/acp-config.js";
import { AcpProcess, type SessionHandler } from "./connection/acp-process.js";
import { AcpTurn, promptUsage, type UnaskedCall } from "./turn/acp-turn.js";
import { changesMachine, toolNameOf } from "./turn/tool-call.js";
import { parseStructured, stopReasonFailure, withSchemaInstructions } from "./turn/verdict.js";
import { choicesOf, describeOptions, modelOption } from "./session/model-option.js";
import { alwaysAllowedIn, checkpointData } from "./session/always-allowed.js";
import { findAcpSession, listAcpSessions } from "./session/list-sessions.js";
import { decodeReplayCursor, encodeReplayCursor, ReplayedMessages } from "./session/replayed-messages.js";

/** Descriptor capabilities of an ACP agent from its config: what the protocol and the config let the driver enforce. */
function capabilitiesOf(config: Partial<AcpConfig>): DriverCapabilities {
  return {
    // list: `session/list` for an agent whose `initialize` answer offers it; any other refuses the
    // listing after `initialize` (see listSessions).
    // messages: `session/load`'s replay, for an agent whose `initialize` answer offers loading.
    sessions: {
      resume: config.loadSession !== false,
      fork: config.loadSession !== false && config.fork === true,
      list: true,
      messages: config.loadSession !== false,
      // info: found through `session/list`, as list (see getSessionInfo).
      info: true,
    },
    processReuse: true,
    structuredOutput: { native: false, prompt: true },
    // ACP has no way for a client to hand an agent skills: a run with skills is refused before launch.
    skills: false,
    // Image blocks go in the prompt of an agent whose `initialize` answer declares
    // `promptCapabilities.image`; any other agent's run is refused before its prompt (see #turn).
    images: true,
    // stream.interrupt(): `session/cancel`, the turn's answer `cancelled` is an interrupted success.
    turnControl: { interrupt: config.interrupt !== false },
    mcp: { transports: Array.isArray(config.mcpTransports) ? [...config.mcpTransports] : ["stdio"] },
    ...acpPolicyCapabilities(config),
    streaming: { textDeltas: true, thinking: true, toolCallArgs: false },
  };
}

/** The `session/prompt` content: the prompt's images (base64 `image` blocks), then its text. */
function promptBlocks(text: string, images: DriverRequest["images"]): ContentBlock[] {
  const blocks: ContentBlock[] = (images ?? []).map((image) => ({
    type: "image",
    mimeType: image.mimeType,
    data: Buffer.from(image.data).toString("base64"),
  }));
  blocks.push({ type: "text", text });
  return blocks;
}

/** How a preset adapts {@link AcpDriver} to its agent. */
export interface AcpDriverOptions {
  /** Turns the preset's own config into the ACP config, checking it. Default: `validateAcpConfig` of the config given. */
  readonly resolve?: () => AcpConfig;
  /** The tool's name from a tool call. Default: ACP `name`, a `_meta` `toolName`, the title, the kind. */
  readonly toolName?: (call: ToolCallUpdate) => string;
  /**
   * The call's input when an update carries no `rawInput`, taken another way (given the update and
   * the tool's name), or undefined. Default: none.
   */
  readonly toolInput?: (call: ToolCallUpdate, toolName: string) => unknown;
  /**
   * What to select in a session just opened when the run leaves it to the agent (no mode chosen by
   * the policy, no model), for an agent that would otherwise take it from a workspace the host does
   * not trust. Called with the session's `cwd` and the agent's environment. Default none.
   */
  readonly inheritedSession?: (context: InheritedSessionContext) => Promise<InheritedSession | undefined>;
  /**
   * Environment variables the agent gets as the empty string when neither the inherited
   * environment nor `env` sets them, for an agent that would otherwise fill them in from files the
   * host does not control (an untrusted folder's `.env`). Default: none.
   */
  readonly emptyWhenUnset?: readonly string[];
  /**
   * Environment variables with which the agent runs tools or commands without asking: switches
   * that approve every tool, or that name settings, config directories or commands the agent loads
   * from outside the run's control (a system settings file that runs a discovery command, a config
   * directory with plugins). For a run whose policy confines the agent (a `sandbox` other
   * than `unrestricted`, or a permission mode other than `inherit`): one the host sets, to any
   * value (`env` of the config or of the run), refuses the run before launch
   * (`PolicyCapabilityUnsupportedError` for `sandbox`, else `HumanDecisionModeUnsupportedError`;
   * also with `bestEffortPolicy`); one only inherited from the host's environment is removed, with
   * a `notice` `policy` naming it. Default none.
   */
  readonly allowAllEnv?: readonly string[];
  /**
   * Arguments added to the agent's command line for a run whose policy confines the agent (as for
   * `allowAllEnv`), e.g. switches that remove tools which run without an ask. Part of the
   * process's launch signature. Default none.
   */
  readonly confinedArgs?: readonly string[];
  /**
   * Recognizes an `agent_message_chunk` (its whole text) that is the agent's own notice, not the
   * model's text, for an agent that sends its notices as message chunks. Such a chunk becomes a
   * `notice` `runtime` (with `data.agentNotice`) and is not part of the run's text; an `error` one
   * fails a turn that otherwise ends normally with no model text as `agent_error` carrying its
   * message (the last one), with its `details`. Default: every chunk is the model's text.
   */
  readonly agentNotice?: (text: string) => AgentNotice | undefined;
  /**
   * The agent keeps an "always" grant (an ask answered with its `allow_always` option) only in the
   * process that got it: the same session loaded in a new process asks again. A run that has every
   * acting call asked (a permission mode other than `inherit`, `sandbox` `read_only`) continuing a
   * session with such a grant then runs in a new process that loads the session; without this
   * option it is refused before launch (the agent may keep the grant with the session). Default false.
   */
  readonly grantsEndWithProcess?: boolean;
}

/** An agent's own notice sent as a message chunk (see {@link AcpDriverOptions.agentNotice}). */
export interface AgentNotice {
  /** `info`: only a notice; `error`: the turn's model request failed. */
  readonly level: "info" | "error";
  /** The notice's text, as the agent wrote it. */
  readonly message: string;
  /** Details of an `error` the failure carries, e.g. `apiErrorStatus` (the model API's HTTP status). */
  readonly details?: Readonly<Record<string, unknown>>;
}

/** What {@link AcpDriverOptions.inheritedSession} is told. */
export interface InheritedSessionContext {
  /** The session's working directory. */
  readonly cwd: string;
  /** The agent process's environment. */
  readonly env: Readonly<Record<string, string | undefined>>;
}

/** The session mode and model a run that leaves them to the agent gets (see {@link AcpDriverOptions.inheritedSession}). */
export interface InheritedSession {
  /** The session mode id to select (checked as a policy mode is: `AcpModeNotAppliedError` if not taken). */
  readonly mode?: string;
  /**
   * The model to select: a value the agent's model option takes (the agent may resolve an alias),
   * or `null` for the first model it offers; one it refuses falls back to the first.
   */
  readonly model?: string | null;
}

/**
 * A driver for any agent that speaks the Agent Client Protocol on stdio, on the official
 * `@agentclientprotocol/sdk` client. Build it with {@link acp} (or a preset such as `gemini`).
 */
export class AcpDriver implements Driver {
  readonly descriptor: DriverDescriptor;
  readonly #resolve: () => AcpConfig;
  readonly #toolName: (call: ToolCallUpdate) => string;
  readonly #toolInput: ((call: ToolCallUpdate, toolName: string) => unknown) | undefined;
  readonly #inherited: AcpDriverOptions["inheritedSession"];
  readonly #emptyWhenUnset: readonly string[];
  readonly #allowAllEnv: readonly string[];
  readonly #confinedArgs: readonly string[];
  readonly #agentNotice: AcpDriverOptions["agentNotice"];
  readonly #grantsEndWithProcess: boolean;
  /** Sessions in which an "always" grant was given (see {@link AcpDriverOptions.grantsEndWithProcess}); the oldest are forgotten past {@link MAX_ALWAYS_ALLOWED}. */
  readonly #alwaysAllowed = new Set<string>();
  /** No preset describes the agent (plain `acp()`): its enforcement entries say what they leave out. */
  readonly #unknownAgent: boolean;
  readonly #pool: ProcessPool<AcpProcess>;
  /** Conversations whose parked process was ended for writing after its turn, with its pid: told to their next turn. */
  readonly #endedLate = new Map<string, number>();

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
    this.#toolInput = options.toolInput;
    this.#inherited = options.inheritedSession;
    this.#emptyWhenUnset = options.emptyWhenUnset ?? [];
    this.#allowAllEnv = options.allowAllEnv ?? [];
    this.#confinedArgs = options.confinedArgs ?? [];
    this.#agentNotice = options.agentNotice;
    this.#grantsEndWithProcess = options.grantsEndWithProcess === true;
    this.#unknownAgent = options.resolve === undefined;
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

  /** The working directory of a run without `request.cwd`: the config's `cwd` (undefined: `process.cwd()`). */
  get cwd(): string | undefined {
    return this.config.cwd;
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
    const config = this.#configFor(request);
    const plan = this.#plan(config, request);
    this.#refuseUnheldToolBudget(config, request, plan);
    this.#refuseAllowAllEnv(config, request, sink);
    // A session with an "always" grant is not continued where the grant may hold under a policy that has every call asked.
    const confineGrant = this.#alwaysAllowedBefore(request) && (plan.hostAsks || plan.denyNonReadAsks);
    if (confineGrant) this.#confineGrant(request, sink);
    if (request.session?.fork && !this.descriptor.capabilities.sessions.fork) {
      throw new FeatureUnsupportedError(this.descriptor.type, "fork", "the agent is not configured to fork sessions (`fork: true`)");
    }
    const cwd = request.cwd ?? config.cwd ?? process.cwd();
    const model = request.model ?? config.model;

    const env = this.#env(config, request);
    // A required stdio server whose command is missing (the agent could not say so: it starts
    // `/usr/bin/env`) refuses the run before the agent starts.
    await checkStdioServerCommands(request.mcpServers, env, cwd);
    const merged = this.#merged(config, request);
    const removed = this.#allowAllEnv.filter((name) => env[name] === undefined && merged[name] !== undefined);
    if (removed.length > 0)
      sink.emit({
        type: "notice",
        kind: "policy",
        message: `${removed.join(", ")} (inherited from the host's environment) removed from ${this.descriptor.displayName}'s environment: with it the agent runs tools or commands without asking, which the run's policy forbids`,
        data: { removed },
      });
    // A parked process serves a turn only if it was launched, and its session opened, exactly alike.
    const signature = launchSignature({ config, env, request });
    let proc = await this.#pool.acquire({ request: confineGrant ? { ...request, reuseProcess: false } : request, signature, sink });
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
      proc = await this.#start(config, request, signature, sink, plan.offer);
      sink.emit({ type: "process", kind: "spawn", pid: proc.pid });
    }
    const served = proc;
    served.stderrTo.sink = sink;
    served.onUnfenced = undefined;
    this.#noteEndedLate(request, sink);
    // No output for stallTimeoutMs (time waiting on a human aside) ends the run like a cancel, with a TIMEOUT verdict.
    const watchdog = new StallWatchdog(served.child, { timeoutMs: config.stallTimeoutMs, device: this.descriptor.type });
    const runSignal = AbortSignal.any([signal, watchdog.signal]);
    return this.#pool.serve(served, async () => {
      try {
        const response = await this.#turn(served, config, request, watchdog.sink(sink), runSignal, cwd, model, plan);
        const reusable = request.reuseProcess === true && served.usable && !response.failure && response.checkpoint !== undefined;
        if (!reusable) {
          await served.close();
          return { ...response, ...(await exitOf(served)) };
        }
        // A parked process's stderr belongs to no run until the next turn takes it.
        served.stderrTo.sink = IDLE_SINK;
        const key = response.checkpoint!.resumeId;
        this.#pool.park(key, served);
        // One that writes a turn's output while parked is never reused: it is ended at once, not after idleMs.
        served.onUnfenced = () => {
          this.#endedLate.set(key, served.pid);
          if (this.#endedLate.size > MAX_ENDED_LATE) this.#endedLate.delete(this.#endedLate.keys().next().value!);
          void this.#pool.evict(key, served);
        };
        return response;
      } catch (error) {
        await served.close();
        const exit = await served.child.exited;
        if (runSignal.aborted) throw exit.forceKilled ? forceKilledError(this.descriptor.type, runSignal.reason) : runSignal.reason;
        throw error;
      } finally {
        watchdog.close();
      }
    });
  }

  /**
   * Tells the turn continuing a conversation whose parked process was ended for writing after its
   * turn: a `notice` `lifecycle` (`data.pid`, `data.sessionId`).
   */
  #noteEndedLate(request: DriverRequest, sink: DriverSink): void {
    const key = request.session?.resumeId;
    const pid = key === undefined ? undefined : this.#endedLate.get(key);
    if (key === undefined || pid === undefined) return;
    this.#endedLate.delete(key);
    sink.emit({
      type: "notice",
      kind: "lifecycle",
      message: `parked process ended: ${this.descriptor.displayName} wrote a turn's output or a request after its turn had ended`,
      data: { pid, sessionId: key },
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
    const config = this.#configFor(request);
    const plan = this.#plan(config, request);
    this.#refuseAllowAllEnv(config, request);
    const first: DriverRequest = { ...request, runId: "prewarm", prompt: "" };
    const signature = launchSignature({ config, env: this.#env(config, first), request: first });
    await this.#pool.prewarm(
      signature,
      () => this.#start(config, first, signature, IDLE_SINK, plan.offer),
      async (proc) => {
        const abort = (): void => void proc.close();
        signal.addEventListener("abort", abort, { once: true });
        try {
          await withHandshakeDeadline(proc.initialize(signal), config, this.descriptor.type, "initialize", () => void proc.close());
        } finally {
          signal.removeEventListener("abort", abort);
        }
      },
      signal,
      this.descriptor.type,
    );
    return true;
  }

  #start(
    config: AcpConfig,
    request: DriverRequest,
    signature: string,
    sink: Pick<DriverSink, "emit">,
    offer: HostOffer,
  ): Promise<AcpProcess> {
    const model = request.model ?? config.model;
    const stderrTo = { sink };
    const env = this.#env(config, request);
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
          env,
          device: this.descriptor.type,
          displayName: this.descriptor.displayName,
          graceMs: graceMs(config),
          ...spawnLimits(config),
          onStderr: (text) => stderrTo.sink.emit({ type: "process", kind: "stderr", text }),
          // The credentials the run hands the agent (its environment's, its MCP servers', which a
          // process launched alike shares) read [redacted] in its stderr events and result.raw().
          redactRaw: launchSecrets(env, request.mcpServers),
          offer,
        },
        signature,
        stderrTo,
      ),
    );
  }

  /** Ends the process parked for the conversation `resumeId`, if any (see `Driver.releaseSession`). Never rejects. */
  releaseSession(resumeId: string): Promise<void> {
    return this.#pool.evict(resumeId);
  }

  /**
   * One page of the agent's sessions through ACP's `session/list`, asked of a short-lived agent
   * process (the config's command, arguments and environment, then `query.env`; `initialize`, the
   * listing, then the process ended): the agent's own order, filter and fields (`sessionId`,
   * `cwd`, `title`, `updatedAt`), its pages cut to `query.limit`. No session is opened and no model
   * is called.
   * @throws FeatureUnsupportedError (feature `listSessions`) when the agent's `initialize` answer
   * has no `sessionCapabilities.list`; InvalidDriverConfigError; InvalidOptionError (field
   * `cursor`) for a cursor this driver did not give; the spawn's DriverError (`NOT_FOUND`); a
   * `TIMEOUT` DriverError when `initialize` or a `session/list` takes over `handshakeTimeoutMs`;
   * the agent's error; `signal.reason` when aborted (the process is then ended).
   */
  async listSessions(query: DriverListSessionsQuery, signal: AbortSignal = new AbortController().signal): Promise<SessionPage> {
    // The listing's `cwd` filters it; the process starts in the config's.
    const start = query.env !== undefined ? { env: query.env } : {};
    return this.#shortLived("list-sessions", start, signal, async (proc, init, config, end, requested) =>
      listAcpSessions(query, this.#sessionList("listSessions", proc, init, config, end, requested, signal)),
    );
  }

  /**
   * The agent's session `query.sessionId` as its `session/list` lists it (`sessionId`, `cwd`,
   * `title`, `updatedAt`), found by reading the agent's pages (no `cwd` filter) on a short-lived
   * agent process, as {@link listSessions} starts it, until one holds it (at most 100 pages). No
   * session is opened and no model is called.
   * @returns `undefined` when the pages read do not list it.
   * @throws FeatureUnsupportedError (feature `getSessionInfo`) when the agent's `initialize` answer
   * has no `sessionCapabilities.list`; otherwise as {@link listSessions}.
   */
  async getSessionInfo(query: DriverSessionQuery, signal: AbortSignal = new AbortController().signal): Promise<SessionSummary | undefined> {
    const start = query.env !== undefined ? { env: query.env } : {};
    return this.#shortLived("session-info", start, signal, async (proc, init, config, end, requested) => {
      const list = this.#sessionList("getSessionInfo", proc, init, config, end, requested, signal);
      return findAcpSession(query.sessionId, (cursor) => list(undefined, cursor));
    });
  }

  /**
   * One page of the messages of the agent's session `query.sessionId`, from the history it replays
   * on `session/load` in a short-lived agent process (the config's command, arguments and
   * environment, then `query.env`, started in `query.cwd`, else the config's `cwd`; `initialize`,
   * `session/load` in that same directory with no MCP servers, one more round trip so a replay sent
   * after the answer is in, then the process ended):
   * no prompt is sent and no model is called. The whole history is replayed each time; only the
   * page's messages are kept (see `ReplayedMessages`). When the load replays no message, the
   * agent's `session/list` (when it offers one) is read on the same process, as
   * {@link getSessionInfo} reads it: a session it lists is an empty one; without a listing the
   * empty page is marked `unconfirmed` (an agent that replays no history may load any id).
   * @returns `undefined` when the agent does not hold the session: a resource-not-found (`-32002`)
   * answer to `session/load`, or an invalid-params (`-32602`) one whose message or data names the
   * session (how pi-acp answers an unknown session id: `Unknown sessionId: <id>`), or a load that
   * replayed nothing of a session the agent's `session/list` does not list.
   * @throws FeatureUnsupportedError (feature `getSessionMessages`) when the agent's `initialize`
   * answer has no `loadSession`; InvalidDriverConfigError; InvalidOptionError (field `cursor`) for
   * a cursor this driver did not give, before the process starts; the spawn's DriverError
   * (`NOT_FOUND`); a `TIMEOUT` DriverError (op the request waiting: `initialize`, `session/load`,
   * or `_adaptor/fence`, the round trip after it) when one takes over `handshakeTimeoutMs`; a
   * `DEVICE_DISCONNECTED` DriverError (op the request waiting) when the agent's process ends
   * before answering, its cause how it ended; a `DRIVER` DriverError (op `session/load`) for any other error answer
   * to `session/load` (authentication required, an internal error, invalid params about another
   * parameter), the agent's error its
   * `cause`; `signal.reason` when aborted (the process is then ended).
   */
  async getSessionMessages(
    query: DriverSessionMessagesQuery,
    signal: AbortSignal = new AbortController().signal,
  ): Promise<SessionMessagePage | undefined> {
    signal.throwIfAborted();
    const offset = query.cursor !== undefined ? decodeReplayCursor(query.cursor) : 0;
    return this.#shortLived("session-messages", query, signal, async (proc, init, config, end, requested) => {
      if (!init.agentCapabilities?.loadSession)
        throw new FeatureUnsupportedError(
          this.descriptor.type,
          "getSessionMessages",
          `${this.descriptor.displayName} does not offer session/load (no loadSession in its initialize answer)`,
        );
      const replay = new ReplayedMessages(this.#toolName, offset, query.limit);
      const detach = proc.attach(query.sessionId, {
        onUpdate: (update) => (replay.add(update), true),
        onPermission: () => Promise.resolve({ outcome: { outcome: "cancelled" } }),
        onText: () => undefined,
      });
      try {
        const agent = proc.connection.agent;
        const cwd = query.cwd ?? config.cwd ?? process.cwd();
        requested("session/load");
        await withHandshakeDeadline(
          agent.request("session/load", { sessionId: query.sessionId, cwd, mcpServers: [] }, { cancellationSignal: signal }),
          config,
          this.descriptor.type,
          "session/load",
          end,
        );
        requested(FENCE_METHOD);
        await withHandshakeDeadline(replayFence(agent), config, this.descriptor.type, FENCE_METHOD, end);
      } catch (error) {
        signal.throwIfAborted();
        if (!(error instanceof RequestError)) throw error;
        if (sessionNotHeld(error, query.sessionId)) return undefined;
        throw new DriverError({
          op: "session/load",
          device: this.descriptor.type,
          code: ErrCode.Driver,
          detail: rpcMessage(error),
          cause: error,
        });
      } finally {
        detach();
      }
      const { messages, next } = replay.done();
      if (offset === 0 && messages.length === 0) {
        // Nothing replayed: an agent that loads any id says nothing of whether it holds this one.
        if (!init.agentCapabilities?.sessionCapabilities?.list) return { messages, unconfirmed: true as const };
        const list = this.#sessionList("getSessionMessages", proc, init, config, end, requested, signal);
        const listed = await findAcpSession(query.sessionId, (cursor) => list(undefined, cursor));
        return listed === undefined ? undefined : { messages };
      }
      return { messages, ...(next !== undefined ? { nextCursor: encodeReplayCursor(next) } : {}) };
    });
  }

  /**
   * The agent's `session/list` on short-lived process `proc`, one page a call (`cwd` filters it,
   * `cursor` the agent's own), each within `handshakeTimeoutMs`.
   * @throws FeatureUnsupportedError (feature `feature`) when `init` has no `sessionCapabilities.list`.
   */
  #sessionList(
    feature: string,
    proc: AcpProcess,
    init: InitializeResponse,
    config: AcpConfig,
    end: () => void,
    requested: (op: string) => void,
    signal: AbortSignal,
  ): (cwd: string | undefined, cursor: string | undefined) => Promise<ListSessionsResponse> {
    if (!init.agentCapabilities?.sessionCapabilities?.list)
      throw new FeatureUnsupportedError(
        this.descriptor.type,
        feature,
        `${this.descriptor.displayName} does not offer session/list (no sessionCapabilities.list in its initialize answer)`,
      );
    requested("session/list");
    return (cwd, cursor) =>
      withHandshakeDeadline(
        proc.connection.agent.request(
          "session/list",
          { ...(cwd !== undefined ? { cwd } : {}), ...(cursor !== undefined ? { cursor } : {}) },
          { cancellationSignal: signal },
        ),
        config,
        this.descriptor.type,
        "session/list",
        end,
      );
  }

  /**
   * Runs `use` on a short-lived agent process for a call about the agent's sessions: started in
   * `start.cwd`, else the config's (the config's command, arguments and environment, then
   * `start.env`), `initialize`d within `handshakeTimeoutMs`, then handed to `use` with the
   * `initialize` answer, the configuration, a function that ends the process and one `use` calls
   * with the name of each request it sends; the process is ended however `use` ends, and when
   * `signal` aborts (the call then rejects with its reason). When the process ends under a request
   * (not ended by `use` or a deadline), the call rejects with a `DEVICE_DISCONNECTED` DriverError
   * (op the request waiting) whose cause says how it ended and what it last wrote on stderr.
   */
  async #shortLived<T>(
    runId: string,
    start: { readonly env?: Readonly<Record<string, string>>; readonly cwd?: string },
    signal: AbortSignal,
    use: (proc: AcpProcess, init: InitializeResponse, config: AcpConfig, end: () => void, requested: (op: string) => void) => Promise<T>,
  ): Promise<T> {
    signal.throwIfAborted();
    const config = this.#configFor({});
    const request: DriverRequest = {
      runId,
      prompt: "",
      ...(start.env !== undefined ? { env: start.env } : {}),
      ...(start.cwd !== undefined ? { cwd: start.cwd } : {}),
    };
    const proc = await this.#start(config, request, runId, IDLE_SINK, this.#plan(config, request).offer);
    let ending = false;
    const end = (): void => {
      ending = true;
      void proc.close();
    };
    signal.addEventListener("abort", end, { once: true });
    let op = "initialize";
    const requested = (name: string): void => void (op = name);
    try {
      const init = await withHandshakeDeadline(proc.initialize(signal), config, this.descriptor.type, "initialize", end);
      return await use(proc, init, config, end, requested);
    } catch (error) {
      signal.throwIfAborted();
      // The agent's process ended under a request (not a timeout, which ended it): say how it ended.
      if (ending || error instanceof RequestError || error instanceof DriverError || !proc.connection.signal.aborted) throw error;
      const broken = await proc.ended;
      if (broken) throw broken;
      const exit = await proc.child.exited;
      const how = exit.signal ? `signal ${exit.signal}` : `exit code ${String(exit.code)}`;
      throw new DriverError({
        op,
        device: this.descriptor.type,
        code: ErrCode.DeviceDisconnected,
        cause: new Error(`${this.descriptor.displayName} ended before answering ${op} (${how})${tail(proc)}`, { cause: error }),
      });
    } finally {
      signal.removeEventListener("abort", end);
      await proc.close();
    }
  }

  /** Ends every live, parked and pre-warmed agent process of this driver. Idempotent. */
  async close(): Promise<void> {
    await this.#pool.close();
  }

  /** How the run enforces its policy (see `planAcpPolicy`). */
  #plan(config: AcpConfig, request: Pick<DriverRequest, "policy">): AcpPolicyPlan {
    const plan = planAcpPolicy(this.descriptor, config, request.policy);
    return this.#unknownAgent ? { ...plan, enforcement: withUnknownAgentScope(plan.enforcement) } : plan;
  }

  /** The checked configuration, with {@link AcpDriverOptions.confinedArgs} for a run whose policy confines the agent. */
  #configFor(request: Pick<DriverRequest, "policy">): AcpConfig {
    const config = this.config;
    if (this.#confinedArgs.length === 0 || !confinesAgent(request.policy)) return config;
    return { ...config, extraArgs: [...(config.extraArgs ?? []), ...this.#confinedArgs] };
  }

  /**
   * Refuses `budget.maxToolCalls` where the call over the limit could run before the host hears of
   * it. Over ACP the host learns of a call from the agent's `tool_call` update or its permission
   * ask; an agent that does not ask first sends the update as it runs the call (Nanocoder 1.30.0
   * in its own auto-accept mode), so ending the turn then cannot overtake it. The budget is held
   * only where the run puts the agent in its ask mode (`askMode`: a permission mode `ask`,
   * `auto_approve`, `auto_deny`, or `read_only` through it), where the over-limit edit or command
   * waits on its ask, which the ended run answers `cancelled`.
   * @throws FeatureUnsupportedError (feature `budget.maxToolCalls`) before launch.
   */
  #refuseUnheldToolBudget(config: AcpConfig, request: Pick<DriverRequest, "budget">, plan: AcpPolicyPlan): void {
    if (request.budget?.maxToolCalls === undefined) return;
    if (config.askMode !== undefined && plan.mode?.id === config.askMode) return;
    throw new FeatureUnsupportedError(
      this.descriptor.type,
      "budget.maxToolCalls",
      `${this.descriptor.displayName} may run a tool call before the host hears of it unless it asks first: the budget is held only in its ask mode (askMode, with a permission mode ask, auto_approve or auto_deny, or sandbox read_only through it)`,
    );
  }

  /** True when the session `request` continues (or forks) had an "always" grant: its checkpoint says so, or this driver saw it given. */
  #alwaysAllowedBefore(request: Pick<DriverRequest, "session">): boolean {
    const session = request.session;
    return session !== undefined && (alwaysAllowedIn(session.data) || this.#alwaysAllowed.has(session.resumeId));
  }

  /** Remembers that session `sessionId` had an "always" grant (the oldest remembered are forgotten past {@link MAX_ALWAYS_ALLOWED}). */
  #noteAlwaysAllowed(sessionId: string): void {
    this.#alwaysAllowed.delete(sessionId);
    this.#alwaysAllowed.add(sessionId);
    if (this.#alwaysAllowed.size > MAX_ALWAYS_ALLOWED) this.#alwaysAllowed.delete(this.#alwaysAllowed.values().next().value!);
  }

  /**
   * A run that has every acting call asked continues a session with an "always" grant: for an agent
   * whose grants end with its process (see {@link AcpDriverOptions.grantsEndWithProcess}) it takes no
   * parked process (a new one loads the session), with a `notice` `policy`; any other agent is
   * refused, with a `notice` `policy` saying why.
   * @throws PolicyCapabilityUnsupportedError (`sandbox` `read_only`), HumanDecisionModeUnsupportedError
   */
  #confineGrant(request: DriverRequest, sink: Pick<DriverSink, "emit">): void {
    const sessionId = request.session!.resumeId;
    const granted = `an ask in session ${sessionId} was answered with ${this.descriptor.displayName}'s "always" option`;
    if (this.#grantsEndWithProcess) {
      sink.emit({
        type: "notice",
        kind: "policy",
        message: `${granted}: the session is continued in a new process, where the grant does not hold`,
        data: { sessionId, alwaysAllowed: true },
      });
      return;
    }
    sink.emit({
      type: "notice",
      kind: "policy",
      message: `${granted}, which the agent may keep with the session: it cannot be continued under a policy that has every call asked (start a new conversation)`,
      data: { sessionId, alwaysAllowed: true },
    });
    const sandbox = request.policy?.sandbox;
    if (sandbox !== undefined && sandbox !== "unrestricted")
      throw new PolicyCapabilityUnsupportedError(this.descriptor.type, "sandbox", sandbox);
    throw new HumanDecisionModeUnsupportedError(this.descriptor.type, "permission", request.policy?.approvals?.permission ?? "inherit");
  }

  /**
   * Refuses a run whose policy confines the agent while the host sets one of
   * {@link AcpDriverOptions.allowAllEnv}, with a `policy` notice naming it when a sink is given.
   * @throws PolicyCapabilityUnsupportedError, HumanDecisionModeUnsupportedError
   */
  #refuseAllowAllEnv(config: AcpConfig, request: Pick<DriverRequest, "policy" | "env">, sink?: Pick<DriverSink, "emit">): void {
    if (!confinesAgent(request.policy)) return;
    const set = this.#allowAllEnv.filter((name) => config.env?.[name] !== undefined || request.env?.[name] !== undefined);
    if (set.length === 0) return;
    sink?.emit({
      type: "notice",
      kind: "policy",
      message: `${set.join(", ")} set in ${this.descriptor.displayName}'s env: with it the agent runs tools or commands without asking, so the run's policy cannot be enforced`,
      data: { set },
    });
    const sandbox = request.policy?.sandbox;
    if (sandbox !== undefined && sandbox !== "unrestricted")
      throw new PolicyCapabilityUnsupportedError(this.descriptor.type, "sandbox", sandbox);
    throw new HumanDecisionModeUnsupportedError(this.descriptor.type, "permission", request.policy?.approvals?.permission ?? "inherit");
  }

  /**
   * The session `_meta`: `sessionMeta`, and for a Claude Code ACP adapter under a policy that
   * confines it (see {@link AcpConfig.workspaceSettings}) the `user` setting source only (unless the
   * host chose the sources) and its unasked writing tools left out
   * (`claudeCode.options.disallowedTools`, see {@link CLAUDE_UNASKED_WRITING_TOOLS}), and under a
   * permission mode other than `inherit` ask rules for every built-in tool but the read ones (see
   * {@link withAskRules}), each with a `notice` `policy` saying so.
   * @throws HumanDecisionModeUnsupportedError under a permission mode when the host's `sessionMeta`
   * gives Claude Code a settings file path (the ask rules cannot be merged into it).
   */
  #sessionMeta(
    config: AcpConfig,
    request: DriverRequest,
    init: InitializeResponse,
    sink: Pick<DriverSink, "emit">,
  ): Readonly<Record<string, unknown>> | undefined {
    if (config.workspaceSettings === true || !confinesAgent(request.policy) || !isClaudeCodeAdapter(init)) return config.sessionMeta;
    const name = init.agentInfo?.name ?? this.descriptor.displayName;
    const userOnly = userSettingsOnly(config.sessionMeta);
    if (userOnly !== undefined)
      sink.emit({
        type: "notice",
        kind: "policy",
        message: `${name} is a Claude Code ACP adapter: its session gets settingSources ["user"] (sessionMeta.claudeCode.options), so the working directory's .claude settings (hooks, allow rules) and .mcp.json servers are not loaded under the run's policy`,
        data: { settingSources: ["user"] },
      });
    sink.emit({
      type: "notice",
      kind: "policy",
      message: `${name} is a Claude Code ACP adapter: ${CLAUDE_UNASKED_WRITING_TOOLS.join(", ")} (which write into the working directory without a permission ask in every mode) are left out of its session under the run's policy (sessionMeta.claudeCode.options.disallowedTools)`,
      data: { disallowedTools: [...CLAUDE_UNASKED_WRITING_TOOLS] },
    });
    const confined = withoutUnaskedWritingTools(userOnly ?? config.sessionMeta);
    const permission = request.policy?.approvals?.permission;
    if (permission === undefined || permission === "inherit") return confined;
    const asking = withAskRules(confined);
    if (asking === undefined) throw new HumanDecisionModeUnsupportedError(this.descriptor.type, "permission", permission);
    sink.emit({
      type: "notice",
      kind: "policy",
      message: `${name} is a Claude Code ACP adapter: its session gets permissions.ask rules for ${CLAUDE_ASKED_TOOLS.join(", ")} (sessionMeta.claudeCode.options.extraArgs.settings), so read-only shell commands are asked too under approvals.permission ${JSON.stringify(permission)}`,
      data: { askRules: [...CLAUDE_ASKED_TOOLS] },
    });
    return asking;
  }

  /** The agent's environment before {@link AcpDriverOptions.allowAllEnv} is removed. */
  #merged(config: AcpConfig, request: DriverRequest): Record<string, string | undefined> {
    return mergeChildEnv({ inheritEnv: config.inheritEnv, defaultInherit: SAFE_ENV_BASE, layers: [config.env, request.env] });
  }

  #env(config: AcpConfig, request: DriverRequest): Record<string, string | undefined> {
    const env = this.#merged(config, request);
    for (const name of this.#emptyWhenUnset) if (env[name] === undefined) env[name] = "";
    // Only an inherited one is left by now: one the host set refused the run (#refuseAllowAllEnv).
    if (confinesAgent(request.policy)) for (const name of this.#allowAllEnv) if (env[name] !== undefined) env[name] = undefined;
    return env;
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
    const trusted = (request.mcpServers ?? [])
      .filter((server) => server.trusted === true)
      .map((server) => ({ name: server.name, tools: server.tools ?? [] }));
    const terminals = new HostTerminals({
      env: proc.env,
      cwd,
      device: `${this.descriptor.type} terminal`,
      maxOutputBytes: config.maxTerminalOutputBytes ?? DEFAULT_MAX_TERMINAL_OUTPUT_BYTES,
      ...spawnLimits(config),
    });
    const host = new HostClient({
      plan,
      sink,
      cwd,
      driver: this.descriptor.type,
      terminals,
      delegationTools: config.delegationTools ?? [],
      // A refused terminal is the refusal of the one open call running that command.
      onTerminalRefused: (refused) => turn.terminalRefused(refused),
    });
    let enforcement = plan.enforcement;
    // A tool that acts and ran unasked under a policy enforced by asks, or one that changes the
    // machine and ran unasked under a declared read-only mode: the turn ends at once as a policy violation.
    let violation: DriverFailure | undefined;
    let violated!: () => void;
    const violating = new Promise<void>((resolve) => (violated = resolve));
    // A declared read-only mode of an agent no preset describes is checked against that evidence
    // (its own configuration may loosen it): a call that changes the machine reported completed
    // unasked (a call the agent reports failed after refusing it itself is not). A preset's mode,
    // and a Claude Code adapter's, are the bound: their read-only modes run read-only shell
    // commands (ls, git status) unasked.
    let checkMode = this.#unknownAgent;
    // A Claude Code adapter's tools that write unasked in every mode (left out of its session under
    // a confining policy) are evidence against its read-only mode all the same: one reported
    // completed unasked (an adapter that does not honour `disallowedTools`) changed the machine.
    let claudeAdapter = false;
    const onUnasked = (call: UnaskedCall): void => {
      // A call the agent reports failed of a tool its session was opened without did not run: the
      // adapter answers the model's call itself ("No such tool available").
      if (call.status === "failed" && !call.denied && sessionId !== undefined && proc.toolsLeftOut.get(sessionId)?.includes(call.toolName))
        return;
      // A call asked about only as a read that then acted passed the read_only gate on that kind
      // (whatever the agent's mode): it breaks that gate, and nothing else (a permission mode's
      // handler saw and answered the ask).
      const changes =
        call.denied === true ||
        call.cancelled === true ||
        (call.status === "completed" &&
          (((checkMode || call.askedAs !== undefined) && changesMachine(call.toolKind)) ||
            (claudeAdapter && isClaudeUnaskedWritingTool(call.toolName))));
      const fails = (field: string): boolean =>
        (call.askedAs === undefined || (field === "sandbox" && plan.denyNonReadAsks)) &&
        (plan.unaskedFails.includes(field) || (changes && plan.changeFails.includes(field)));
      const broken = enforcement.filter((entry) => entry.enforced && fails(entry.field));
      if (violation || broken.length === 0) return;
      const fields = broken.map((entry) => `${entry.field} ${JSON.stringify(entry.value)}`).join(" and ");
      const how = call.denied
        ? "ran although its permission ask was denied"
        : call.cancelled
          ? "ran although its permission ask was answered cancelled (the host had interrupted the turn)"
          : call.askedAs !== undefined
            ? `ran after a permission ask only as kind ${call.askedAs}`
            : "ran without a permission ask";
      const message = `${call.toolName} (ACP kind ${call.toolKind ?? "none"}) ${how} under ${fields}`;
      enforcement = enforcement.map((entry) =>
        broken.includes(entry) ? { ...entry, enforced: false, mechanisms: [], detail: `${entry.detail}; broken: ${message}` } : entry,
      );
      violation = {
        reason: "policy_violation",
        message,
        details: {
          toolCallId: call.toolCallId,
          toolName: call.toolName,
          ...(call.toolKind !== undefined ? { toolKind: call.toolKind } : {}),
          ...(call.askedAs !== undefined ? { askedAs: call.askedAs } : {}),
          fields: broken.map((entry) => entry.field),
        },
      };
      sink.emit({ type: "notice", kind: "policy", message: `ending the turn: ${message}`, data: { ...violation.details } });
      violated();
    };
    // Under a permission mode or read_only every acting call is asked: no answer may stop the asking.
    const turn = new AcpTurn(host.sink, this.#toolName, trusted, onUnasked, (id) => terminals.exitCodeOf(id), this.#agentNotice, {
      oneCallOptions: plan.hostAsks || plan.denyNonReadAsks,
      takeAskedTerminal: (id) => host.takeAskedTerminal(id),
      // A Claude Code adapter reads or ends a background command's host terminal unasked (BashOutput, KillShell).
      controlsApprovedTerminal: (name, input) => claudeAdapter && controlsApprovedTerminal(name, input, (id) => host.approvedTerminal(id)),
      ...(this.#toolInput ? { inputOf: this.#toolInput } : {}),
    });
    // Set while the prompt runs: sees each of the turn's updates (the interrupt's second cancel).
    let onTurnUpdate = (): void => undefined;
    // The turn takes the session's messages; the host serves the agent's fs and terminal requests.
    const handler: SessionHandler = {
      onUpdate: (update) => {
        const taken = turn.onUpdate(update);
        if (taken) onTurnUpdate();
        return taken;
      },
      onPermission: (params, permissionSignal) => turn.onPermission(params, permissionSignal),
      onText: (line) => turn.onText(line),
      onHost: (method, params) => host.handle(method, params),
    };
    const finish = (
      proc: AcpProcess,
      turn: AcpTurn,
      failure: DriverFailure | undefined,
      extra: Partial<DriverResponse> = {},
    ): Promise<DriverResponse> => {
      if (sessionId !== undefined && (turn.grantedAlways || grantedBefore)) this.#noteAlwaysAllowed(sessionId);
      return finishTurn(proc, turn, failure, { ...extra, enforcement });
    };
    // The session (or the one it forks) had an "always" grant: every later checkpoint says so.
    const grantedBefore = this.#alwaysAllowedBefore(request);
    const checkpointOf = (id: string, sessionCostUsd: number | undefined): Checkpoint => {
      const data = checkpointData(sessionCostUsd, grantedBefore || turn.grantedAlways);
      return { resumeId: id, ...(data ? { data } : {}) };
    };
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
      // The verdict of a stopped run still says how the policy was enforced until the stop.
      sink.partial?.({ enforcement });
      turn.end();
      escalation.start();
      // A prompt in flight ends by the agent's answer or the process's end; anything else at once.
      if (!prompting) aborted(signal.reason);
    };
    signal.addEventListener("abort", onAbort, { once: true });
    if (signal.aborted) onAbort();
    // Set-up requests (initialize, session/new|load|fork, mode, model) answer within handshakeTimeoutMs in all.
    let phase = "initialize";
    let endHandshake = (): void => undefined;
    const handshake = new Promise<never>((_, reject) => {
      const ms = config.handshakeTimeoutMs ?? DEFAULT_HANDSHAKE_TIMEOUT_MS;
      const timer = setTimeout(() => reject(handshakeTimeout(this.descriptor.type, phase, ms)), ms);
      timer.unref();
      endHandshake = () => clearTimeout(timer);
    });
    handshake.catch(() => undefined);
    const step = <T>(op: string, promise: Promise<T>): Promise<T> => {
      phase = op;
      return Promise.race([promise, abortion, handshake]);
    };
    let detach: (() => void) | undefined;
    try {
      const init = proc.initialized ?? (await step("initialize", proc.initialize(signal)));
      if (isClaudeCodeAdapter(init)) {
        checkMode = false;
        claudeAdapter = true;
      }
      const caps = init.agentCapabilities ?? {};
      if (request.images?.length && caps.promptCapabilities?.image !== true)
        throw new FeatureUnsupportedError(
          this.descriptor.type,
          "images",
          `${this.descriptor.displayName} does not declare promptCapabilities.image in its initialize answer`,
        );
      const mcpServers = this.#mcpServers(request.mcpServers ?? [], proc, caps.mcpCapabilities ?? {});
      if ("failure" in mcpServers) return finish(proc, turn, mcpServers.failure);

      if (sessionId === undefined) {
        const sessionMeta = this.#sessionMeta(config, request, init, sink);
        const meta = sessionMeta !== undefined ? { _meta: sessionMeta } : {};
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
              "session/fork",
              agent.request<NewSessionResponse>("session/fork", { sessionId: parent, cwd, mcpServers: mcpServers.servers, ...meta }),
            );
            sessionId = forked.sessionId;
            offered = forked;
          } catch (error) {
            if (signal.aborted || !(error instanceof RequestError)) throw error;
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
          // Replayed history arrives as updates during session/load (or after its answer): the turn
          // takes them from now on but keeps none of them until its prompt is sent.
          detach = proc.attach(id, handler);
          try {
            offered = (await step(
              "session/load",
              agent.request("session/load", { sessionId: id, cwd, mcpServers: mcpServers.servers, ...meta }),
            )) as NewSessionResponse;
          } catch (error) {
            if (signal.aborted || !(error instanceof RequestError)) throw error;
            return finish(proc, turn, { reason: "resume_rejected", message: rpcMessage(error), details: rpcDetails(error), cause: error });
          }
          // An agent that handles requests in order and answers session/load before replaying the
          // history replays it before answering its next request: one round trip fences the replay off.
          await step(FENCE_METHOD, replayFence(agent));
          sessionId = id;
        } else {
          try {
            const created = await step("session/new", agent.request("session/new", { cwd, mcpServers: mcpServers.servers, ...meta }));
            sessionId = created.sessionId;
            offered = created;
          } catch (error) {
            if (signal.aborted || !(error instanceof RequestError)) throw error;
            return finish(proc, turn, { reason: "agent_error", message: rpcMessage(error), details: rpcDetails(error), cause: error });
          }
        }
        proc.sessions.add(sessionId);
        const leftOut = claudeAdapter ? disallowedToolsOf(sessionMeta) : [];
        if (leftOut.length > 0) proc.toolsLeftOut.set(sessionId, leftOut);
        const started = request.session?.fork ? "session forked" : request.session ? "session loaded" : "session started";
        sink.emit({ type: "notice", kind: "lifecycle", message: started, data: { sessionId } });
        sink.emit(sessionInit({ sessionId, cwd }));
        if (plan.mode) {
          // A mode the session does not offer is not set: an agent may take any id (Nanocoder 1.30.0
          // turns an unknown one into its auto-accept mode and answers success).
          const missing = notOffered(plan.mode.id, offered);
          const reported = missing
            ? undefined
            : await applyMode(
                proc,
                sessionId,
                plan.mode.id,
                offered,
                (promise) => step("session mode", promise),
                config.modeConfirmedByAnswer === true,
              );
          // The mode check took the session's messages for a moment: give them back to the turn.
          if (detach) detach = proc.attach(sessionId, handler);
          if (reported !== plan.mode.id) {
            const error = new AcpModeNotAppliedError(
              this.descriptor.type,
              plan.mode.field,
              plan.mode.value,
              plan.mode.id,
              reported,
              missing,
            );
            // The tool-call budget relies on the ask mode too (see #refuseUnheldToolBudget): no best effort for it.
            if (!plan.bestEffort || request.budget?.maxToolCalls !== undefined) throw error;
            enforcement = notEnforcedBy(enforcement, "agent_mode", error.message);
          }
          sink.emit({ type: "notice", kind: "lifecycle", message: `session mode ${String(reported)}`, data: { modeId: reported } });
        }
        if (model !== undefined && !config.modelFlag) {
          const failure = await step("model selection", this.#selectModel(agent, sessionId, model, offered));
          if (failure) return finish(proc, turn, failure);
        }
        // What the run leaves to the agent, where the agent would take it from the workspace.
        const inherited = !plan.mode || model === undefined ? await this.#inherited?.({ cwd, env: proc.env }) : undefined;
        if (!plan.mode && inherited?.mode !== undefined) {
          const missing = notOffered(inherited.mode, offered);
          const reported = missing
            ? undefined
            : await applyMode(
                proc,
                sessionId,
                inherited.mode,
                offered,
                (promise) => step("session mode", promise),
                config.modeConfirmedByAnswer === true,
              );
          if (detach) detach = proc.attach(sessionId, handler);
          if (reported !== inherited.mode)
            throw new AcpModeNotAppliedError(this.descriptor.type, "session mode", "inherit", inherited.mode, reported, missing);
          sink.emit({
            type: "notice",
            kind: "lifecycle",
            message: `session mode ${inherited.mode} (the workspace's settings do not choose it)`,
            data: { modeId: reported },
          });
        }
        if (model === undefined && inherited?.model !== undefined) {
          const failure = await step("model selection", this.#selectInheritedModel(agent, sessionId, inherited.model, offered));
          if (failure) return finish(proc, turn, failure);
        }
      } else sink.emit(sessionInit({ sessionId, cwd })); // the parked process's session, open already
      endHandshake();
      detach ??= proc.attach(sessionId, handler);
      if (turn.replayed > 0)
        sink.emit({
          type: "notice",
          kind: "runtime",
          message: `session/load replayed ${turn.replayed} updates of the session's history (not this turn's output)`,
          data: { replayed: turn.replayed },
        });
      turn.beginPrompt();
      proc.child.takeOutput();
      const prompt = request.outputSchema ? withSchemaInstructions(request.prompt, request.outputSchema) : request.prompt;
      turn.transcript.push({ kind: "user", text: request.prompt });
      let answer: PromptResponse;
      const prompted = agent.request("session/prompt", { sessionId, prompt: promptBlocks(prompt, request.images) });
      prompting = prompted.then(honoured, honoured);
      const promptedSession = sessionId;
      let interruptedByHost = false;
      // The host's interrupt: ACP's `session/cancel`; the agent ends the turn with stopReason
      // `cancelled`. An agent that has not taken the prompt in yet may drop the cancel: it is sent
      // once more at the turn's first update after it. A turn not ended killGraceMs after the first
      // cancel is ended by the host: its process is ended and the verdict is interrupted.
      const cancelTurn = (): Promise<void> => agent.notify("session/cancel", { sessionId: promptedSession });
      let resent = false;
      let interruptTimer: ReturnType<typeof setTimeout> | undefined;
      let cutOff!: () => void;
      const interruptExpired = new Promise<typeof INTERRUPT_EXPIRED>((resolve) => (cutOff = () => resolve(INTERRUPT_EXPIRED)));
      onTurnUpdate = () => {
        if (!interruptedByHost || resent || !prompting) return;
        resent = true;
        void cancelTurn().catch(() => undefined);
      };
      const detachControl = sink.attachControl?.({
        interrupt: async () => {
          interruptedByHost = true;
          turn.interrupt();
          interruptTimer ??= setTimeout(cutOff, graceMs(config));
          await cancelTurn();
        },
      });
      // A policy violation cancels the turn (`session/cancel`) and does not wait for its answer: the
      // process is ended after the turn, as every process with a failed turn is.
      const cancelOnViolation = violating.then(() => {
        turn.interrupt();
        void agent.notify("session/cancel", { sessionId: promptedSession }).catch(() => undefined);
      });
      try {
        const answered = await Promise.race([prompted, cancelOnViolation, interruptExpired]);
        if (violation) return finish(proc, turn, violation);
        if (answered === INTERRUPT_EXPIRED) {
          const ms = graceMs(config);
          sink.emit({
            type: "notice",
            kind: "lifecycle",
            message: `${this.descriptor.displayName} did not end the turn within ${ms} ms of session/cancel (killGraceMs): its process is ended`,
            data: { killGraceMs: ms },
          });
          await proc.close();
          const cost = turnCost(turn, proc, sessionId, request);
          return finish(proc, turn, undefined, {
            interrupted: true,
            ...(cost.costUsd !== undefined ? { costUsd: cost.costUsd } : {}),
            ...(model !== undefined ? { model } : {}),
            checkpoint: checkpointOf(sessionId, cost.total),
          });
        }
        answer = answered as PromptResponse;
      } catch (error) {
        if (violation) return finish(proc, turn, violation);
        if (signal.aborted) {
          await escalation.settled();
          throw signal.reason;
        }
        // The connection closed under the request: the stream broke (its error is the verdict), or
        // the agent's process ended during the turn.
        if (!(error instanceof RequestError) || proc.connection.signal.aborted) {
          const broken = await proc.ended;
          if (broken) throw broken;
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
        clearTimeout(interruptTimer);
        detachControl?.();
      }
      if (signal.aborted) {
        await escalation.settled();
        throw signal.reason;
      }
      if (violation) return finish(proc, turn, violation);
      // An interrupt that came after the agent ended the turn by itself leaves the verdict as the agent gave it.
      const interrupted = interruptedByHost && answer.stopReason === "cancelled";
      // Some adapters offer only an option that ends the turn to reject a tool (codex-acp's "abort"):
      // a turn the agent cancelled right after a host denial ended by that denial, not by a failure.
      const endedByDenial = !interrupted && answer.stopReason === "cancelled" && turn.denied > 0;
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
        : endedByDenial || interrupted
          ? undefined
          : (stopReasonFailure(answer.stopReason) ?? agentErrorFailure(turn, answer.stopReason));
      if (!failure && !interrupted) await this.#checkStdioServers(proc, request.mcpServers ?? [], sink, cwd);
      const usage = promptUsage(answer);
      const cost = turnCost(turn, proc, sessionId, request);
      return finish(proc, turn, failure, {
        ...(interrupted ? { interrupted: true } : {}),
        ...(usage ? { usage } : {}),
        ...(cost.costUsd !== undefined ? { costUsd: cost.costUsd } : {}),
        ...(model !== undefined ? { model } : {}),
        ...(request.outputSchema && !failure && !interrupted ? parseStructured(turn.text) : {}),
        ...(failure ? {} : { checkpoint: checkpointOf(sessionId, cost.total) }),
      });
    } catch (error) {
      // The agent's process ended while the session was being set up (before the prompt): say how it
      // ended and what it last wrote on stderr, not only that the connection closed.
      if (signal.aborted || error instanceof RequestError || !proc.connection.signal.aborted) throw error;
      const broken = await proc.ended;
      if (broken) throw broken;
      const exit = await proc.child.exited;
      const how = exit.signal ? `signal ${exit.signal}` : `exit code ${String(exit.code)}`;
      throw new DriverError({
        op: "session setup",
        device: this.descriptor.type,
        code: ErrCode.DeviceDisconnected,
        cause: new Error(`${this.descriptor.displayName} ended before its turn began (${how})${tail(proc)}`, { cause: error }),
      });
    } finally {
      endHandshake();
      signal.removeEventListener("abort", onAbort);
      turn.end();
      detach?.();
      await host.close();
    }
  }

  /**
   * Selects `model` on a new session: the agent's model config option (`session/set_config_option`;
   * of several options of category `model`, the one whose id is `model`, see {@link modelOption})
   * when it lists one, else the unstable `session/set_model` when it lists models.
   * @throws DriverError `INVALID` (op `"model selection"`) when the agent offers no model selection,
   * offers models and `model` is not among them (the message lists what it offers), or offers
   * several model options none of which is the model's.
   */
  async #selectModel(
    agent: ClientContext,
    sessionId: string,
    model: string,
    offered: NewSessionResponse | undefined,
  ): Promise<DriverFailure | undefined> {
    const { option, candidates } = modelOption(offered?.configOptions, model);
    const models = (offered as { models?: { availableModels?: readonly { modelId: string }[] } } | undefined)?.models;
    const refuse = (why: string): never => {
      throw new DriverError({ op: "model selection", device: this.descriptor.type, code: ErrCode.Invalid, cause: why });
    };
    if (!option && candidates.length > 0)
      refuse(
        `${this.descriptor.displayName} offers several model options and none is the model's (${describeOptions(candidates)}): model ${JSON.stringify(model)} is the value of ${candidates.some((o) => choicesOf(o)?.includes(model)) ? "more than one" : "none"}`,
      );
    const choices: string[] | undefined = option ? choicesOf(option) : models?.availableModels?.map((m) => m.modelId);
    if (!option && models === undefined)
      refuse(`${this.descriptor.displayName} offers no model selection (model ${JSON.stringify(model)})`);
    if (choices !== undefined && !choices.includes(model))
      refuse(
        `${this.descriptor.displayName} does not offer model ${JSON.stringify(model)} (${option ? `its ${JSON.stringify(option.id)} option ` : "it "}offers ${choices.map((c) => JSON.stringify(c)).join(", ") || "none"})`,
      );
    try {
      if (option) await agent.request("session/set_config_option", { sessionId, configId: option.id, value: model });
      else await agent.request("session/set_model", { sessionId, modelId: model });
    } catch (error) {
      return { reason: "agent_error", message: rpcMessage(error), details: { ...rpcDetails(error), model }, cause: error };
    }
    return undefined;
  }

  /**
   * Selects `preference` (the agent resolves an alias) on the agent's model option ({@link modelOption}),
   * else or when it refuses it the first value of that option; nothing when the agent has no such option.
   */
  async #selectInheritedModel(
    agent: ClientContext,
    sessionId: string,
    preference: string | null,
    offered: NewSessionResponse | undefined,
  ): Promise<DriverFailure | undefined> {
    const { option } = modelOption(offered?.configOptions, preference ?? undefined);
    const first = option ? choicesOf(option)?.[0] : undefined;
    if (option === undefined || first === undefined) return undefined;
    if (preference !== null) {
      const taken = await agent
        .request("session/set_config_option", { sessionId, configId: option.id, value: preference })
        .then(() => true)
        .catch(() => false);
      if (taken) return undefined;
    }
    return this.#selectModel(agent, sessionId, first, offered);
  }

  /**
   * After a turn that ended well: the declared stdio servers that are not among the agent's live
   * processes ({@link stdioServersNotRunning}; ACP reports no server status) get a `notice`
   * `mcp.status` (`data.servers`: `{ name, status: "not_running" }`, with `error: "command not
   * found: <command>"` for one whose command is missing, or `"unknown"` where the agent's processes
   * cannot be listed).
   * @throws DriverError `DEVICE_DISCONNECTED` (op `mcp connect`, device the server's name) for a
   * `required` one not running, as for a required server that failed to start on the other drivers.
   */
  async #checkStdioServers(
    proc: AcpProcess,
    servers: readonly McpServerConfig[],
    sink: Pick<DriverSink, "emit">,
    cwd: string,
  ): Promise<void> {
    const missing = await stdioServersNotRunning(proc.child, servers);
    if (missing?.length === 0) return;
    const unknown = missing === undefined;
    const named = unknown ? servers.filter((server) => server.transport === "stdio") : missing;
    const status = unknown ? "unknown" : "not_running";
    // Why a server is not running, where its command is missing (a required one's refused the run before launch).
    const problems = await checkStdioServerCommands(
      named.map((server) => ({ ...server, required: false })),
      proc.env,
      cwd,
    );
    sink.emit({
      type: "notice",
      kind: "mcp.status",
      message: unknown
        ? `MCP servers at the end of the turn: whether ${this.descriptor.displayName} started ${named.map((s) => s.name).join(", ")} cannot be seen here (its processes cannot be listed)`
        : `MCP servers at the end of the turn: ${named.map((s) => s.name).join(", ")} not running (${this.descriptor.displayName} did not start ${named.length === 1 ? "it" : "them"}, or ${named.length === 1 ? "it" : "they"} ended)`,
      data: {
        servers: named.map((server) => {
          const error = problems.get(server.name);
          return { name: server.name, status, ...(error !== undefined ? { error } : {}) };
        }),
      },
    });
    const required = unknown ? undefined : named.find((server) => server.required === true);
    if (required)
      throw new DriverError({
        op: MCP_CONNECT_OP,
        device: required.name,
        code: ErrCode.DeviceDisconnected,
        cause: `required MCP server not running at the end of the turn: ${this.descriptor.displayName} did not start it (an ACP agent may ignore session/new's mcpServers), or it ended`,
      });
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
        // Marked as a server of the agent's whole life, and by name: the turn's end looks for it.
        const env = { ...server.env, [STDIO_SERVER_VAR]: "1", [MCP_SERVER_NAME_VAR]: server.name };
        out.push({
          name: server.name,
          command: launch.command,
          args: launch.args,
          env: Object.entries(env).map(([name, value]) => ({ name, value })),
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

/** The failure of a turn that ended normally with no model text after the agent's own error notice. */
function agentErrorFailure(turn: AcpTurn, stopReason: string): DriverFailure | undefined {
  const error = turn.agentError;
  if (!error || turn.text !== "") return undefined;
  return { reason: "agent_error", message: error.message, details: { ...error.details, stopReason } };
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

/** An error text saying a session is not known (pi-acp: `Unknown sessionId: <id>`). */
const UNKNOWN_SESSION = /unknown session|no such session|session\b[^.]*\bnot (?:found|exist)/i;

/**
 * Whether an error answer to `session/load` of `sessionId` means the agent does not hold the
 * session: a resource-not-found (`-32002`, `RequestError.resourceNotFound`), or an invalid params
 * (`-32602`) whose message or data names the session (agents such as pi-acp answer
 * `Unknown sessionId: <id>`); an invalid params about anything else (a `cwd` the agent refuses) is
 * not. A run resuming such a session ends `resume_rejected`, as it does for any error answer to
 * `session/load`.
 */
function sessionNotHeld(error: RequestError, sessionId: string): boolean {
  if (error.code === -32002) return true;
  if (error.code !== -32602) return false;
  let data: string;
  try {
    data = typeof error.data === "string" ? error.data : (JSON.stringify(error.data) ?? "");
  } catch {
    data = "";
  }
  return [error.message, data].some((text) => UNKNOWN_SESSION.test(text) || (sessionId !== "" && text.includes(sessionId)));
}

/** The exit of a process the driver closed itself after its turn. */
async function exitOf(proc: AcpProcess): Promise<Pick<DriverResponse, "exit">> {
  const exit = await proc.child.exited;
  return { exit: { code: exit.code, signal: exit.signal, endedByDriver: true } };
}

function emptyResponse(plan: AcpPolicyPlan, failure: DriverFailure): DriverResponse {
  return { text: "", transcript: [], raw: { stdout: "", stderr: "" }, enforcement: plan.enforcement, failure };
}

/** The report with every entry that relied on `mechanism` marked not enforced, saying why. */
function notEnforcedBy(report: readonly PolicyEnforcement[], mechanism: EnforcementMechanism, why: string): PolicyEnforcement[] {
  return report.map((entry) =>
    entry.mechanisms.includes(mechanism)
      ? { ...entry, enforced: false, mechanisms: [], detail: `${why} (best effort accepted)`, bestEffort: true }
      : entry,
  );
}

/** The turn's response; its raw output counts the stderr the agent wrote before the answer that ended the turn. */
async function finishTurn(
  proc: AcpProcess,
  turn: AcpTurn,
  failure: DriverFailure | undefined,
  extra: Partial<DriverResponse> = {},
): Promise<DriverResponse> {
  turn.end();
  const dropped = proc.sdkLog.takeDropped();
  if (dropped > 0)
    proc.stderrTo.sink.emit({
      type: "notice",
      kind: "runtime",
      message: `ACP SDK: ${dropped} further log lines dropped`,
      data: { dropped },
    });
  const out = await proc.child.takeSettledOutput();
  return {
    text: turn.text,
    transcript: turn.transcript,
    raw: rawStreams(out),
    ...extra,
    ...(failure ? { failure } : {}),
  };
}

/** What the race of a prompt against the interrupt's bound yields when the bound passed first. */
const INTERRUPT_EXPIRED: unique symbol = Symbol("interrupt expired");

/** At most this many conversations are remembered for {@link AcpDriver}'s ended-late notice (the oldest are forgotten). */
const MAX_ENDED_LATE = 256;

/** At most this many sessions with an "always" grant are remembered by an {@link AcpDriver} beside their checkpoints (the oldest are forgotten). */
const MAX_ALWAYS_ALLOWED = 4_096;

/** Default `handshakeTimeoutMs`: the set-up requests of a turn answer within 120,000 ms in all. */
export const DEFAULT_HANDSHAKE_TIMEOUT_MS = DEFAULT_REPLY_TIMEOUT_MS;

function handshakeTimeout(device: string, op: string, ms: number): DriverError {
  return new DriverError({ op, device, code: ErrCode.Timeout, cause: `no answer within ${ms} ms (handshakeTimeoutMs)` });
}

/** `work`, or a `TIMEOUT` DriverError (op `op`) once `handshakeTimeoutMs` passed; `onExpired` then ends the process. */
async function withHandshakeDeadline<T>(
  work: Promise<T>,
  config: Pick<AcpConfig, "handshakeTimeoutMs">,
  device: string,
  op: string,
  onExpired: () => void,
): Promise<T> {
  const ms = config.handshakeTimeoutMs ?? DEFAULT_HANDSHAKE_TIMEOUT_MS;
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      // The timeout settles the race before ending the process rejects `work` (connection closed).
      reject(handshakeTimeout(device, op, ms));
      onExpired();
    }, ms);
    timer.unref();
  });
  try {
    return await Promise.race([work, expired]);
  } finally {
    clearTimeout(timer);
  }
}

/** The extension request of {@link replayFence}, which names it when it does not answer in time. */
const FENCE_METHOD = "_adaptor/fence";

/**
 * One round trip after `session/load`: an extension request (`_adaptor/fence`; an agent that does
 * not know it answers method-not-found, which is as good). An agent that handles requests in order
 * and replays after answering `session/load` sends the replay before this answer. Resolves either way.
 */
async function replayFence(agent: ClientContext): Promise<void> {
  await agent.request(FENCE_METHOD, {}).catch((error: unknown) => {
    if (!(error instanceof RequestError)) throw error;
  });
}

/**
 * The turn's cost in USD from the session's cumulative cost (`usage_update.cost`, currency USD):
 * what it rose by since the turn's baseline (the session's last turn on this process, a replayed
 * `usage_update`, the checkpoint's `sessionCostUsd`, or 0 for a new session). Undefined when the
 * agent reported no cost during the turn, or no baseline is known.
 */
function turnCost(turn: AcpTurn, proc: AcpProcess, sessionId: string, request: DriverRequest): { costUsd?: number; total?: number } {
  const latest = turn.sessionCost;
  if (!latest || latest.currency.toUpperCase() !== "USD" || latest === turn.costBeforePrompt) return {};
  const stored = (request.session?.data as { sessionCostUsd?: unknown } | undefined)?.sessionCostUsd;
  const replayed = turn.costBeforePrompt?.currency.toUpperCase() === "USD" ? turn.costBeforePrompt.amount : undefined;
  const baseline =
    proc.sessionCosts.get(sessionId) ?? replayed ?? (typeof stored === "number" ? stored : undefined) ?? (request.session ? undefined : 0);
  proc.sessionCosts.set(sessionId, latest.amount);
  return { total: latest.amount, ...(baseline !== undefined ? { costUsd: Math.max(0, latest.amount - baseline) } : {}) };
}
