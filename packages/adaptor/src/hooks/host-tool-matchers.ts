import { InvalidOptionError } from "@adaptor/errors";
import { toolHookGroups } from "./hook-runner.js";
import type { RunHooks } from "./run-hooks.js";
import { namesOf } from "./tool-matcher.js";

/**
 * Refuses a tool hook matcher that names a host tool under another MCP server's name, e.g.
 * `mcp__shop__refund` (as a Claude Agent SDK app names a tool of its `createSdkMcpServer({ name:
 * "shop" })`) where `refund` is a host tool of the run, served as `mcp__<hostServer>__refund`, and
 * `shop` is none of the run's MCP servers: such a matcher would match no call, and its hook would
 * never be called.
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
      for (const name of namesOf(group.matcher) ?? []) {
        const wire = /^mcp__(.+?)__(.+)$/.exec(name);
        if (!wire) continue;
        const [, server, tool] = wire as unknown as [string, string, string];
        if (server === hostServer || servers.has(server) || !hostTools.has(tool)) continue;
        const field = `hooks.${point}${Array.isArray(option) ? `[${index}]` : ""}.matcher`;
        throw new InvalidOptionError({
          subject: "run options",
          field,
          reason:
            `${JSON.stringify(group.matcher)} names ${name}, but ${JSON.stringify(tool)} is a host tool of this run, ` +
            `which the agent calls ${JSON.stringify(`mcp__${hostServer}__${tool}`)}, and ${JSON.stringify(server)} is none of its MCP servers: ` +
            `the hook would never be called; name it ${JSON.stringify(`mcp__${hostServer}__${tool}`)}`,
        });
      }
    });
  }
}
