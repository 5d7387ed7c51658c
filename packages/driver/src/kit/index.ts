export {
  JsonRpcConnection,
  DEFAULT_REPLY_TIMEOUT_MS,
  JSON_RPC_METHOD_NOT_FOUND,
  type JsonRpcConnectionOptions,
  type JsonRpcHandlers,
  type JsonRpcServerRequest,
  type JsonRpcTransport,
} from "./json-rpc/json-rpc-connection.js";
export { JsonRpcError, type JsonRpcErrorObject } from "./json-rpc/json-rpc-error.js";
