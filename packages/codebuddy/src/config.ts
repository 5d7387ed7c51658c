import { optionChecks, type OptionShape } from "@adaptor/errors";
import { validateDriverConfig, type CommonDriverConfig } from "@adaptor/driver/kit";
import { SAFE_ENV_BASE } from "@adaptor/driver/process";

/**
 * Configuration of {@link codebuddy}: the kit's common fields (see `CommonDriverConfig`).
 * `command` defaults to `codebuddy` on `PATH`; `model` is passed as `--model` (a model id the
 * CLI knows: a built-in one, or one of `models.json`).
 */
export interface CodeBuddyConfig extends CommonDriverConfig {
  /**
   * Also load the settings files of the working directory (`.codebuddy/settings.json` and
   * `.codebuddy/settings.local.json`, the CLI's `project` and `local` setting sources): their hooks,
   * which run shell commands of the workspace's choosing, their permission rules and mode, their
   * env. Default false: only the user's settings apply (`--setting-sources user`), so a cloned
   * repository cannot run commands or answer approvals in the host's place. A run with an `ask`
   * or `auto_deny` permission mode is refused with `PolicyCapabilityUnsupportedError` when this
   * is true.
   */
  readonly workspaceSettings?: boolean;
}

/**
 * Host variables the CLI inherits by default: the safe base, plus the CLI's own settings
 * (`CODEBUDDY_*`) and the proxy variables a corporate network needs.
 */
export const CODEBUDDY_INHERITED_ENV: readonly string[] = [...SAFE_ENV_BASE, "CODEBUDDY_*", "HTTP_PROXY", "HTTPS_PROXY", "NO_PROXY"];

/** Flags the driver sets itself; `extraArgs` may not hold them. */
const OWNED_FLAGS = [
  "-p",
  "--print",
  "--output-format",
  "--input-format",
  "--include-partial-messages",
  "--verbose",
  "-r",
  "--resume",
  "-c",
  "--continue",
  "--fork-session",
  "--session-id",
  "--model",
  "-y",
  "--dangerously-skip-permissions",
  "--permission-mode",
  "--system-prompt",
  "--system-prompt-file",
  "--append-system-prompt",
  "--max-turns",
  "--setting-sources",
];

/** CodeBuddy's own options (the common ones come from the kit); a key not listed is refused. */
const CODEBUDDY_CONFIG_SHAPE: OptionShape = { workspaceSettings: optionChecks.boolean() };

/**
 * Checks a CodeBuddy driver config. @throws InvalidDriverConfigError naming the field: an unknown
 * key, a wrong type, or an `extraArgs` entry that sets a flag the driver owns.
 */
export function validateCodeBuddyConfig(config: CodeBuddyConfig | undefined): CodeBuddyConfig {
  return validateDriverConfig("codebuddy", config, { ownedFlags: OWNED_FLAGS, shape: CODEBUDDY_CONFIG_SHAPE });
}
