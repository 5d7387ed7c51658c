import type { AcpConfig } from "../config/acp-config.js";

/**
 * A preset's descriptor config for a run that loads the working directory's own config files
 * (`workspaceSettings`): no sandbox mode and no ask mode, so `read_only` and the permission modes
 * are refused before launch (the workspace's hooks and plugins act outside every session mode),
 * with `sandboxModes` the trusted folder still enforces, if any.
 */
export function trustedDescriptor(config: Partial<AcpConfig>, sandboxModes?: AcpConfig["sandboxModes"]): Partial<AcpConfig> {
  const trusted: Partial<AcpConfig> = Object.fromEntries(
    Object.entries(config).filter(([key]) => key !== "sandboxModes" && key !== "askMode"),
  );
  return sandboxModes === undefined ? trusted : { ...trusted, sandboxModes };
}
