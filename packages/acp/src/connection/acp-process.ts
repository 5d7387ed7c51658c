import * as acp from "@agentclientprotocol/sdk";
import type { DriverEvent } from "@adaptor/driver";
import type { PooledProcess } from "@adaptor/driver/kit";
import { spawnCli, type CliProcess } from "@adaptor/driver/process";
import { messageStream } from "./message-stream.js";
import { HOST_METHODS, type HostMethod } from "../host/host-client.js";

/** What a session's current turn does with the agent's messages about that session. */
export interface SessionHandler {
  /** A `session/update` notification. */
  onUpdate(update: acp.SessionUpdate): void;
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
  readonly killGraceMs?: number;
  readonly maxLineBytes?: number;
  readonly maxRawBytes?: number;
  readonly onStderr: (text: string) => void;
  /** Offer the host's `fs` and `terminal` capabilities in `initialize`. Default false. */
  readonly hostCapabilities?: boolean;
}

/** The client capabilities offered without host capabilities: no file system, no terminal (the agent uses its own tools). */
const CLIENT_CAPABILITIES: acp.ClientCapabilities = { fs: { readTextFile: false, writeTextFile: false }, terminal: false };
/** The client capabilities offered with host capabilities: the agent reads, writes and runs commands through the host. */
const HOST_CAPABILITIES: acp.ClientCapabilities = { fs: { readTextFile: true, writeTextFile: true }, terminal: true };

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
  /** Where the agent's stderr goes: the sink of the run it serves now. */
  readonly stderrTo: { sink: { emit(event: DriverEvent): void } };
  /** Unknown: a parked process continues the session wherever it stands. */
  readonly version = undefined;
  readonly connection: acp.ClientConnection;
  /** The agent's `initialize` answer. */
  initialized: acp.InitializeResponse | undefined;
  /** Sessions this process created or loaded. */
  readonly sessions = new Set<string>();
  readonly #handlers = new Map<string, SessionHandler>();
  #closing: Promise<void> | undefined;
  #exited = false;
  readonly #capabilities: acp.ClientCapabilities;

  private constructor(
    child: CliProcess,
    env: Readonly<Record<string, string | undefined>>,
    signature: string,
    stderrTo: AcpProcess["stderrTo"],
    hostCapabilities: boolean,
  ) {
    this.child = child;
    this.#capabilities = hostCapabilities ? HOST_CAPABILITIES : CLIENT_CAPABILITIES;
    this.env = env;
    this.signature = signature;
    this.stderrTo = stderrTo;
    const app = acp
      .client({ name: "adaptor" })
      .onNotification("session/update", ({ params }) => {
        this.#handlers.get(params.sessionId)?.onUpdate(params.update);
      })
      .onRequest("session/request_permission", ({ params, signal }) => {
        const handler = this.#handlers.get(params.sessionId);
        if (!handler) return { outcome: { outcome: "cancelled" } };
        return handler.onPermission(params, signal);
      });
    for (const method of HOST_METHODS)
      app.onRequest(method, ({ params }: { params: { sessionId: string } }) => {
        const host = this.#handlers.get(params.sessionId)?.onHost;
        if (!host) throw acp.RequestError.methodNotFound(method);
        return host(method, params) as never;
      });
    this.connection = app.connect(messageStream(child, (line) => this.#onText(line)));
    // A closed connection rejects pending requests; the run that awaits them reports it.
    this.connection.closed.catch(() => undefined);
    void child.exited.then(() => {
      this.#exited = true;
    });
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
      ...(launch.killGraceMs !== undefined ? { killGraceMs: launch.killGraceMs } : {}),
      ...(launch.maxLineBytes !== undefined ? { maxLineBytes: launch.maxLineBytes } : {}),
      ...(launch.maxRawBytes !== undefined ? { maxRawBytes: launch.maxRawBytes } : {}),
    });
    return new AcpProcess(child, launch.env, signature, stderrTo, launch.hostCapabilities === true);
  }

  /** Sends `initialize` (protocol version 1; the host's fs and terminal capabilities when launched with them). */
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

  /** True while the child runs and the connection is open. */
  get usable(): boolean {
    return this.#closing === undefined && !this.connection.signal.aborted && !this.#exited;
  }

  #onText(line: string): void {
    for (const handler of this.#handlers.values()) handler.onText(line);
  }

  /** Closes the connection and ends the process group (SIGTERM, then SIGKILL). Idempotent. */
  close(): Promise<void> {
    this.#closing ??= (async () => {
      this.connection.close();
      this.child.closeStdin();
      await this.child.close();
      this.#exited = true;
    })();
    return this.#closing;
  }
}
