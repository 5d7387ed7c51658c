import * as acp from "@agentclientprotocol/sdk";
import type { DriverSink } from "@adaptor/driver";
import { within, type PooledProcess } from "@adaptor/driver/kit";
import { spawnCli, type CliProcess } from "@adaptor/driver/process";
import { DriverError, ErrCode } from "@adaptor/errors";
import { messageStream } from "./message-stream.js";
import { BoundedSdkLog, outsideSdkLog, withSdkLog } from "./sdk-log.js";
import { HOST_METHODS, type HostMethod } from "../host/host-client.js";
import type { HostOffer } from "../policy/acp-policy.js";

/** What a session's current turn does with the agent's messages about that session. */
export interface SessionHandler {
  /** A `session/update` notification; false when it came too late (the handler's turn has ended). */
  onUpdate(update: acp.SessionUpdate): boolean;
  /** A `session/request_permission` request; resolves with the answer (exactly once). */
  onPermission(request: acp.RequestPermissionRequest, signal: AbortSignal): Promise<acp.RequestPermissionResponse>;
  /** A stdout line that was not JSON. */
  onText(line: string): void;
  /** A host capability request (`fs/*`, `terminal/*`); without it such requests are refused. */
  onHost?(method: HostMethod, params: unknown): Promise<unknown>;
}

/** Spawn inputs of one agent process. */
export interface AcpLaunch {
  readonly command: string;
  readonly args: readonly string[];
  readonly cwd: string;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly device: string;
  /** Human name of the agent, for messages. */
  readonly displayName: string;
  /** ms an agent whose stdout ended has to exit before it counts as alive (and is ended). */
  readonly graceMs: number;
  readonly killGraceMs?: number;
  readonly maxLineBytes?: number;
  readonly maxRawBytes?: number;
  readonly onStderr: (text: string) => void;
  /** Values read `[redacted]` in the agent's stderr text and raw output (spawnCli's `redactRaw`); default none. */
  readonly redactRaw?: readonly string[];
  /** The host's capabilities offered in `initialize`; one not offered is refused (method-not-found). Default none. */
  readonly offer?: HostOffer;
}

/** Updates that carry a turn's output (text, thinking, tool calls, plan): what must never land in another turn. */
const OUTPUT_UPDATES: ReadonlySet<string> = new Set([
  "agent_message_chunk",
  "agent_thought_chunk",
  "tool_call",
  "tool_call_update",
  "plan",
]);

/** The client capabilities `initialize` advertises for `offer`. */
function clientCapabilities(offer: HostOffer | undefined): acp.ClientCapabilities {
  const fs = offer?.fs === true;
  return { fs: { readTextFile: fs, writeTextFile: fs }, terminal: offer?.terminal === true };
}

/** True when `capabilities` advertise what `method` belongs to. */
function advertised(capabilities: acp.ClientCapabilities, method: HostMethod): boolean {
  if (method === "fs/read_text_file") return capabilities.fs?.readTextFile === true;
  if (method === "fs/write_text_file") return capabilities.fs?.writeTextFile === true;
  return capabilities.terminal === true;
}

/**
 * One running ACP agent: the child process and the SDK's client connection over its stdio.
 * `session/update` and `session/request_permission` are routed to the handler of their session;
 * a permission request for a session without a handler is answered `cancelled`.
 */
