import { DriverError, ErrCode } from "@adaptor/errors";
import { JsonRpcError, type JsonRpcErrorObject } from "./json-rpc-error.js";

/** A request the peer sends to us (`id` + `method`); the handler must answer it exactly once. */
export interface JsonRpcServerRequest {
  /** The peer's request id; echo it in the answer. */
  readonly id: string | number;
  readonly method: string;
  readonly params: unknown;
}

/** Where a {@link JsonRpcConnection} delivers what the peer sends on its own. */
export interface JsonRpcHandlers {
  /** A notification (`method` without `id`). Called synchronously, in line order. */
  onNotification(method: string, params: unknown): void;
  /**
   * A request of the peer (`method` with `id`). The handler must answer it through
   * {@link JsonRpcConnection.respond} or {@link JsonRpcConnection.respondError}, also when it
   * does not implement the method ({@link JSON_RPC_METHOD_NOT_FOUND}): a peer may wait forever.
   */
  onServerRequest(request: JsonRpcServerRequest): void;
}

/** Where a {@link JsonRpcConnection} writes: one JSON value per line. `CliProcess` is one. */
export interface JsonRpcTransport {
  /** Name used in errors, e.g. `"codex"`. */
  readonly device: string;
  /** Writes `JSON.stringify(value) + "\n"`; rejects when the peer is gone (`BROKEN_PIPE`). */
  writeJson(value: unknown): Promise<void>;
}

/** Options of a {@link JsonRpcConnection}. */
export interface JsonRpcConnectionOptions {
  /**
   * How long, in ms, one request may wait for its response before it rejects with a `TIMEOUT`
   * DriverError. Default {@link DEFAULT_REPLY_TIMEOUT_MS} (120,000). The timer never keeps Node alive.
   */
  readonly replyTimeoutMs?: number;
  /**
   * Put `"jsonrpc": "2.0"` on every message we send. Default true (JSON-RPC 2.0, e.g. ACP agents);
   * false for peers that omit the member and expect it omitted (`codex app-server`). Incoming
   * messages are accepted with or without it either way.
   */
  readonly jsonrpcMember?: boolean;
  /**
   * Makes the error a request rejects with when the peer answers with an error member. Default
   * `new JsonRpcError(device, method, error)`; a driver may return a subclass of its own.
   */
  readonly errorFor?: (method: string, error: JsonRpcErrorObject) => JsonRpcError;
}

type Pending = { method: string; resolve: (value: unknown) => void; reject: (err: unknown) => void; timer: NodeJS.Timeout };

/** Default time in ms the peer has to answer one request before it fails with a `TIMEOUT` DriverError. */
export const DEFAULT_REPLY_TIMEOUT_MS = 120_000;

/** JSON-RPC error code for a request the receiver does not implement. */
export const JSON_RPC_METHOD_NOT_FOUND = -32601;

/** JSON-RPC error code for a request the receiver refuses as invalid (codex also gives it for a refused argument). */
export const JSON_RPC_INVALID_REQUEST = -32600;

/**
 * The client side of JSON-RPC 2.0 over JSON Lines (one message per line, e.g. a CLI's stdio):
 * requests with numeric ids matched to their responses, notifications both ways, and requests from
 * the peer handed to {@link JsonRpcHandlers.onServerRequest}. The `"jsonrpc"` member is optional
 * on what arrives (some peers omit it) and configurable on what leaves
 * ({@link JsonRpcConnectionOptions.jsonrpcMember}).
 *
 * It does not read by itself: feed it every parsed line with {@link accept} (a driver usually
 * reads stdout in one loop and also watches other things there). Writes go through the transport
 * given; a failed write rejects only the request it belonged to.
 *
 * @example
 * const rpc = new JsonRpcConnection(proc, { onNotification: (m, p) => turn.accept(m, p), onServerRequest: (r) => answer(r) });
 * void (async () => { for await (const line of proc.lines()) if (line.kind === "json") rpc.accept(line.value); rpc.close(); })();
 * const reply = await rpc.request<{ protocolVersion: number }>("initialize", { protocolVersion: 1 });
 */
export class JsonRpcConnection {
  readonly #transport: JsonRpcTransport;
  readonly #handlers: JsonRpcHandlers;
  readonly #pending = new Map<number, Pending>();
  readonly #replyTimeoutMs: number;
  readonly #jsonrpc: boolean;
  readonly #errorFor: (method: string, error: JsonRpcErrorObject) => JsonRpcError;
  #nextId = 1;
  #closed: unknown;

  constructor(transport: JsonRpcTransport, handlers: JsonRpcHandlers, options: JsonRpcConnectionOptions = {}) {
    this.#transport = transport;
    this.#handlers = handlers;
    this.#replyTimeoutMs = options.replyTimeoutMs ?? DEFAULT_REPLY_TIMEOUT_MS;
    this.#jsonrpc = options.jsonrpcMember ?? true;
    this.#errorFor = options.errorFor ?? ((method, error) => new JsonRpcError(transport.device, method, error));
  }

