/** Most UTF-16 code units of a session title `agent.renameSession` writes (what a listing shows whole). */
export const MAX_SESSION_TITLE_LENGTH = 500;
/** Most UTF-16 code units of a session tag `agent.tagSession` writes. */
export const MAX_SESSION_TAG_LENGTH = 200;

/** Most UTF-16 code units of the message id `agent.forkSession` takes as `upToMessageId`. */
export const MAX_MESSAGE_ID_LENGTH = 200;

/**
 * One of the CLI's own sessions, as a driver is asked about it (`Driver.getSessionInfo`,
 * `Driver.renameSession`, `Driver.tagSession`, `Driver.forkSession`): the session id checked, and the run's environment.
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

/** The options of `agent.forkSession(sessionId, options)` (the Claude Agent SDK's `ForkSessionOptions`). */
export interface ForkSessionOptions {
  /**
   * The CLI's own id of the message the fork ends with (`SessionMessage.id` of
   * `agent.getSessionMessages`), inclusive: a non-empty string without control characters, at most
   * 200 characters. Absent: the whole conversation.
   */
  readonly upToMessageId?: string;
  /**
   * The fork's title: trimmed, then non-empty, at most 500 characters, no control characters or
   * line breaks. Absent: the original's title and `" (fork)"`.
   */
  readonly title?: string;
  /** Aborts the call (it rejects with the signal's reason). */
  readonly signal?: AbortSignal;
}

/** What `agent.forkSession` answers (the Claude Agent SDK's `ForkSessionResult`). */
export interface ForkSessionResult {
  /** The fork's session id, which the CLI resumes it by (`agent.thread(key, { adoptSession: sessionId })`). */
  readonly sessionId: string;
}

/** A fork as a driver is asked for it (`Driver.forkSession`). */
export interface DriverForkSessionQuery extends DriverSessionQuery {
  /**
   * The CLI's own id of the message the fork ends with (`SessionMessage.id`), checked: a non-empty
   * string without NUL or line breaks, at most 200 code units; absent: the whole conversation.
   */
  readonly upToMessageId?: string;
  /** The fork's title, trimmed (as {@link DriverRenameSessionQuery.title}); absent: the driver derives one. */
  readonly title?: string;
}

/** A tag as a driver is asked for it (`Driver.tagSession`). */
export interface DriverTagSessionQuery extends DriverSessionQuery {
  /** The new tag, trimmed (non-empty, at most 200 code units, no control characters), or `null` to clear it. */
  readonly tag: string | null;
}
