import { validateDriverConfig, type CommonDriverConfig } from "@adaptor/driver/kit";
import { SAFE_ENV_BASE } from "@adaptor/driver/process";

/**
 * Configuration of {@link cursor}: the kit's common fields (see `CommonDriverConfig`). `command`
 * defaults to `cursor-agent` on `PATH`; `model` is passed as `--model`.
 */
export type CursorConfig = CommonDriverConfig;

/**
 * Host variables the CLI inherits by default: the safe base, plus the CLI's own settings
 * (`CURSOR_API_KEY`, `CURSOR_*`) and the proxy variables a corporate network needs.
 */
export const CURSOR_INHERITED_ENV: readonly string[] = [...SAFE_ENV_BASE, "CURSOR_*", "HTTP_PROXY", "HTTPS_PROXY", "NO_PROXY"];

/** Flags the driver sets itself; `extraArgs` may not hold them. */
const OWNED_FLAGS = ["-p", "--print", "--output-format", "--stream-partial-output", "--resume", "--model", "-m", "--force", "--workspace"];

/**
 * Checks a Cursor driver config. @throws InvalidDriverConfigError naming the field: an unknown
 * key, a wrong type, or an `extraArgs` entry that sets a flag the driver owns.
 */
export function validateCursorConfig(config: CursorConfig | undefined): CursorConfig {
  return validateDriverConfig("cursor", config, { ownedFlags: OWNED_FLAGS });
}
