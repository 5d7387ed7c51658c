import { AdaptorError, findStringFlaw, MalformedStringError } from "@adaptor/errors";
import { ErrInvalidConfig } from "../errors/sentinels.js";
import type { McpServer } from "../server/mcp-server.js";

/** Server names: what tool names (`mcp__<name>__<tool>`) can carry. */
const NAME = /^[A-Za-z0-9_-]{1,64}$/;
/** Environment variable names. */
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** `inheritEnv` entries: a variable name with an optional trailing `*` (a prefix). */
const ENV_PATTERN = /^[A-Za-z_][A-Za-z0-9_]*\*?$/;

const STDIO_FIELDS = new Set(["command", "args", "env", "inheritEnv"]);
const REMOTE_FIELDS = new Set(["url", "headers", "bearerTokenEnv"]);
const COMMON_FIELDS = new Set(["name", "transport", "required"]);
const TRANSPORTS = new Set(["stdio", "http", "sse"]);

function fail(subject: string, problem: string): never {
  throw new AdaptorError(`MCP server ${subject}: ${problem}`, { sentinel: ErrInvalidConfig });
}

/** Refuses text a process cannot be given (NUL, a lone UTF-16 surrogate); the cause is a `MalformedStringError`. */
function checkText(subject: string, field: string, value: string): void {
  const flaw = findStringFlaw(value);
  if (!flaw) return;
  const cause = new MalformedStringError(`MCP server ${subject}`, field, flaw);
  throw new AdaptorError(`MCP server ${subject}: ${field} ${cause.reason}`, { sentinel: ErrInvalidConfig, cause });
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function checkStringRecord(subject: string, field: string, value: unknown): void {
  if (value === undefined) return;
  if (!isRecord(value)) fail(subject, `${field} must be an object of strings`);
  for (const [key, entry] of Object.entries(value)) {
    if (typeof entry !== "string") fail(subject, `${field}.${key} must be a string, got ${typeof entry}`);
    checkText(subject, `${field} name ${JSON.stringify(key)}`, key);
    checkText(subject, `${field}.${key}`, entry);
  }
}

/**
 * Checks MCP declarations and returns them as frozen copies, in order.
 *
 * @throws AdaptorError matching `ErrInvalidConfig` (root `ErrInvalidMCPConfig`) whose message names
 * the server (or its position when the name itself is bad): a declaration that is not an object;
 * a missing, malformed (see {@link McpServerBase.name}) or duplicate name; an unknown transport; a
 * missing or empty `command` (stdio) or a missing or non-`http(s):` `url` (http, sse); `args`,
 * `env`, `headers`, `inheritEnv` of the wrong type; a malformed `bearerTokenEnv`; a non-boolean `required`; a
 * field of one transport on another (`url` on stdio, `command` on http); an unknown field; a
 * `command`, `args`, `env` or `headers` string holding NUL or a lone UTF-16 surrogate (the
 * `cause` is then a `MalformedStringError` naming the field).
 */
export function validateMcpServers(servers: readonly unknown[]): readonly McpServer[] {
  if (!Array.isArray(servers)) fail("list", "mcpServers must be an array");
  const seen = new Set<string>();
  return Object.freeze(
    servers.map((server, index) => {
      const position = `#${index + 1}`;
      if (!isRecord(server)) fail(position, "declaration must be an object");
      const { name, transport } = server;
      if (typeof name !== "string" || name.trim() === "") fail(position, "missing name");
      const subject = JSON.stringify(name);
      if (!NAME.test(name)) fail(subject, "name must be 1-64 letters, digits, '_' or '-'");
      if (seen.has(name)) fail(subject, "duplicate name");
      seen.add(name);
      if (typeof transport !== "string" || !TRANSPORTS.has(transport)) {
        fail(subject, `unknown transport ${JSON.stringify(transport)} (expected stdio, http or sse)`);
      }
      const own = transport === "stdio" ? STDIO_FIELDS : REMOTE_FIELDS;
      const other = transport === "stdio" ? REMOTE_FIELDS : STDIO_FIELDS;
      for (const field of Object.keys(server)) {
        if (server[field] === undefined || COMMON_FIELDS.has(field) || own.has(field)) continue;
        if (other.has(field)) fail(subject, `field ${field} does not apply to transport ${transport}`);
        fail(subject, `unknown field ${field}`);
      }
      if (server.required !== undefined && typeof server.required !== "boolean") fail(subject, "required must be a boolean");
      if (transport === "stdio") {
        if (typeof server.command !== "string" || server.command.trim() === "") fail(subject, "missing command");
        if (server.args !== undefined && (!Array.isArray(server.args) || server.args.some((arg) => typeof arg !== "string"))) {
          fail(subject, "args must be an array of strings");
        }
        checkText(subject, "command", server.command);
        (server.args as string[] | undefined)?.forEach((arg, i) => checkText(subject, `args[${i}]`, arg));
        checkStringRecord(subject, "env", server.env);
        const inherit = server.inheritEnv;
        if (
          inherit !== undefined &&
          typeof inherit !== "boolean" &&
          (!Array.isArray(inherit) || inherit.some((entry) => typeof entry !== "string" || !ENV_PATTERN.test(entry)))
        ) {
          fail(subject, "inheritEnv must be true, false or an array of variable names (a trailing * matches a prefix)");
        }
      } else {
        if (typeof server.url !== "string" || server.url.trim() === "") fail(subject, "missing url");
        let url: URL;
        try {
          url = new URL(server.url);
        } catch {
          fail(subject, `url ${JSON.stringify(server.url)} is not a URL`);
        }
        if (url.protocol !== "http:" && url.protocol !== "https:") fail(subject, `url must be http: or https:, got ${url.protocol}`);
        checkStringRecord(subject, "headers", server.headers);
        const tokenEnv = server.bearerTokenEnv;
        if (tokenEnv !== undefined && (typeof tokenEnv !== "string" || !ENV_NAME.test(tokenEnv))) {
          fail(subject, "bearerTokenEnv must be an environment variable name");
        }
      }
      return Object.freeze(copy(server)) as unknown as McpServer;
    }),
  );
}

/** A copy without undefined fields, with arrays and records copied (the host may mutate its own). */
function copy(server: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(server)) {
    if (value === undefined) continue;
    out[key] = Array.isArray(value) ? Object.freeze([...value]) : isRecord(value) ? Object.freeze({ ...value }) : value;
  }
  return out;
}
