import type { DriverRequest } from "@adaptor/driver";
import { launchSignature, skillsDigest } from "@adaptor/driver/kit";
import type { CodexConfig } from "../config.js";
import { codexEnv } from "../process-helpers.js";

/**
 * The kit's launch signature of an app-server turn: the executable, the config, the merged child
 * environment, cwd, model, policy, MCP servers, output schema, skills (by name and content) and
 * additional directories (not the thread to open). A
 * parked process is reused only for a turn with the same signature (anything else means a fresh
 * process).
 */
export function codexLaunchSignature(command: string, config: CodexConfig, request: DriverRequest): string {
  return launchSignature({
    config,
    env: codexEnv(config, request.env),
    request,
    extra: {
      command,
      skills: skillsDigest(request.skills),
    },
  });
}
