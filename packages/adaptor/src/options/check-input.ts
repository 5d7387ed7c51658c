import { checkOptions, InvalidOptionError } from "@adaptor/errors";
import type { AgentOptions, RunOptions } from "./run-options.js";
import {
  AGENT_ONLY_HINTS,
  AGENT_OPTIONS_SHAPE,
  RUN_ONLY_HINTS,
  PREWARM_OPTIONS_SHAPE,
  RUN_OPTIONS_SHAPE,
  THREAD_OPTIONS_SHAPE,
} from "./option-shapes.js";
import { copyOptionData } from "./copy-option-data.js";
import { PEER_OPTION_HINTS } from "./peer-names.js";

/** Options of `agent.thread(key, options)`. */
export interface ThreadOptions {
  /** Fail the first run with `ErrThreadNotFound` instead of starting a conversation. Default false. */
  readonly resumeOnly?: boolean;
  /**
   * Adopt a conversation the CLI already has (one an app made without adaptor, or before it used
   * adaptor): the CLI's own id of it, as `Result.sessionId` reports it (Claude: the
   * `session_id` of its messages and `--resume`; Codex: the thread id of `thread.id` / `codex exec
   * resume`). When `key` has no conversation yet, the first run continues that session instead of
   * starting one, and its commit makes it an ordinary thread: later turns, `fork`, and (with
   * portable sessions) other hosts restoring it from the store. When `key` already holds that
   * same session (an earlier adoption), the run simply continues it; when it holds another one, the
   * run fails with `ErrThreadAlreadyExists` and nothing changes.
   *
   * The session must be in this host's CLI home for the run's working directory: Claude's
   * `CLAUDE_CONFIG_DIR` (default `~/.claude`) under the project folder of `cwd`, Codex's
   * `CODEX_HOME` (default `~/.codex`). An id the CLI cannot find there (a wrong id, another
   * working directory, config dir or home) fails the run with `ErrResumeRejected` (a thread error),
   * before or when the CLI starts; never a fresh conversation. A driver that cannot find its CLI's
   * sessions by id (ACP agents) refuses the run with `FeatureUnsupportedError` (feature
   * `adoptSession`). Not with `resumeOnly`. Non-empty, no NUL. Default: none.
   */
  readonly adoptSession?: string;
}

/**
 * Checks the options of `new Agent(driver, options)` and returns a frozen snapshot whose data
 * (`env`, `metadata`, `policy`, the `skills`, `mcpServers` and `tools` lists) is copied: changing
 * the caller's objects afterwards changes no run.
 * @throws InvalidOptionError (subject `"Agent options"`) naming the field: see {@link checkRunOptions}.
 */
export function checkAgentOptions(options: unknown): AgentOptions {
  return copyOptionData(
    checkOptions<AgentOptions>("Agent options", options, AGENT_OPTIONS_SHAPE, { elsewhere: RUN_ONLY_HINTS, hints: PEER_OPTION_HINTS }),
  );
}

/**
 * Checks the options of one `agent.run()` / `agent.stream()` / `thread.run()` call and returns a
 * frozen snapshot (each option read once, its data copied as the Agent's). `undefined` and `null`
 * mean none.
 * @throws InvalidOptionError (subject `"run options"`) naming the field: an unknown key (with the
 * closest known one suggested, or where an Agent-only key belongs), a getter that throws, a value
 * of the wrong type, an empty `model` or `cwd`, a string holding NUL or a lone UTF-16 surrogate, a
 * `timeoutMs` that is not a number of ms in [0, 2^31-1] or Infinity.
 */
export function checkRunOptions(options: unknown): RunOptions {
  return copyOptionData(
    checkOptions<RunOptions>("run options", options, RUN_OPTIONS_SHAPE, {
      allowNull: true,
      elsewhere: AGENT_ONLY_HINTS,
      hints: PEER_OPTION_HINTS,
    }),
  );
}

/**
 * Checks the options of `agent.prewarm(options)` (the run options plus `count`, a positive
 * integer) and returns a frozen snapshot. `undefined` and `null` mean none.
 * @throws InvalidOptionError (subject `"prewarm options"`) naming the field.
 */
export function checkPrewarmOptions(options: unknown): RunOptions & { readonly count?: number } {
  return copyOptionData(
    checkOptions<RunOptions & { readonly count?: number }>("prewarm options", options, PREWARM_OPTIONS_SHAPE, {
      allowNull: true,
      elsewhere: AGENT_ONLY_HINTS,
      hints: PEER_OPTION_HINTS,
    }),
  );
}

/**
 * Checks the options of `agent.thread(key, options)`.
 * @throws InvalidOptionError (subject `"thread options"`) naming the field.
 */
export function checkThreadOptions(options: unknown): ThreadOptions {
  const checked = checkOptions<ThreadOptions>("thread options", options, THREAD_OPTIONS_SHAPE);
  if (checked.adoptSession !== undefined && checked.resumeOnly === true)
    throw new InvalidOptionError({
      subject: "thread options",
      field: "adoptSession",
      reason: "cannot be combined with resumeOnly (an adoption starts from the CLI's session when the key has none)",
    });
  return checked;
}
