import type { McpTransport } from "./descriptor.js";

/** Options of {@link Driver.inspect}. */
export interface InspectOptions {
  /** Aborts the probes (their processes are ended); the inspection then rejects with `signal.reason`. */
  readonly signal?: AbortSignal;
}

/** Which part of an inspection a failed check belongs to. */
export type InspectCheckName = "config" | "executable" | "version" | "authentication" | "models";

/**
 * Why a check failed:
 * - `invalid_config`: the driver's `validateConfig()` refused its configuration;
 * - `executable_not_found`: no executable at the configured command or on `PATH`;
 * - `executable_not_runnable`: it exists but cannot be run (permission, a directory, it failed to start);
 * - `version_unreadable`: its version command printed no version;
 * - `version_unsupported`: the version is older than the oldest the driver supports, so a run would be
 *   refused before it starts (`FeatureUnsupportedError`, feature `"cliVersion"`; the message is its reason);
 * - `version_mismatch`: the version differs from the one the driver is pinned to and tested against
 *   (a run goes ahead);
 * - `unauthenticated`: the CLI has no credentials it would use;
 * - `probe_failed`: a probe command failed or answered something unexpected;
 * - `probe_timeout`: a probe did not answer within its deadline.
 */
export type InspectFailureReason =
  | "invalid_config"
  | "executable_not_found"
  | "executable_not_runnable"
  | "version_unreadable"
  | "version_unsupported"
  | "version_mismatch"
  | "unauthenticated"
  | "probe_failed"
  | "probe_timeout";

/** A check that failed, with a typed reason. */
export interface InspectCheck {
  /** The part of the inspection it belongs to. */
  readonly check: InspectCheckName;
  /** Why, as a code to match on. */
  readonly reason: InspectFailureReason;
  /** For people; never holds a credential. */
  readonly message: string;
}

/** The models a CLI can list, or why it cannot. */
export type InspectModels =
  | {
      readonly supported: true;
      /** Model ids as the CLI names them, in its order. */
      readonly models: readonly string[];
      /** The CLI's default model, when it says. */
      readonly defaultModel?: string;
    }
  | {
      readonly supported: false;
      /** Why not, e.g. that the CLI has no way to list models without a model call. */
      readonly reason: string;
    };

/** One slash command the CLI offers (its built-ins, skills and the user's own commands). */
export interface InspectCommand {
  /** The name, without the leading `/`, e.g. `"review"`. */
  readonly name: string;
  /** What the CLI says the command does, when it says. */
  readonly description?: string;
  /** The CLI's hint for the command's arguments, when it gives one. */
  readonly argumentHint?: string;
}

/** The slash commands a CLI lists, or why it cannot. */
export type InspectCommands =
  { readonly supported: true; readonly commands: readonly InspectCommand[] } | { readonly supported: false; readonly reason: string };

/**
 * What {@link Driver.inspect} found out about the host, without any model call or cost: the CLI's
 * executable and version, whether credentials are present (never their value), the models it can
 * list, what it supports, and every check that failed.
 */
export interface DriverInspection {
  /** The driver's `descriptor.type`, e.g. `"claude"`. */
  readonly driver: string;
  /** True when no check failed. */
  readonly ok: boolean;
  /** The executable: the command as configured, and the absolute path it resolved to, if found. */
  readonly executable: { readonly command: string; readonly path?: string; readonly found: boolean };
  /**
   * The version the executable reports, the one the driver is pinned to, whether they match, and
   * the oldest a run is not refused on (for a driver that declares one).
   */
  readonly version: { readonly found?: string; readonly pinned?: string; readonly minimum?: string; readonly matches?: boolean };
  /**
   * Whether the CLI has credentials it would use. `method` and `source` name them
   * (`"api_key"`, `"ANTHROPIC_API_KEY"`), never their value. `present` is false when the probe
   * could not tell (see `failed`). `reason` says why it was not probed, when it was not (e.g.
   * `"not probed: an earlier check failed"` after a failed executable or version check).
   */
  readonly authentication: { readonly present: boolean; readonly method?: string; readonly source?: string; readonly reason?: string };
  /** The models the CLI lists, or an honest `supported: false`. */
  readonly models: InspectModels;
  /**
   * The slash commands the CLI offers to a prompt (`/name args`), when the driver can list them
   * without a model call; absent for a driver that cannot.
   */
  readonly commands?: InspectCommands;
  /** MCP support (from the descriptor: the transports the driver has proved). */
  readonly mcp: { readonly supported: boolean; readonly transports: readonly McpTransport[] };
  /** Whether the driver can hand skills to the CLI. */
  readonly skills: { readonly supported: boolean };
  /** Every check that failed, in the order they ran. */
  readonly failed: readonly InspectCheck[];
}
