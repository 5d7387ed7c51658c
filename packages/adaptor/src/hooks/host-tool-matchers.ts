import { InvalidOptionError } from "@adaptor/errors";
import { toolHookGroups } from "./hook-runner.js";
import type { RunHooks } from "./run-hooks.js";
import { matchesTool } from "./tool-matcher.js";

/** An MCP tool name, or its start, spelled out in a matcher: `mcp__`, then name characters. */
const MCP_NAME = /mcp__[a-zA-Z0-9_-]+/g;

/**
 * Refuses a tool hook matcher that names a host tool under another MCP server's name, e.g.
 * `mcp__shop__refund` (as a Claude Agent SDK app names a tool of its `createSdkMcpServer({ name:
 * "shop" })`) where `refund` is a host tool of the run, served as `mcp__<hostServer>__refund`, and
 * `shop` is none of the run's MCP servers: such a matcher would match no call, and its hook would
 * never be called. A list of names and a regular expression (`mcp__shop__refund.*`,
 * `^mcp__shop__refund$`) alike: each `mcp__<server>__<tool>` the matcher spells out is read with
 * every split of a server name holding `__` (`mcp__a__b__refund`: server `a` or `a__b`), and is
 * refused when no split names a server of the run, and the matcher would match a host tool under
 * the unknown server's name but not under the name the agent calls it by. A matcher naming no
 * tool after the server (`^mcp__shop__`) is never refused: it may be for a server the CLI's own
 * configuration adds.
 * @throws InvalidOptionError (field e.g. `hooks.beforeToolCall[0].matcher`) naming the matcher and
 * the name the agent calls the tool by.
 */
export function checkHostToolMatchers(
  hooks: RunHooks | undefined,
  hostTools: ReadonlySet<string>,
  hostServer: string,
  servers: ReadonlySet<string>,
): void {
  if (hooks === undefined || hostTools.size === 0) return;
  for (const point of ["beforeToolCall", "afterToolCall"] as const) {
    const option = hooks[point];
    toolHookGroups<unknown>(option).forEach((group, index) => {
      if (group.matcher === undefined) return;
      const wrong = misnamedHostTool(group.matcher, hostTools, hostServer, servers);
      if (wrong === undefined) return;
      const { server, tool } = wrong;
      const field = `hooks.${point}${Array.isArray(option) ? `[${index}]` : ""}.matcher`;
      throw new InvalidOptionError({
        subject: "run options",
        field,
        reason:
          `${JSON.stringify(group.matcher)} names mcp__${server}__${tool}, but ${JSON.stringify(tool)} is a host tool of this run, ` +
          `which the agent calls ${JSON.stringify(`mcp__${hostServer}__${tool}`)}, and ${JSON.stringify(server)} is none of its MCP servers: ` +
          `the hook would never be called; name it ${JSON.stringify(`mcp__${hostServer}__${tool}`)}`,
      });
    });
  }
}

/** The unknown server and host tool `matcher` names instead of the host tool's own name, if any. */
function misnamedHostTool(
  matcher: string,
  hostTools: ReadonlySet<string>,
  hostServer: string,
  servers: ReadonlySet<string>,
): { server: string; tool: string } | undefined {
  for (const [spelled] of matcher.matchAll(MCP_NAME)) {
    const rest = spelled.slice("mcp__".length);
    const splits: { server: string; prefix: string }[] = [];
    for (let at = rest.indexOf("__", 1); at > 0; at = rest.indexOf("__", at + 1)) {
      const prefix = rest.slice(at + 2);
      if (prefix !== "") splits.push({ server: rest.slice(0, at), prefix });
    }
    if (splits.some(({ server }) => server === hostServer || servers.has(server))) continue;
    for (const { server, prefix } of splits)
      for (const tool of hostTools)
        if (
          tool.startsWith(prefix) &&
          matchesTool(matcher, `mcp__${server}__${tool}`) &&
          !matchesTool(matcher, `mcp__${hostServer}__${tool}`)
        )
          return { server, tool };
  }
  return undefined;
}
