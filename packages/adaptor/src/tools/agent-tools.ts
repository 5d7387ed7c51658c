import { startHostToolServer, type HostToolServer } from "@adaptor/mcp";
import type { Tool } from "@adaptor/tool";
import type { EventQueue } from "../events/event-queue.js";

/**
 * Name of the SDK's host-tool MCP server in a run's `mcpServers`. Claude shows a host tool `x`
 * to the model as `mcp__adaptor__x`.
 */
export const HOST_TOOL_SERVER_NAME = "adaptor";

/** What the host-tool preparation step needs of the run and its agent. */
export interface RunToolBinding {
  readonly runId: string;
  readonly queue: EventQueue;
  readonly tools: readonly Tool[];
  /** The agent's server, started on first use. */
  server(): Promise<HostToolServer>;
}

/**
 * The host tools of one Agent and the MCP server that serves them: the server starts
 * lazily on the first run that has tools and stops in {@link close}. Each run gets its own grant
 * (bearer token) on it, revoked when the run ends.
 */
export class AgentTools {
  readonly #tools: readonly Tool[];
  #server: Promise<HostToolServer> | undefined;
  #closed = false;

  constructor(tools: readonly Tool[] | undefined) {
    this.#tools = Object.freeze([...(tools ?? [])]);
  }

  /** The agent's tools as run `runId` sees them (its events go to `queue`); `undefined` without tools. */
  binding(runId: string, queue: EventQueue): RunToolBinding | undefined {
    if (this.#tools.length === 0) return undefined;
    return { runId, queue, tools: this.#tools, server: () => this.#start() };
  }

  #start(): Promise<HostToolServer> {
    if (this.#closed) return Promise.reject(new Error("agent tools are closed"));
    this.#server ??= startHostToolServer();
    return this.#server;
  }

  /** Stops the server if it was started. Idempotent; call after the agent's runs have ended. */
  async close(): Promise<void> {
    this.#closed = true;
    const server = this.#server;
    this.#server = undefined;
    if (server) await (await server.catch(() => undefined))?.close();
  }
}
