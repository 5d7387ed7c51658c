/** Most sessions one page of a session listing holds. */
export const MAX_SESSION_PAGE_LIMIT = 1000;
/** Sessions per page when a listing names no `limit`. */
export const DEFAULT_SESSION_PAGE_LIMIT = 100;

/**
 * Which of the CLI's own sessions to list (`agent.listSessions(query)`, `Driver.listSessions`):
 * sessions kept in this host's CLI home, whoever made them (the CLI run by hand, an app on the
 * Claude Agent SDK or the Codex SDK, adaptor).
 */
export interface ListSessionsQuery {
  /**
   * Only sessions whose working directory is exactly this absolute path (no normalisation, no
   * parent or child folders). Absent: sessions of every working directory.
   */
  readonly cwd?: string;
  /** The most sessions in one page, an integer in [1, 1000]. Default 100. */
  readonly limit?: number;
  /** Where the page starts: the `nextCursor` of the previous page, as it was given. Absent: the first page. */
  readonly cursor?: string;
}

/**
 * One of the CLI's own sessions as listed. Times are `Date`s (UTC instants); what each CLI records
 * varies, so every field but `sessionId` may be absent.
 */
export interface SessionSummary {
  /** The CLI's own id of the conversation: the id `agent.thread(key, { adoptSession })` takes. */
  readonly sessionId: string;
  /** The working directory the session was made in (an absolute path), when the CLI recorded one. */
  readonly cwd?: string;
  /**
   * A title for people: the one the user or the CLI gave the session, else the CLI's summary, else
   * the last (Claude Code) or first (Codex) user prompt. Absent when the session has none.
   */
  readonly title?: string;
  /** The first user prompt of the session, as the CLI recorded it. */
  readonly firstPrompt?: string;
  /** When the session began. */
  readonly createdAt?: Date;
  /** When the session was last written: the listing's order (newest first). */
  readonly updatedAt?: Date;
  /**
   * The tag the user or an app gave the session (Claude Code: the last `tag` entry of its
   * transcript, as `agent.tagSession` or the Claude Agent SDK's `tagSession` writes it); absent
   * when it has none or it was cleared.
   */
  readonly tag?: string;
  /** The git branch the CLI recorded for the session's working directory. */
  readonly gitBranch?: string;
  /** The model the session last used, when the CLI says (Codex). */
  readonly model?: string;
  /** The session id this one was forked from, when the CLI says (Codex). */
  readonly forkedFrom?: string;
  /** Size of the session's transcript file in bytes, when it is one file (Claude Code). */
  readonly bytes?: number;
}

/** A session file the listing could not read, reported instead of failing the whole page. */
export interface SkippedSession {
  /** The session id the file's name gives. */
  readonly sessionId: string;
  /** Why it was skipped, for people: e.g. `no complete entry of the session in its first 65536 bytes`. */
  readonly reason: string;
}

/** One page of a session listing. */
export interface SessionPage {
  /** Sessions, most recently updated first (as the CLI orders them). */
  readonly sessions: SessionSummary[];
  /** Pass as `cursor` for the next page; absent on the last page. */
  readonly nextCursor?: string;
  /**
   * Session files of this page's span the driver skipped (unreadable, not the CLI's format, with
   * no complete entry yet); the listing goes on past them. Empty when none was.
   */
  readonly skipped: SkippedSession[];
}

/** A listing as a driver is asked for it: the query checked, the defaults applied, and the run's environment. */
export interface DriverListSessionsQuery {
  /** As {@link ListSessionsQuery.cwd}. */
  readonly cwd?: string;
  /** The page size, in [1, 1000]. */
  readonly limit: number;
  /** As {@link ListSessionsQuery.cursor}. */
  readonly cursor?: string;
  /** The extra environment a run of the Agent gets (it may name the CLI home, e.g. `CLAUDE_CONFIG_DIR`, `CODEX_HOME`). */
  readonly env?: Readonly<Record<string, string>>;
}