export class AcpProcess implements PooledProcess {
  readonly child: CliProcess;
  /** The environment the agent was started with (stdio MCP servers are isolated from it). */
  readonly env: Readonly<Record<string, string | undefined>>;
  /** The launch signature it was started with (a parked process serves only turns launched alike). */
  readonly signature: string;
  /**
   * Where the agent's stderr goes, and whose event buffer paces the reading of its `session/update`
   * notifications (`DriverSink.ready`): the sink of the run it serves now.
   */
  readonly stderrTo: { sink: Pick<DriverSink, "emit" | "ready"> };
  /** Unknown: a parked process continues the session wherever it stands. */
  readonly version = undefined;
  readonly connection: acp.ClientConnection;
  /** The agent's `initialize` answer. */
  initialized: acp.InitializeResponse | undefined;
  /** Sessions this process created or loaded. */
  readonly sessions = new Set<string>();
  /** The tools each of {@link sessions} was opened without (`claudeCode.options.disallowedTools` of its `_meta`), when any. */
  readonly toolsLeftOut = new Map<string, readonly string[]>();
  /**
   * What the ACP SDK logs for this connection (e.g. a reply to a request never sent): the first 20
   * lines of a turn as `notice` events (`message` "ACP SDK: ...", `data.level`) to the run served,
   * the rest only counted (`takeDropped()`), never the host's console while the process lives;
   * once it is closed, nothing is routed any more.
   */
  readonly sdkLog: BoundedSdkLog;
  /** The cumulative cost in USD each session's last turn on this process ended at (from `usage_update`). */
  readonly sessionCosts = new Map<string, number>();
  /**
   * Settles once the connection closed, the process being ended in every case: with the stream's
   * own error when that is what ended it (a line over `maxLineBytes`: `RESOURCE_EXHAUSTED`; a
   * JSON-RPC message cut off: `DRIVER`; stdout closed while the agent kept running past the grace:
   * `DEVICE_DISCONNECTED`, op `"read"`), or `undefined` when the agent exited (its exit is the
   * verdict) or the driver closed it. Never rejects.
   */
  readonly ended: Promise<DriverError | undefined>;
  /**
   * Called once (on a later tick) when the agent first writes a turn's output (text, thinking, tool
   * calls, plan) or a client request (permission, `fs/*`, `terminal/*`) for one of its sessions
   * while no turn is open there: from then on it is not {@link usable}.
   */
  onUnfenced: (() => void) | undefined;
  readonly #handlers = new Map<string, SessionHandler>();
  #closing: Promise<void> | undefined;
  #exited = false;
  readonly #capabilities: acp.ClientCapabilities;
  #unfenced = false;

