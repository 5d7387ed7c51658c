import { JsonRpcConnection, type JsonRpcHandlers } from "@adaptor/driver/kit";
import type { CliProcess } from "@adaptor/driver/process";
import { CodexRpcError } from "./codex-rpc-error.js";

/**
 * The JSON-RPC connection to one `codex app-server` process: no `"jsonrpc"` member (codex omits it
 * and accepts messages without it; docs/protocols.md), error answers as {@link CodexRpcError}.
 */
export function codexRpc(proc: CliProcess, handlers: JsonRpcHandlers, replyTimeoutMs: number | undefined): JsonRpcConnection {
  return new JsonRpcConnection(proc, handlers, {
    jsonrpcMember: false,
    ...(replyTimeoutMs !== undefined ? { replyTimeoutMs } : {}),
    errorFor: (method, error) => new CodexRpcError(method, error),
  });
}
