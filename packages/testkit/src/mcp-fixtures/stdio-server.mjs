#!/usr/bin/env node
// adaptor MCP fixture: a real stdio MCP server built with @modelcontextprotocol/sdk, for tests that
// run a CLI against it. Flags (argv, in any order):
//   --name=<server name>     name it reports in `initialize` (default "adaptor-fixture")
//   --log=<file>             append one JSON line per event: {"event":"start"|"call"|"crash", ...}
//   --crash-on-call          every tools/call makes the process exit (code 7) before it answers
//   --fail-start             exit 1 at once, before the MCP handshake (a server that cannot start)
//   --log-env                each `call` entry also holds the server's whole environment (`env`)
// Tools: `echo` {text} → "echo: <text> (MCP_FIXTURE_OK)"; `peek` {text} → the same, but annotated
// read-only (`readOnlyHint: true`), as a server that claims its tool needs no approval would;
// `crash` {} → always exits mid-call; `elicit` {} → asks the client for a form (`elicitInput`, schema:
// `name` string required, `age` integer ≥ 0) and answers `elicit: <action> <content JSON>`;
// `elicit_url` {} → asks the client to open a URL (URL mode) and answers `elicit_url: <action>`.
// Each elicitation's result is logged (`{"event":"elicit","tool":...,"action":...,"content":...}`).
import { appendFileSync } from "node:fs";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { z } from "zod";

const flags = new Map(
  process.argv.slice(2).map((arg) => {
    const eq = arg.indexOf("=");
    return eq < 0 ? [arg.replace(/^--/, ""), "true"] : [arg.slice(2, eq), arg.slice(eq + 1)];
  }),
);
const name = flags.get("name") ?? "adaptor-fixture";
const logFile = flags.get("log");

/** @param {Record<string, unknown>} entry */
function log(entry) {
  if (logFile) appendFileSync(logFile, `${JSON.stringify({ ...entry, pid: process.pid, time: Date.now() })}\n`);
}

if (flags.has("fail-start")) {
  process.stderr.write(`${name}: failing at startup (--fail-start)\n`);
  log({ event: "fail-start" });
  process.exit(1);
}

/** Exits mid-call: the request was received and is never answered. */
function crash(tool) {
  log({ event: "crash", tool });
  process.stderr.write(`${name}: crashing during tools/call ${tool}\n`);
  process.exit(7);
}

const server = new McpServer({ name, version: "1.0.0" });
server.registerTool(
  "echo",
  {
    description: "Echoes the given text back, tagged MCP_FIXTURE_OK.",
    inputSchema: { text: z.string().describe("Text to echo") },
  },
  async ({ text }) => {
    log({ event: "call", tool: "echo", text, ...(flags.has("log-env") ? { env: { ...process.env } } : {}) });
    if (flags.has("crash-on-call")) crash("echo");
    return { content: [{ type: "text", text: `echo: ${text} (MCP_FIXTURE_OK)` }] };
  },
);
server.registerTool(
  "peek",
  {
    description: "Echoes the given text back, tagged MCP_FIXTURE_OK; annotated read-only.",
    inputSchema: { text: z.string().describe("Text to echo") },
    annotations: { readOnlyHint: true },
  },
  async ({ text }) => {
    log({ event: "call", tool: "peek", text });
    return { content: [{ type: "text", text: `peek: ${text} (MCP_FIXTURE_OK)` }] };
  },
);
/** The form the `elicit` tool asks for. */
const FORM_SCHEMA = {
  type: "object",
  properties: {
    name: { type: "string", title: "Name", description: "Your name" },
    age: { type: "integer", title: "Age", minimum: 0 },
  },
  required: ["name"],
};
server.registerTool("elicit", { description: "Asks the user for their name and age (an MCP form elicitation)." }, async () => {
  try {
    const result = await server.server.elicitInput({ mode: "form", message: "Who are you?", requestedSchema: FORM_SCHEMA });
    log({ event: "elicit", tool: "elicit", action: result.action, ...(result.content ? { content: result.content } : {}) });
    return { content: [{ type: "text", text: `elicit: ${result.action} ${JSON.stringify(result.content ?? null)} (MCP_FIXTURE_OK)` }] };
  } catch (error) {
    log({ event: "elicit", tool: "elicit", error: String(error) });
    return { content: [{ type: "text", text: `elicit failed: ${String(error)}` }], isError: true };
  }
});
server.registerTool("elicit_url", { description: "Asks the user to open a sign-in page (an MCP URL elicitation)." }, async () => {
  try {
    const result = await server.server.elicitInput({
      mode: "url",
      message: "Sign in to continue",
      url: "https://example.com/sign-in?session=fixture",
      elicitationId: "fixture-url-1",
    });
    log({ event: "elicit", tool: "elicit_url", action: result.action });
    return { content: [{ type: "text", text: `elicit_url: ${result.action} (MCP_FIXTURE_OK)` }] };
  } catch (error) {
    log({ event: "elicit", tool: "elicit_url", error: String(error) });
    return { content: [{ type: "text", text: `elicit_url failed: ${String(error)}` }], isError: true };
  }
});
server.registerTool("crash", { description: "Crashes the server mid-call." }, async () => crash("crash"));

await server.connect(new StdioServerTransport());
log({ event: "start", name });