  private constructor(
    child: CliProcess,
    env: Readonly<Record<string, string | undefined>>,
    signature: string,
    stderrTo: AcpProcess["stderrTo"],
    launch: Pick<AcpLaunch, "displayName" | "graceMs" | "offer">,
  ) {
    this.child = child;
    this.#capabilities = clientCapabilities(launch.offer);
    this.env = env;
    this.signature = signature;
    this.stderrTo = stderrTo;
    // Every handler runs outside the SDK's log scope: the turn it feeds calls host code (approval
    // handler, hooks, event consumers) whose console stays the host's.
    const app = acp
      .client({ name: "adaptor" })
      .onNotification("session/update", ({ params }) =>
        outsideSdkLog(() => {
          const handler = this.#handlers.get(params.sessionId);
          const taken = handler ? handler.onUpdate(params.update) : !this.sessions.has(params.sessionId);
          // Output about one of its sessions while no turn is open: the agent kept writing after its
          // turn ended. It is dropped, and the process is not reused: its next turn could not be told apart.
          if (!taken && OUTPUT_UPDATES.has(params.update.sessionUpdate)) this.#unfence();
        }),
      )
      .onRequest("session/request_permission", ({ params, signal }) =>
        outsideSdkLog(async () => {
          const handler = this.#handlers.get(params.sessionId);
          if (!handler) {
            this.#requestedAfterTurn(params.sessionId);
            return { outcome: { outcome: "cancelled" } };
          }
          return handler.onPermission(params, signal);
        }),
      );
    for (const method of HOST_METHODS)
      app.onRequest(method, ({ params }: { params: { sessionId: string } }) =>
        outsideSdkLog(() => {
          const handler = this.#handlers.get(params.sessionId);
          if (!handler) this.#requestedAfterTurn(params.sessionId);
          // A client serves only what it advertised, whatever the agent asks.
          const host = advertised(this.#capabilities, method) ? handler?.onHost : undefined;
          if (!host) throw acp.RequestError.methodNotFound(method);
          return host(method, params) as never;
        }),
      );
    this.sdkLog = new BoundedSdkLog((level, text) =>
      this.stderrTo.sink.emit({ type: "notice", kind: "runtime", message: `ACP SDK: ${text}`, data: { level } }),
    );
    this.connection = withSdkLog(this.sdkLog, () =>
      app.connect(
        messageStream(
          child,
          (line) => this.#onText(line),
          () => this.stderrTo.sink.ready?.(),
        ),
      ),
    );
    void child.exited.then(() => {
      this.#exited = true;
    });
    // A closed connection rejects pending requests; the run that awaits them reports `ended`.
    this.ended = Promise.resolve(this.connection.closed).then(async () => {
      if (this.#closing) return undefined;
      const reason: unknown = this.connection.signal.reason;
      let error = reason instanceof DriverError ? reason : undefined;
      if (!error) {
        // stdout ended: an agent on its way out exits now; one that stays is cut off from us.
        if (this.#exited || (await within(child.exited, launch.graceMs))) return undefined;
        error = new DriverError({
          op: "read",
          device: child.device,
          code: ErrCode.DeviceDisconnected,
          cause: `${launch.displayName} closed its stdout but kept running`,
        });
      }
      await this.close();
      return error;
    });
    this.ended.catch(() => undefined);
  }

  /**
   * Spawns the agent and sends `initialize`.
   * @throws DriverError from `spawnCli` (`NOT_FOUND`, ...); the SDK's error when `initialize` fails
   * (the process is then ended).
   */
  static async start(launch: AcpLaunch, signature: string, stderrTo: AcpProcess["stderrTo"]): Promise<AcpProcess> {
    const child = await spawnCli({
      command: launch.command,
      args: launch.args,
      cwd: launch.cwd,
      env: launch.env,
      device: launch.device,
      onStderr: launch.onStderr,
      ...(launch.redactRaw !== undefined ? { redactRaw: launch.redactRaw } : {}),
      ...(launch.killGraceMs !== undefined ? { killGraceMs: launch.killGraceMs } : {}),
      ...(launch.maxLineBytes !== undefined ? { maxLineBytes: launch.maxLineBytes } : {}),
      ...(launch.maxRawBytes !== undefined ? { maxRawBytes: launch.maxRawBytes } : {}),
    });
    return new AcpProcess(child, launch.env, signature, stderrTo, launch);
  }

  /** Sends `initialize` (protocol version 1; the host's fs and terminal capabilities it was launched to offer). */
  async initialize(signal: AbortSignal): Promise<acp.InitializeResponse> {
    this.initialized = await this.connection.agent.request(
      "initialize",
      { protocolVersion: acp.PROTOCOL_VERSION, clientCapabilities: this.#capabilities, clientInfo: { name: "adaptor", version: "0.1.0" } },
      { cancellationSignal: signal },
    );
    return this.initialized;
  }

  /** Routes the messages of `sessionId` to `handler` until the returned function is called. */
  attach(sessionId: string, handler: SessionHandler): () => void {
    this.#handlers.set(sessionId, handler);
    return () => {
      if (this.#handlers.get(sessionId) === handler) this.#handlers.delete(sessionId);
    };
  }

  /** OS process id of the agent. */
  get pid(): number {
    return this.child.pid;
  }

  /** Lets the host exit while the process is parked (see `CliProcess.unref`). */
  unref(): void {
    this.child.unref();
  }

  /** Holds the host again while the process serves a turn. */
  ref(): void {
    this.child.ref();
  }

  /**
   * True while the child runs, the connection is open and the agent never wrote a turn's output
   * (text, thinking, tool calls, plan) or a client request for one of its sessions while no turn
   * was open there.
   */
  get usable(): boolean {
    return this.#closing === undefined && !this.connection.signal.aborted && !this.#exited && !this.#unfenced;
  }

  /**
   * A client request (`session/request_permission`, `fs/*`, `terminal/*`) about one of its sessions
   * while no turn is open there: the agent acts after its turn ended (a command it asks to run may
   * be running already), so the process is not reused. The request is answered as before
   * (`cancelled`, method-not-found).
   */
  #requestedAfterTurn(sessionId: string): void {
    if (this.sessions.has(sessionId)) this.#unfence();
  }

  /** From now on the process is not {@link usable}; {@link onUnfenced} is called once, on a later tick. */
  #unfence(): void {
    if (this.#unfenced) return;
    this.#unfenced = true;
    const unfenced = this.onUnfenced;
    if (unfenced) setImmediate(unfenced);
  }

  #onText(line: string): void {
    outsideSdkLog(() => {
      for (const handler of this.#handlers.values()) handler.onText(line);
    });
  }

  /** Closes the connection and ends the process group (SIGTERM, then SIGKILL). Idempotent. */
  close(): Promise<void> {
    this.#closing ??= (async () => {
      this.connection.close();
      this.child.closeStdin();
      await this.child.close();
      this.#exited = true;
      this.sdkLog.close();
    })();
    return this.#closing;
  }
}
