import { dirname } from "node:path";
import type { DriverRequest } from "@adaptor/driver";
import { containsPath, realDirectory } from "@adaptor/driver/kit";
import { InvalidOptionError } from "@adaptor/errors";
import type { ClaudeConfig } from "../config.js";
import { claudeProjectsDir } from "../session-state/claude-session-transfer.js";

/**
 * Refuses, before launch, an `additionalDirectories` entry that would open the CLI's own
 * configuration to its file tools: one that resolves (symbolic links followed) to `/`, that
 * contains the CLI home the run uses (`CLAUDE_CONFIG_DIR`, else `~/.claude`: its settings.json
 * sets the permissions and hooks the policy relies on), or that is inside it (`hooks/`, agents,
 * commands: what the CLI obeys). Not checked under sandbox `read_only`
 * (writes there stay refused) or `unrestricted` (every path is open already).
 * @throws InvalidOptionError (subject `run`, field `additionalDirectories[i]`).
 */
export function checkAddDirs(config: ClaudeConfig, request: Pick<DriverRequest, "additionalDirectories" | "policy" | "env">): void {
  const directories = request.additionalDirectories ?? [];
  const sandbox = request.policy?.sandbox;
  if (directories.length === 0 || sandbox === "read_only" || sandbox === "unrestricted") return;
  const home = realDirectory(dirname(claudeProjectsDir(config, request.env)));
  directories.forEach((directory, index) => {
    const real = realDirectory(directory);
    const wide =
      real === "/"
        ? "the filesystem root"
        : containsPath(real, home)
          ? `the Claude Code home ${JSON.stringify(home)}`
          : containsPath(home, real)
            ? `a directory inside the Claude Code home ${JSON.stringify(home)} (its hooks and settings)`
            : undefined;
    if (wide)
      throw new InvalidOptionError({
        subject: "run",
        field: `additionalDirectories[${index}]`,
        reason: `${JSON.stringify(directory)} (${JSON.stringify(real)}) would open ${wide} to the agent's file tools`,
      });
  });
}
