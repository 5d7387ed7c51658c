/**
 * An MCP server the CLI should connect to for one run, already validated by the SDK
 * (`@adaptor/mcp` declarations and the host-tool server both arrive in this shape).
 */
export type McpServerConfig =
  | {
      readonly name: string;
      readonly transport: "stdio";
      readonly command: string;
      readonly args?: readonly string[];
      readonly env?: Readonly<Record<string, string>>;
      /**
       * Which variables of the CLI's environment the server keeps besides `env`: `true` all, `false`
       * none, an allowlist of names (trailing `*` = prefix). Default: the safe base set
       * (`SAFE_ENV_BASE` of `@adaptor/driver/process`), never the whole environment.
       */
      readonly inheritEnv?: boolean | readonly string[];
      /** A failed connection fails the run instead of being ignored. */
      readonly required?: boolean;
      /** Calls to this server's tools need no approval (the SDK's own host-tool server). */
      readonly trusted?: boolean;
      /** The exact names of the tools the server offers, when the SDK knows them (its host-tool server). */
      readonly tools?: readonly string[];
    }
  | {
      readonly name: string;
      readonly transport: "http" | "sse";
      readonly url: string;
      readonly headers?: Readonly<Record<string, string>>;
      readonly required?: boolean;
      readonly trusted?: boolean;
      readonly tools?: readonly string[];
    };

/** A skill ready to stage: a local folder holding `SKILL.md` (the SDK resolved and unpacked it). */
export interface SkillBundle {
  /** Folder name the CLI loads it under (unique per run). */
  readonly name: string;
  /** Local directory with `SKILL.md` and its files; the driver copies it, never moves or edits it. */
  readonly dir: string;
}

/**
 * The `op` of the `DriverError` a driver throws when a required MCP server did not connect, e.g.
 * `[DEVICE_DISCONNECTED] mcp connect: files (...)`. A run stopped by the SDK (the active-execution
 * budget) whose driver rejects with it was stopped while its MCP servers were starting, and the
 * verdict says so (its `cause` is that error).
 */
export const MCP_CONNECT_OP = "mcp connect";
