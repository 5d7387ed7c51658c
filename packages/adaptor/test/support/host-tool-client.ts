// The scripted "CLI" side of a host-tool call: an MCP client of the run's host-tool server.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { DriverRequest } from "@adaptor/driver";
import { HOST_TOOL_SERVER_NAME } from "adaptor";

/** The run's host-tool server entry (its URL and bearer header), as the CLI is handed it. */
export function hostToolEntry(request: DriverRequest): { readonly url: string; readonly headers: Readonly<Record<string, string>> } {
  const entry = request.mcpServers?.find((server) => server.name === HOST_TOOL_SERVER_NAME);
  if (!entry || entry.transport !== "http") throw new Error("no host-tool entry");
  return { url: entry.url, headers: { ...entry.headers } };
}

/** An MCP client of the run's host-tool server, as the CLI connects to it. */
export async function connectHostTools(request: DriverRequest): Promise<Client> {
  const entry = hostToolEntry(request);
  const client = new Client({ name: "scripted-cli", version: "0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(entry.url), { requestInit: { headers: { ...entry.headers } } }));
  return client;
}
