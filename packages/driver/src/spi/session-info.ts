/** Most UTF-16 code units of a session title `agent.renameSession` writes (what a listing shows whole). */
export const MAX_SESSION_TITLE_LENGTH = 500;
/** Most UTF-16 code units of a session tag `agent.tagSession` writes. */
export const MAX_SESSION_TAG_LENGTH = 200;

/**
 * One of the CLI's own sessions, as a driver is asked about it (`Driver.getSessionInfo`,
 * `Driver.renameSession`, `Driver.tagSession`): the session id checked, and the run's environment.
 */
export interface DriverSessionQuery {
  /**
   * The CLI's own id of the session (as `SessionSummary.sessionId`): a non-empty string without
   * NUL, path separators or a `..` part.
   */
  readonly sessionId: string;
  /** The extra environment a run of the Agent gets (it may name the CLI home, e.g. `CLAUDE_CONFIG_DIR`, `CODEX_HOME`). */
  readonly env?: Readonly<Record<string, string>>;
}

/** A rename as a driver is asked for it (`Driver.renameSession`). */
export interface DriverRenameSessionQuery extends DriverSessionQuery {
  /** The new title, trimmed: non-empty, at most 500 code units, no control characters. */
  readonly title: string;
}

/** A tag as a driver is asked for it (`Driver.tagSession`). */
export interface DriverTagSessionQuery extends DriverSessionQuery {
  /** The new tag, trimmed (non-empty, at most 200 code units, no control characters), or `null` to clear it. */
  readonly tag: string | null;
}
