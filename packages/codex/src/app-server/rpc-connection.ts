import { DriverError, ErrCode } from "@adaptor/errors";
import type { CliProcess } from "@adaptor/driver/process";
import { CodexRpcError } from "./codex-rpc-error.js";

/** A request codex sends to the client (`id` + `method`); it must always be answered. */
export interface ServerRequestMessage {
  readonly id: string | number;
  readonly method: string;
  readonly params: unknown;
}

/** Callbacks of a {@link RpcConnection}. */
export interface RpcHandlers {
  /** A notification (`method` without `id`). */
  onNotification(method: string, params: unknown): void;
  /** A server request; the handler must answer it through {@link RpcConnection.respond} / `respondError`. */
  onServerRequest(request: ServerRequestMessage): void;
}

type Pending = { method: string; resolve: (value: unknown) => void; reject: (err: unknown) => void; timer: NodeJS.Timeout | undefined };

/** Default time in ms codex has to answer one request before it fails with a `TIMEOUT` DriverError. */
export const DEFAULT_REPLY_TIMEOUT_MS = 120_000;

/** JSON-RPC error code for a server request the driver does not implement. */
export const METHOD_NOT_FOUND = -32601;

/**
 * The client side of `codex app-server`'s JSON-RPC over stdio: one JSON object per line, and no
 * `"jsonrpc"` member (codex omits it and accepts messages without it; docs/protocols.md).
 * Feeds on the lines the driver reads ({@link accept}); writes through `CliProcess.writeJson`.
 */
export class RpcConnection {
  readonly #proc: CliProcess;
  readonly #handlers: RpcHandlers;
  readonly #pending = new Map<number, Pending>();
  readonly #replyTimeoutMs: number;
  #nextId = 1;
  #closed: unknown;

  /** `replyTimeoutMs`: how long one request may wait for its reply (default {@link DEFAULT_REPLY_TIMEOUT_MS}). */
  constructor(proc: CliProcess, handlers: RpcHandlers, replyTimeoutMs: number = DEFAULT_REPLY_TIMEOUT_MS) {
    this.#proc = proc;
    this.#handlers = handlers;
    this.#replyTimeoutMs = replyTimeoutMs;
  }

  /**
   * Sends a request and resolves with its `result`. No request waits forever: without a reply
   * within the reply timeout it rejects.
   * @throws (rejects) CodexRpcError for an error answer; DriverError `DEVICE_DISCONNECTED` when codex
   * exited (or its stdout ended) before answering; DriverError `BROKEN_PIPE` when the write failed;
   * DriverError `TIMEOUT` when no reply came within the reply timeout; the error given to
   * {@link failPending} (codex could not read a request).
   */
  request<R>(method: string, params: unknown): Promise<R> {
    if (this.#closed !== undefined) return Promise.reject(this.#disconnected(method));
    const id = this.#nextId++;
    return new Promise<R>((resolve, reject) => {
      const timer = setTimeout(() => {
        if (!this.#pending.delete(id)) return;
        reject(new DriverError({ op: method, device: this.#proc.device, code: ErrCode.Timeout, cause: `no reply within ${this.#replyTimeoutMs} ms` }));
      }, this.#replyTimeoutMs);
      timer.unref();
      this.#pending.set(id, { method, resolve: resolve as (value: unknown) => void, reject, timer });
      this.#proc.writeJson({ id, method, params }).catch((err: unknown) => {
        clearTimeout(timer);
        if (this.#pending.delete(id)) reject(err);
      });
    });
  }

  /** Number of requests still waiting for a reply. */
  get pendingCount(): number {
    return this.#pending.size;
  }

  /**
   * Rejects every request waiting for a reply with `error(method)`: codex reported that it could
   * not read a message, and it does not say which one, so none of them will be answered.
   */
  failPending(error: (method: string) => unknown): void {
    for (const pending of this.#pending.values()) {
      clearTimeout(pending.timer);
      pending.reject(error(pending.method));
    }
    this.#pending.clear();
  }

  /** Sends a notification; a failed write is ignored (the process exit decides the verdict). */
  notify(method: string, params?: unknown): void {
    this.#proc.writeJson(params === undefined ? { method } : { method, params }).catch(() => undefined);
  }

  /** Answers a server request with a result; a failed write is ignored. */
  respond(id: string | number, result: unknown): Promise<void> {
    return this.#proc.writeJson({ id, result }).catch(() => undefined);
  }

  /** Answers a server request with a JSON-RPC error; a failed write is ignored. */
  respondError(id: string | number, code: number, message: string): Promise<void> {
    return this.#proc.writeJson({ id, error: { code, message } }).catch(() => undefined);
  }

  /**
   * Dispatches one parsed stdout value. Returns false when it is not a JSON-RPC message (the caller
   * reports it as stray output).
   */
  accept(value: unknown): boolean {
    if (typeof value !== "object" || value === null || Array.isArray(value)) return false;
    const message = value as Record<string, unknown>;
    const method = message.method;
    const id = message.id;
    if (typeof method === "string") {
      if (typeof id === "number" || typeof id === "string") {
        this.#handlers.onServerRequest({ id, method, params: message.params });
      } else {
        this.#handlers.onNotification(method, message.params);
      }
      return true;
    }
    if (typeof id === "number" && ("result" in message || "error" in message)) {
      const pending = this.#pending.get(id);
      if (!pending) return true;
      this.#pending.delete(id);
      clearTimeout(pending.timer);
      const error = message.error as { code?: unknown; message?: unknown; data?: unknown } | undefined;
      if (error) {
        pending.reject(
          new CodexRpcError(pending.method, {
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
    return false;
  }

  /** Marks the connection gone (stdout ended): every pending and later request rejects. Idempotent. */
  close(cause: unknown = "codex app-server exited"): void {
    if (this.#closed !== undefined) return;
    this.#closed = cause;
    for (const pending of this.#pending.values()) {
      clearTimeout(pending.timer);
      pending.reject(this.#disconnected(pending.method));
    }
    this.#pending.clear();
  }

  #disconnected(method: string): DriverError {
    return new DriverError({ op: method, device: this.#proc.device, code: ErrCode.DeviceDisconnected, cause: this.#closed });
  }
}
