import { homedir } from "node:os";
import { join } from "node:path";
import { openRegularFile } from "@adaptor/driver/process";
import type { InheritedSession, InheritedSessionContext } from "../acp-driver.js";

/** claude-agent-acp 0.23.1's names for `permissions.defaultMode` (lower case) and the mode each selects. */
const MODE_ALIASES: Readonly<Record<string, string>> = {
  default: "default",
  acceptedits: "acceptEdits",
  dontask: "dontAsk",
  plan: "plan",
  bypasspermissions: "bypassPermissions",
  bypass: "bypassPermissions",
};

interface Settings {
  readonly model?: unknown;
  readonly permissions?: { readonly defaultMode?: unknown };
}

/** Most bytes of a settings file read; a longer one is read as empty. */
const SETTINGS_LIMIT_BYTES = 1024 * 1024;

/**
 * The JSON object in the settings file at `path`; `{}` when it is missing, not an object, over
 * {@link SETTINGS_LIMIT_BYTES}, or not a regular file (a FIFO an agent made in the workspace's
 * `.claude` folder is refused, never waited on; a symbolic link is followed to a regular file).
 */
async function readSettings(path: string): Promise<Settings> {
  try {
    const { handle, stat } = await openRegularFile(path, "read", "read claude settings", { followLinks: true });
    try {
      if (stat.size > SETTINGS_LIMIT_BYTES) return {};
      const parsed: unknown = JSON.parse(await handle.readFile("utf8"));
      return typeof parsed === "object" && parsed !== null ? (parsed as Settings) : {};
    } finally {
      await handle.close();
    }
  } catch {
    return {};
  }
}

/** Where Claude Code's managed (enterprise) settings live, as the adapter reads them. */
function managedSettingsPath(): string {
  if (process.platform === "darwin") return "/Library/Application Support/ClaudeCode/managed-settings.json";
  if (process.platform === "win32") return "C:\\Program Files\\ClaudeCode\\managed-settings.json";
  return "/etc/claude-code/managed-settings.json";
}

/**
 * claude-agent-acp 0.23.1 opens every session in the `permissions.defaultMode` and with the `model`
 * of the Claude Code settings it merges itself (user, then the workspace's `.claude/settings.json`
 * and `.claude/settings.local.json`, then managed), whatever setting sources the session asks for.
 * When the workspace's files choose either, this gives what the host's own settings (user, then
 * managed) choose instead: the mode (`default` when none) and the model (`null`, the first one
 * offered, when none), for a run that leaves them to the agent.
 */
export async function claudeInheritedSession({ cwd, env }: InheritedSessionContext): Promise<InheritedSession | undefined> {
  const workspace = await Promise.all([
    readSettings(join(cwd, ".claude", "settings.json")),
    readSettings(join(cwd, ".claude", "settings.local.json")),
  ]);
  const choosesMode = workspace.some((s) => s.permissions?.defaultMode !== undefined);
  const choosesModel = workspace.some((s) => typeof s.model === "string" && s.model !== "");
  if (!choosesMode && !choosesModel) return undefined;
  const configDir = env["CLAUDE_CONFIG_DIR"] ?? join(env["HOME"] ?? homedir(), ".claude");
  let mode: unknown;
  let model: string | undefined;
  // Later wins, as in the adapter's merge.
  for (const own of await Promise.all([readSettings(join(configDir, "settings.json")), readSettings(managedSettingsPath())])) {
    if (own.permissions?.defaultMode !== undefined) mode = own.permissions.defaultMode;
    if (typeof own.model === "string" && own.model !== "") model = own.model;
  }
  const modeId = typeof mode === "string" ? (MODE_ALIASES[mode.trim().toLowerCase()] ?? mode) : "default";
  return { ...(choosesMode ? { mode: modeId } : {}), ...(choosesModel ? { model: model ?? null } : {}) };
}
