import { createHash, randomBytes } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { HostToolGrant, HostToolReply, HostToolSession } from "./host-tool-session.js";

/** Path of the MCP endpoint. */
export const HOST_TOOL_PATH = "/mcp";

/** Text the model gets when a session's `call` throws. */
const FAILED_TEXT = "tool_error: the tool failed; the details are not shared";

/** Options of {@link startHostToolServer}. */
export interface HostToolServerOptions {
  /** Name the server reports in `initialize`. Default `"adaptor-host-tools"`. */
  readonly name?: string;
  /** Called with anything a session's `call` or the MCP transport threw; never sent to a client. */
  readonly onError?: (error: unknown) => void;
}

/**
 * An MCP server for host-defined tools: Streamable HTTP on 127.0.0.1 with a random
 * port, built with the official `@modelcontextprotocol/sdk`. Every request must carry the bearer
 * token of a live {@link HostToolGrant} (else 401), a `Host` of `127.0.0.1:<port>` or
 * `localhost:<port>` and no foreign `Origin` (else 403). Stateless: each request gets a fresh
 * `McpServer` + transport, answered as JSON.
 */
export interface HostToolServer extends AsyncDisposable {
  /** The MCP endpoint, e.g. `http://127.0.0.1:41234/mcp`. */
  readonly url: string;
  /** Grants access to `session` under a new random token. @throws Error after {@link close}. */
  open(session: HostToolSession, signal?: AbortSignal): HostToolGrant;
  /** Revokes every grant, aborts in-flight calls, closes every connection and the listener. Idempotent. */
  close(): Promise<void>;
}

interface Live {
  readonly session: HostToolSession;
  readonly controller: AbortController;
}

/**
 * Starts a {@link HostToolServer} on 127.0.0.1 with an ephemeral port.
 * @throws the listen error (e.g. `EADDRINUSE`) when the socket cannot be bound.
 */
