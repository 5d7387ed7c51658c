import type { DriverEvent } from "@adaptor/driver";

/** What a driver knows of a session as it opens: each field only when the CLI reported it. */
export interface SessionOpened {
  /** The CLI's session id (Codex: the thread id; ACP: the `sessionId`): what `result.sessionId` will be. */
  readonly sessionId: string;
  /** The model the session runs on, as the CLI named it. */
  readonly model?: string | undefined;
  /** The session's working directory (absolute path), as the CLI reported it. */
  readonly cwd?: string | undefined;
}

/**
 * The `session.init` notice of a driver whose CLI has no init line of its own (Codex, ACP agents):
 * emitted once per run as soon as the session is open, before the turn starts, so a host learns the
 * session id without waiting for the `Result`. `data`: `sessionId`, and `model` and `cwd` when known.
 */
export function sessionInit(opened: SessionOpened): DriverEvent {
  return {
    type: "notice",
    kind: "session.init",
    data: {
      sessionId: opened.sessionId,
      ...(typeof opened.model === "string" && opened.model !== "" ? { model: opened.model } : {}),
      ...(typeof opened.cwd === "string" && opened.cwd !== "" ? { cwd: opened.cwd } : {}),
    },
  };
}
