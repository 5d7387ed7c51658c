import { checkInspectOptions, type DriverDescriptor, type DriverInspection, type InspectCheck, type InspectOptions } from "@adaptor/driver";
import { inspectCli, type ProbeContext, type ProbeFindings } from "@adaptor/driver/kit";
import { mergeChildEnv } from "@adaptor/driver/process";
import { CLAUDE_VERSION_FLOOR, defaultClaudeCommand } from "../command.js";
import { CLAUDE_INHERITED_ENV, type ClaudeConfig } from "../config.js";
import { probeInitialize } from "./initialize-probe.js";

/** What `claude auth status` prints (claude 2.1.332): JSON, exit 0 when logged in, 1 when not. */
interface AuthStatus {
  readonly loggedIn?: unknown;
  readonly authMethod?: unknown;
  readonly apiKeySource?: unknown;
  readonly apiProvider?: unknown;
}

/**
 * The Claude driver's `inspect()`: `claude --version` against the driver's versions (pinned, oldest supported), then
 * `claude auth status` (which prints the login state and the name of the key's source, never the
 * key), then the models and slash commands from the `initialize` answer of a short-lived
 * stream-json process (no prompt, so no model call). The model list is the CLI's picker (aliases
 * such as `opus`, `sonnet`); any model id the account can use also works as `model`.
 */
export async function inspectClaude(
  driver: { readonly descriptor: DriverDescriptor; readonly config: ClaudeConfig; validateConfig(): void },
  options: InspectOptions = {},
): Promise<DriverInspection> {
  const { signal } = checkInspectOptions(options);
  const { config } = driver;
  const env = mergeChildEnv({
    inheritEnv: config.inheritEnv,
    defaultInherit: CLAUDE_INHERITED_ENV,
    layers: [config.env, config.configDir ? { CLAUDE_CONFIG_DIR: config.configDir } : undefined],
  });
  return inspectCli({
    descriptor: driver.descriptor,
    validate: () => driver.validateConfig(),
    command: config.command ?? defaultClaudeCommand(),
    env,
    ...(config.cwd !== undefined ? { cwd: config.cwd } : {}),
    versionFloor: CLAUDE_VERSION_FLOOR,
    versionArgs: ["--version"],
    skills: true,
    ...(signal ? { signal } : {}),
    probe: async (context) => {
      const auth = await probeAuthentication(context);
      const init = await probeInitialize(context, config);
      return { ...auth, models: init.models, commands: init.commands, failed: [...auth.failed, ...init.failed] };
    },
  });
}

async function probeAuthentication(context: ProbeContext): Promise<Omit<ProbeFindings, "models">> {
  const output = await context.run(["auth", "status"]);
  let status: AuthStatus;
  try {
    status = JSON.parse(output.stdout) as AuthStatus;
  } catch {
    const failed: InspectCheck = {
      check: "authentication",
      reason: "probe_failed",
      message: `claude auth status printed no JSON (exit ${output.exitCode})${output.stderr ? `: ${output.stderr}` : ""}`,
    };
    return { authentication: { present: false }, failed: [failed] };
  }
  const present = status.loggedIn === true;
  const authentication = {
    present,
    ...(typeof status.authMethod === "string" && status.authMethod !== "none" ? { method: status.authMethod } : {}),
    ...(typeof status.apiKeySource === "string" ? { source: status.apiKeySource } : {}),
  };
  const failed: InspectCheck[] = present
    ? []
    : [
        {
          check: "authentication",
          reason: "unauthenticated",
          message: "claude is not logged in and sees no API key (set ANTHROPIC_API_KEY or run `claude auth login`)",
        },
      ];
  return { authentication, failed };
}
