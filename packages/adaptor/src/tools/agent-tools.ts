import {
  startHostToolServer,
  type HostToolCall,
  type HostToolGrant,
  type HostToolReply,
  type HostToolServer,
  type HostToolSession,
} from "@adaptor/mcp";
import type { Tool } from "@adaptor/tool";
import type { EventQueue } from "../events/event-queue.js";
import { HostCallIds } from "./host-call-ids.js";

/**
 * Name of the SDK's host-tool MCP server in a run's `mcpServers`. Claude shows a host tool `x`
 * to the model as `mcp__adaptor__x`.
 */
export const HOST_TOOL_SERVER_NAME = "adaptor";

/** A thread's grant unused for this long (no turn attached) is revoked on the next run, ms. */
export const THREAD_GRANT_IDLE_MS = 30 * 60_000;
/** At most this many thread grants are kept; beyond it the least recently used idle ones go. */
export const MAX_THREAD_GRANTS = 1024;

/** What a call gets while no turn of the thread is being served. */
const NO_TURN: HostToolReply = { text: "tool_error: no turn of this thread is running", isError: true };

/** A run's access to the agent's host-tool server: where the CLI connects and with what header. */
export interface RunGrant {
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
  /** Ends this run's access: its in-flight calls are aborted. Idempotent. */
  release(): void;
}

/** What the host-tool preparation step needs of the run and its agent. */
export interface RunToolBinding {
  readonly runId: string;
  /** The thread's key when the run is a thread turn. */
  readonly threadKey: string | undefined;
  readonly queue: EventQueue;
  readonly tools: readonly Tool[];
  /** The run's `tool-call` events of host tools, for the calls whose CLI sends no call id. */
  readonly callIds: HostCallIds;
  /**
   * Runs `work`, one call of the agent's host tool (its hooks, approval and handler), counted as
   * host work the CLI waits on until it settles or `signal` (the call's: aborted when the CLI gave
   * up on the call or the run ended) aborts, whichever comes first: {@link busy} is true meanwhile.
   * A handler that ignores its signal runs on uncounted.
   */
  serve<T>(work: () => Promise<T>, signal: AbortSignal): Promise<T>;
  /** True while a host-tool call of this run is being served (the CLI waits on it: not a stall). */
  busy(): boolean;
  /**
   * Opens this run's access to the agent's server (started on first use) for `session`; `signal`
   * ends it. A plain run gets a grant (bearer token) of its own, revoked when it ends. A thread turn
   * gets its thread's grant, the same URL and token for every turn, so the CLI process parked after
   * the previous turn is launched alike and serves the next one; between turns it answers every call
   * with an error (no turn running).
   */
  open(session: HostToolSession, signal: AbortSignal): Promise<RunGrant>;
}

/** The grant of one thread: one token for all its turns, dispatching to the turn being served. */
interface ThreadGrant {
  readonly grant: HostToolGrant;
  /** The turn being served: its session and what aborts its calls. */
  turn: { readonly session: HostToolSession; readonly controller: AbortController } | undefined;
  lastUsed: number;
}

/**
 * The host tools of one Agent and the MCP server that serves them: the server starts
 * lazily on the first run that has tools and stops in {@link close}. A plain run gets its own
 * grant (bearer token), revoked when the run ends; the turns of a thread share the thread's grant
 * (see {@link RunToolBinding.open}), revoked after {@link THREAD_GRANT_IDLE_MS} without a turn or on
 * {@link close}. A later turn that finds its thread's grant gone gets a new one (and so a new CLI
 * process).
 */
export class AgentTools {
  readonly #tools: readonly Tool[];
  #server: Promise<HostToolServer> | undefined;
  readonly #threads = new Map<string, ThreadGrant>();
  #closed = false;

  constructor(tools: readonly Tool[] | undefined) {
    this.#tools = Object.freeze([...(tools ?? [])]);
  }

  /**
   * The agent's tools as run `runId` sees them (its events go to `queue`); `undefined` without
   * tools. `threadKey` is the thread of a thread turn.
   */
  binding(runId: string, queue: EventQueue, threadKey?: string): RunToolBinding | undefined {
    if (this.#tools.length === 0) return undefined;
    let serving = 0;
    return {
      runId,
      threadKey,
      queue,
      tools: this.#tools,
      callIds: new HostCallIds(
        HOST_TOOL_SERVER_NAME,
        this.#tools.map((tool) => tool.name),
      ),
      serve: async (work, signal) => {
        let counted = !signal.aborted;
        const done = (): void => {
          if (counted) serving -= 1;
          counted = false;
        };
        if (counted) {
          serving += 1;
          signal.addEventListener("abort", done, { once: true });
        }
        try {
          return await work();
        } finally {
          signal.removeEventListener("abort", done);
          done();
        }
      },
      busy: () => serving > 0,
      open: async (session, signal) => {
        const server = await this.#start();
        if (threadKey !== undefined) {
          const shared = this.#attach(server, threadKey, session, signal);
          if (shared) return shared;
        }
        const grant = server.open(session, signal);
        return { url: grant.url, headers: grant.headers, release: () => grant.revoke() };
      },
    };
  }

  /**
   * Attaches a turn to its thread's grant (made if missing); `undefined` when another turn of the
   * thread is attached (that one keeps it: this turn gets a grant of its own).
   */
  #attach(server: HostToolServer, key: string, session: HostToolSession, signal: AbortSignal): RunGrant | undefined {
    this.#prune();
    let entry = this.#threads.get(key);
    if (entry?.turn) return undefined;
    if (!entry) {
      const created: ThreadGrant = {
        lastUsed: Date.now(),
        turn: undefined,
        grant: server.open({
          get tools() {
            return created.turn?.session.tools ?? session.tools;
          },
          call(call: HostToolCall): Promise<HostToolReply> {
            const turn = created.turn;
            if (!turn) return Promise.resolve(NO_TURN);
            return turn.session.call({ ...call, signal: AbortSignal.any([call.signal, turn.controller.signal]) });
          },
        }),
      };
      entry = created;
      this.#threads.set(key, entry);
    }
    const attached = entry;
    const turn = { session, controller: new AbortController() };
    attached.turn = turn;
    attached.lastUsed = Date.now();
    const release = (): void => {
      signal.removeEventListener("abort", release);
      turn.controller.abort(new Error("host-tool grant released"));
      if (attached.turn === turn) attached.turn = undefined;
      attached.lastUsed = Date.now();
    };
    if (signal.aborted) release();
    else signal.addEventListener("abort", release, { once: true });
    return { url: attached.grant.url, headers: attached.grant.headers, release };
  }

  /** Revokes thread grants idle too long, and the least recently used idle ones over the cap. */
  #prune(): void {
    const now = Date.now();
    const idle = [...this.#threads].filter(([, entry]) => !entry.turn).sort(([, a], [, b]) => a.lastUsed - b.lastUsed);
    let over = this.#threads.size - (MAX_THREAD_GRANTS - 1);
    for (const [key, entry] of idle) {
      if (now - entry.lastUsed < THREAD_GRANT_IDLE_MS && over <= 0) break;
      entry.grant.revoke();
      this.#threads.delete(key);
      over--;
    }
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
    for (const entry of this.#threads.values()) entry.grant.revoke();
    this.#threads.clear();
    if (server) await (await server.catch(() => undefined))?.close();
  }
}