export async function startHostToolServer(options: HostToolServerOptions = {}): Promise<HostToolServer> {
  // Loaded here, not with the package: a host that never serves tools does not pay for the MCP
  // SDK (its protocol schemas are built when the module loads) or the HTTP server.
  const [{ createServer }, { McpServer }, { StreamableHTTPServerTransport }, { CallToolRequestSchema, ListToolsRequestSchema }] =
    await Promise.all([
      import("node:http"),
      import("@modelcontextprotocol/sdk/server/mcp.js"),
      import("@modelcontextprotocol/sdk/server/streamableHttp.js"),
      import("@modelcontextprotocol/sdk/types.js"),
    ]);
  const grants = new Map<string, Live>();
  const serverName = options.name ?? "adaptor-host-tools";
  const report = (error: unknown): void => {
    try {
      options.onError?.(error);
    } catch {
      // a failing reporter must not break the server
    }
  };
  let port = 0;
  let closing: Promise<void> | undefined;

  const http = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      report(error);
      if (!res.headersSent) reply(res, 500, "internal error");
      else res.destroy();
    });
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const allowedHosts = [`127.0.0.1:${port}`, `localhost:${port}`];
    if (!allowedHosts.includes(req.headers.host ?? "")) return reply(res, 403, "forbidden host");
    const origin = req.headers.origin;
    if (origin !== undefined && !allowedHosts.some((host) => origin === `http://${host}`)) return reply(res, 403, "forbidden origin");
    const path = new URL(req.url ?? "/", "http://127.0.0.1").pathname;
    if (path !== HOST_TOOL_PATH) return reply(res, 404, "not found");
    const live = grants.get(digest(bearer(req.headers.authorization)));
    if (!live || closing) {
      res.setHeader("www-authenticate", 'Bearer realm="adaptor-host-tools"');
      return reply(res, 401, "unauthorized");
    }
    const mcp = new McpServer({ name: serverName, version: "1.0.0" }, { capabilities: { tools: {} } });
    mcp.server.setRequestHandler(ListToolsRequestSchema, () => ({
      tools: live.session.tools.map((tool) => ({
        name: tool.name,
        description: tool.description,
        inputSchema: tool.inputSchema as { type: "object" },
        ...(tool.outputSchema ? { outputSchema: tool.outputSchema as { type: "object" } } : {}),
        ...(tool.annotations ? { annotations: { ...tool.annotations } } : {}),
      })),
    }));
    mcp.server.setRequestHandler(CallToolRequestSchema, async (request, extra): Promise<CallToolResult> => {
      const { name, arguments: args, _meta } = request.params;
      if (!live.session.tools.some((tool) => tool.name === name)) {
        return { content: [{ type: "text", text: `unknown_tool: no tool named ${JSON.stringify(name)}` }], isError: true };
      }
      const toolCallId = callIdOf(_meta);
      let answer: HostToolReply;
      try {
        answer = await live.session.call({
          name,
          arguments: args,
          toolCallId,
          signal: AbortSignal.any([extra.signal, live.controller.signal]),
        });
      } catch (error) {
        report(error);
        answer = { text: FAILED_TEXT, isError: true };
      }
      return {
        content: [{ type: "text", text: answer.text }],
        isError: answer.isError,
        ...(answer.structuredContent && !answer.isError ? { structuredContent: { ...answer.structuredContent } } : {}),
      };
    });
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    transport.onerror = report;
    res.on("close", () => {
      void transport.close().catch(report);
      void mcp.close().catch(report);
    });
    await mcp.connect(transport);
    await transport.handleRequest(req, res);
  }

  await new Promise<void>((resolve, reject) => {
    http.once("error", reject);
    http.listen(0, "127.0.0.1", () => {
      http.off("error", reject);
      resolve();
    });
  });
  port = (http.address() as AddressInfo).port;
  const url = `http://127.0.0.1:${port}${HOST_TOOL_PATH}`;

  const close = (): Promise<void> => {
    closing ??= (async () => {
      for (const live of grants.values()) live.controller.abort(new Error("host-tool server closed"));
      grants.clear();
      await new Promise<void>((resolve) => {
        http.close(() => resolve());
        http.closeAllConnections();
      });
    })();
    return closing;
  };

  return {
    url,
    open(session: HostToolSession, signal?: AbortSignal): HostToolGrant {
      if (closing) throw new Error("host-tool server is closed");
      const token = randomBytes(32).toString("base64url");
      const key = digest(token);
      const controller = new AbortController();
      grants.set(key, { session, controller });
      const revoke = (): void => {
        if (grants.get(key)?.controller === controller) grants.delete(key);
        controller.abort(new Error("host-tool grant revoked"));
        signal?.removeEventListener("abort", revoke);
      };
      if (signal?.aborted) revoke();
      else signal?.addEventListener("abort", revoke, { once: true });
      return Object.freeze({ url, token, headers: Object.freeze({ Authorization: `Bearer ${token}` }), revoke });
    },
    close,
    [Symbol.asyncDispose]: close,
  };
}

/** The token of an `Authorization: Bearer <token>` header, else "". */
function bearer(header: string | undefined): string {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header ?? "");
  return match?.[1] ?? "";
}

/** Map key of a token: its SHA-256, so a lookup's timing says nothing about the token itself. */
function digest(token: string): string {
  return token ? createHash("sha256").update(token).digest("hex") : "";
}

function reply(res: ServerResponse, status: number, message: string): void {
  res.writeHead(status, { "content-type": "application/json" });
  res.end(JSON.stringify({ jsonrpc: "2.0", error: { code: -32000, message }, id: null }));
}

/**
 * The client's id of the tool call in a `tools/call` request's `_meta`: Claude Code's
 * `claudecode/toolUseId` (`"toolu_…"`) or Codex's `callId` (`"call_…"`, the id of its `mcpToolCall`
 * item); `undefined` when the client sends neither (Gemini CLI, codex-acp).
 */
function callIdOf(meta: unknown): string | undefined {
  if (typeof meta !== "object" || meta === null) return undefined;
  const record = meta as Record<string, unknown>;
  const id = record["claudecode/toolUseId"] ?? record["callId"];
  return typeof id === "string" && id !== "" ? id : undefined;
}