  /**
   * Sends a request and resolves with its `result`. No request waits forever: without a response
   * within the reply timeout it rejects.
   * @throws (rejects) {@link JsonRpcError} (or the `errorFor` subclass) for an error answer;
   * DriverError `DEVICE_DISCONNECTED` when the connection was closed (the peer exited) before the
   * answer; the transport's error (e.g. `BROKEN_PIPE`) when the write failed; DriverError `TIMEOUT`
   * when no response came in time; the error given to {@link failPending}.
   */
  request<R>(method: string, params?: unknown): Promise<R> {
    if (this.#closed !== undefined) return Promise.reject(this.#disconnected(method));
    const id = this.#nextId++;
    return new Promise<R>((resolve, reject) => {
      const timer = setTimeout(() => {
        if (!this.#pending.delete(id)) return;
        reject(
          new DriverError({
            op: method,
            device: this.#transport.device,
            code: ErrCode.Timeout,
            cause: `no reply within ${this.#replyTimeoutMs} ms`,
          }),
        );
      }, this.#replyTimeoutMs);
      timer.unref();
      this.#pending.set(id, { method, resolve: resolve as (value: unknown) => void, reject, timer });
      this.#transport.writeJson(this.#message({ id, method, ...(params === undefined ? {} : { params }) })).catch((err: unknown) => {
        clearTimeout(timer);
        if (this.#pending.delete(id)) reject(err);
      });
    });
  }

  /** Number of requests still waiting for a response. */
  get pendingCount(): number {
    return this.#pending.size;
  }

  /**
   * Rejects every request waiting for a response with `error(method)`, e.g. when the peer reported
   * (on stderr) that it could not read a message without saying which: none will be answered.
   */
  failPending(error: (method: string) => unknown): void {
    for (const pending of this.#pending.values()) {
      clearTimeout(pending.timer);
      pending.reject(error(pending.method));
    }
    this.#pending.clear();
  }

  /** Sends a notification; a failed write is ignored (the peer's exit decides the verdict). */
  notify(method: string, params?: unknown): void {
    this.#transport.writeJson(this.#message(params === undefined ? { method } : { method, params })).catch(() => undefined);
  }

  /** Answers a request of the peer with a result; a failed write is ignored. */
  respond(id: string | number, result: unknown): Promise<void> {
    return this.#transport.writeJson(this.#message({ id, result })).catch(() => undefined);
  }

  /** Answers a request of the peer with an error; a failed write is ignored. */
  respondError(id: string | number, code: number, message: string, data?: unknown): Promise<void> {
    return this.#transport
      .writeJson(this.#message({ id, error: { code, message, ...(data === undefined ? {} : { data }) } }))
      .catch(() => undefined);
  }

  /**
   * Dispatches one parsed line: a notification or a request of the peer goes to the handlers, a
   * response settles its request (a response to no waiting request is ignored). Returns false when
   * `value` is not a JSON-RPC message (the caller reports it as stray output).
   */
  accept(value: unknown): boolean {
    if (typeof value !== "object" || value === null || Array.isArray(value)) return false;
    const message = value as { method?: unknown; id?: unknown; params?: unknown; result?: unknown; error?: unknown };
    const method = message.method;
    const id = message.id;
    if (typeof method === "string") {
      if (typeof id === "number" || typeof id === "string") this.#handlers.onServerRequest({ id, method, params: message.params });
      else this.#handlers.onNotification(method, message.params);
      return true;
    }
    if (typeof id !== "number" || !("result" in message || "error" in message)) return false;
    const pending = this.#pending.get(id);
    if (!pending) return true;
    this.#pending.delete(id);
    clearTimeout(pending.timer);
    const error = message.error as { code?: unknown; message?: unknown; data?: unknown } | undefined | null;
    if (error) {
      pending.reject(
        this.#errorFor(pending.method, {
          code: typeof error.code === "number" ? error.code : 0,
          message: typeof error.message === "string" ? error.message : JSON.stringify(error),
          ...(error.data !== undefined ? { data: error.data } : {}),
        }),
      );
    } else {
      pending.resolve(message.result);
    }
    return true;
  }

  /**
   * Marks the connection gone (the peer's output ended): every waiting and later request rejects
   * with a `DEVICE_DISCONNECTED` DriverError whose cause is `cause` (text: an `Error` with that
   * message). Idempotent.
   */
  close(cause: unknown = `${this.#transport.device} exited`): void {
    if (this.#closed !== undefined) return;
    this.#closed = cause;
    for (const pending of this.#pending.values()) {
      clearTimeout(pending.timer);
      pending.reject(this.#disconnected(pending.method));
    }
    this.#pending.clear();
  }

  #message(body: Record<string, unknown>): Record<string, unknown> {
    return this.#jsonrpc ? { jsonrpc: "2.0", ...body } : body;
  }

  #disconnected(method: string): DriverError {
    return new DriverError({ op: method, device: this.#transport.device, code: ErrCode.DeviceDisconnected, cause: this.#closed });
  }
}
