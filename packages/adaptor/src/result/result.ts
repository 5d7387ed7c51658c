import { AdaptorError } from "@adaptor/errors";
import type { ModelUsage, PermissionDenial, PolicyEnforcement, RawStreams, TranscriptItem, Usage } from "@adaptor/driver";
import { boundToolName, TOOL_NAME_MAX_LENGTH } from "@adaptor/driver/kit";
import { formatIssues } from "@adaptor/tool/internal";
import type { PendingApproval } from "@adaptor/threadstore";
import { StructuredOutput } from "../structured-output/structured-output.js";

/** Fields a {@link Result} is built from. */
export interface ResultInit {
  /** UUID v7 of the run. */
  readonly runId: string;
  /** Model the CLI reported, when it did. */
  readonly model?: string | undefined;
  /** Model provider the CLI reported, when it did. */
  readonly provider?: string | undefined;
  /** Final assistant text. */
  readonly text: string;
  /** The CLI's own id of the conversation (the checkpoint's resume id), when the run produced one. */
  readonly sessionId?: string | undefined;
  /** Token counts, when the CLI reported them. */
  readonly usage?: Usage | undefined;
  /** Cost in US dollars of this run's own turn, when the CLI reported it (see {@link Result.costUsd}). */
  readonly costUsd?: number | undefined;
  /** Wall-clock duration of the run in ms. */
  readonly durationMs: number;
  /** Model responses of the main conversation (see {@link Result.numTurns}). */
  readonly numTurns?: number | undefined;
  /** Time the run's model API requests took in ms (see {@link Result.durationApiMs}). */
  readonly durationApiMs?: number | undefined;
  /** Usage and cost per model (see {@link Result.modelUsage}). */
  readonly modelUsage?: Readonly<Record<string, ModelUsage>> | undefined;
  /** Tool calls the permission checks refused (see {@link Result.permissionDenials}). */
  readonly permissionDenials?: readonly PermissionDenial[] | undefined;
  /** The natively enforced structured value, when the CLI returned one. */
  readonly structured?: unknown;
  /** Everything the CLI wrote on stdout and stderr. */
  readonly raw: RawStreams;
  /**
   * The driver-parsed transcript, in order. Copied when the Result is made; when it is a getter,
   * read once, when {@link Result.transcript} is first called (a long turn's items may be made
   * only then).
   */
  readonly transcript: readonly TranscriptItem[];
  /** Set when the turn suspended: the approval it stored (see {@link Result.pendingApproval}). */
  readonly pendingApproval?: PendingApproval | undefined;
  /** Set when the host interrupted the turn (`stream.interrupt()`). */
  readonly interrupted?: boolean | undefined;
  /** How the run's policy was enforced (see {@link Result.enforcement}). Default none. */
  readonly enforcement?: readonly PolicyEnforcement[] | undefined;
}

/**
 * What a run produced. Resolved on success; carried (partial) by `RunError.result` on a business
 * failure. Immutable.
 */
export class Result {
  /** UUID v7 of the run. */
  readonly runId: string;
  /**
   * Model the CLI reported using, e.g. `"claude-sonnet-4-5"`: it may differ from the run's `model`
   * option (an alias resolved, a retired id replaced), which a `notice` of kind `model.resolved` or
   * `model.substituted` then reports. Claude: the model of the turn's last model response, the one
   * that gave the answer (after a `stream.setModel` during the turn, earlier responses may come from
   * the previous model: each `model.response` notice's `data.model` names its own).
   */
  readonly model: string | undefined;
  /** Provider, e.g. `"anthropic"`. */
  readonly provider: string | undefined;
  /** Final assistant text: never stdout, never the terminal JSON. */
  readonly text: string;
  /**
   * The CLI's own id of the conversation this run continued or started, the one its session files
   * and logs are named by: Claude's `session_id` (the transcript
   * `$CLAUDE_CONFIG_DIR/projects/<cwd>/<id>.jsonl`), Codex's thread id (the rollout
   * `$CODEX_HOME/sessions/…/rollout-…-<id>.jsonl`), an ACP agent's `sessionId`. It is the id a
   * thread's checkpoint resumes by (`(await thread.checkpoint())?.checkpoint.resumeId`), so it is
   * the same across the turns of a thread the CLI resumes in place (Claude, Codex), and new for a
   * fork. `undefined` when the driver reported no checkpoint for the run: a business failure (a
   * `RunError`'s partial Result), or a driver that reports none.
   */
  readonly sessionId: string | undefined;
  /**
   * Token usage; `undefined` when the CLI reported none, zeros when it reported zeros. An
   * interrupted turn (`status` `"interrupted"`) counts the model responses it completed: zeros when
   * it completed none (Claude Code and Codex alike).
   */
  readonly usage: Usage | undefined;
  /**
   * Cost in US dollars of this run's own turn, when the CLI reports it: on a thread each turn
   * reports its own cost, never the conversation's running total (Claude Code reports a running
   * total; its driver reports the turn's share, including turns the CLI ran by itself since the
   * previous prompt). `undefined` when the CLI reports none or the turn's share cannot be known.
   */
  readonly costUsd: number | undefined;
  /** Wall time of the run in ms, from start to verdict. */
  readonly durationMs: number;
  /**
   * How many model responses the main conversation got in this run (the Claude Agent SDK's
   * `num_turns`): one per `notice` of kind `model.response`, what `budget.maxTurns` counts; a
   * subagent's responses are not counted. Claude Code: its result's `num_turns`. Codex app-server:
   * its usage updates, one per model response. `undefined` where the driver cannot count them
   * (Codex exec, ACP agents).
   */
  readonly numTurns: number | undefined;
  /**
   * Time in ms the run's model API requests took (the Claude Agent SDK's `duration_api_ms`), for
   * this run alone: Claude Code reports the session's running total, whose growth over the run this
   * is. `undefined` when the CLI reports none (Codex, ACP agents) or the run's share cannot be
   * known: the first turn of a resumed session on a new process, whose running total was restored;
   * a `/compact` turn, whose result reports none (the next turn's then includes its API time).
   */
  readonly durationApiMs: number | undefined;
  /**
   * This run's token counts and cost per model id (the Claude Agent SDK's `modelUsage`, for this run
   * alone rather than the session): a subagent or a fallback model that answered part of the run
   * has its own entry. Claude Code: from its per-turn model usage, every model request of the run
   * included (a subagent's, a `/compact` summary's), so the entries may add up to more than
   * {@link usage}, which counts the main conversation. `undefined` when the CLI reports no usage per
   * model (Codex reports the turn's usage only: see {@link usage} and {@link model}; ACP agents).
   */
  readonly modelUsage: Readonly<Record<string, ModelUsage>> | undefined;
  /**
   * The tool calls the run's permission checks refused, in order (the Claude Agent SDK's
   * `permission_denials`): the tool's name, its call id and the input it was given, as on its
   * `tool-call` event. An empty list when none was. Claude Code: every call its permission checks
   * refused, the host's denials (`onApproval`, `auto_deny`) and its own rules' alike, host tools'
   * (`defineTool`, named as the model called them, e.g. `mcp__adaptor__lookup`) too. Codex
   * app-server: every command, file change and MCP tool call codex asked about that the host's
   * decision refused (`onApproval`, `auto_deny`, an approval that expired), in the order they were
   * decided. `undefined` where the driver cannot know: Codex exec (it asks nothing; codex refuses by
   * its own sandbox and approval policy and does not report which calls) and ACP agents (their
   * `approval.resolved` notices with `data.outcome` `denied` list the host's). On a `RunError`
   * the SDK gave as it stopped the run (an approval denied with the `abort` fallback or timed out,
   * a budget), the driver's list with each call whose approval the host refused added: the call
   * the run stopped at is listed, also for an ACP agent.
   */
  readonly permissionDenials: readonly PermissionDenial[] | undefined;
  /**
   * `"completed"`: the run finished. `"suspended"`: a thread turn run with the `suspend` option
   * stopped to wait for an approval; nothing was committed, the CLI was ended and the lease
   * released, and {@link pendingApproval} is the stored question. Answer it, from any host, with
   * `thread.answer(result.pendingApproval.id, decision)`; `text`, `usage` and the transcript cover
   * only what ran before the suspension. `"interrupted"`: the host interrupted the turn
   * (`stream.interrupt()`); `text`, `usage` and the transcript are what it did until then, and a
   * thread committed it as its checkpoint.
   */
  readonly status: "completed" | "suspended" | "interrupted";
  /** The stored approval a suspended turn waits for; `undefined` when `status` is `"completed"`. */
  readonly pendingApproval: PendingApproval | undefined;
  /**
   * Which explicitly requested parts of the run's policy were enforced, and by what mechanism (a CLI
   * flag, a CLI setting, a hook, the approval broker, a host capability, an agent mode, the SDK), and
   * which were not: one {@link PolicyEnforcement} per field the run set (`sandbox`, `webSearch`,
   * `browser`, each approval kind other than `inherit`, `activeExecutionTimeoutMs`). Empty for a run
   * without an explicit policy, or whose driver reported nothing. An entry with `enforced: false`
   * appears only when the driver was told to accept best effort (the ACP and Codex drivers' `bestEffortPolicy`);
   * otherwise a value a driver cannot enforce is refused before launch.
   */
  readonly enforcement: readonly PolicyEnforcement[];
  readonly #structured: unknown;
  readonly #raw: RawStreams;
  /** The frozen transcript once read; until then, where it is read from. */
  #transcript: readonly TranscriptItem[] | undefined;
  #transcriptFrom: (() => readonly TranscriptItem[]) | undefined;

  constructor(init: ResultInit) {
    this.runId = init.runId;
    this.model = init.model;
    this.provider = init.provider;
    this.text = init.text;
    this.sessionId = init.sessionId;
    this.usage = init.usage ? Object.freeze({ ...init.usage }) : undefined;
    this.costUsd = init.costUsd;
    this.durationMs = init.durationMs;
    this.numTurns = init.numTurns;
    this.durationApiMs = init.durationApiMs;
    this.modelUsage = init.modelUsage
      ? Object.freeze(Object.fromEntries(Object.entries(init.modelUsage).map(([model, usage]) => [model, Object.freeze({ ...usage })])))
      : undefined;
    this.permissionDenials = init.permissionDenials
      ? Object.freeze(init.permissionDenials.map((denial) => Object.freeze({ ...denial })))
      : undefined;
    this.pendingApproval = init.pendingApproval;
    this.enforcement = Object.freeze(
      (init.enforcement ?? []).map((entry) => Object.freeze({ ...entry, mechanisms: Object.freeze([...entry.mechanisms]) })),
    );
    this.status = init.pendingApproval ? "suspended" : init.interrupted === true ? "interrupted" : "completed";
    this.#structured = init.structured;
    // Own getters (a driver's raw text decoded when first read) are carried over, not read.
    this.#raw = Object.freeze(Object.defineProperties({}, Object.getOwnPropertyDescriptors(init.raw)) as RawStreams);
    // A getter is read on the first transcript() call: a long turn's items may be made only then.
    const read = Object.getOwnPropertyDescriptor(init, "transcript")?.get;
    if (read) this.#transcriptFrom = () => read.call(init) as readonly TranscriptItem[];
    else this.#transcript = frozenItems(init.transcript);
  }

  /**
   * Full stdout and stderr of the CLI (each its last `maxRawBytes`, with the byte counts and
   * truncation flags) and its official terminal line (`{ event, json }`). A driver may hand the
   * streams over undecoded: their text is then decoded when `stdout` / `stderr` is first read, and
   * until then the bytes wait in a temporary file with no name on disk (one open descriptor, closed
   * at that first read, when the Result is collected, or when the Agent that ran it closes:
   * `agent.close()` reads the text into memory then, at most `maxRawBytes` per stream, so `raw()`
   * still gives the whole output after it). The text is the same either way. A driver may redact
   * the credentials it handed the CLI: the built-in ones (Claude Code, Codex, ACP agents, the
   * one-shot CLIs) show each value of the CLI's credential-named environment variables (names
   * containing `KEY`, `TOKEN`, `SECRET`, `PASS`, `CREDENTIAL` or `AUTH`), of the MCP servers'
   * headers and of stdio servers' credential-named `env` (8 characters or more) as `[redacted]`,
   * also where the CLI repeats its MCP configuration (Claude Code's answer to the SDK's
   * `mcp_status` request), and the end of one the `maxRawBytes` bound cut at the start (8
   * characters or more); only the redacted text is kept once read. The same values read
   * `[redacted]` in the run's `process` events of kind `stderr`, which then carry whole lines (a
   * line without its end yet, such as a prompt, after 250 ms, as a cut one).
   * The byte counts are those the CLI wrote.
   */
  raw(): RawStreams {
    return this.#raw;
  }

  /** A copy of the driver-parsed transcript items, in order (a `toolName` cut to 200 characters, as on the events). */
  transcript(): TranscriptItem[] {
    if (this.#transcript === undefined) {
      this.#transcript = frozenItems(this.#transcriptFrom?.() ?? []);
      this.#transcriptFrom = undefined;
    }
    return [...this.#transcript];
  }

  /**
   * The checked structured answer, for a run with a schema (`schema` / `schemaJSON`): source,
   * validity, value and the validation errors. `undefined` for a run without a schema.
   */
  get structuredOutput(): StructuredOutput | undefined {
    return this.#structured instanceof StructuredOutput ? this.#structured : undefined;
  }

  /**
   * The final answer as a JSON value. With a schema: the validated value only (zod's parsed output
   * for a zod schema). Without one: the natively enforced structured value when the CLI returned
   * one, else `JSON.parse(text)`.
   * @throws AdaptorError when the run had a schema and its value is missing or invalid (the
   *   message lists the validation errors; see {@link structuredOutput}), or, without a schema,
   *   with the `SyntaxError` as `cause` when the text is not one JSON value.
   */
  decode<T = unknown>(): T {
    const checked = this.structuredOutput;
    if (checked) {
      if (checked.valid) return checked.value as T;
      throw new AdaptorError(
        `result ${this.runId}: structured output (${checked.source}) is ${checked.present ? "invalid" : "missing"}: ${formatIssues(checked.errors)}`,
      );
    }
    if (this.#structured !== undefined) return this.#structured as T;
    try {
      return JSON.parse(this.text) as T;
    } catch (cause) {
      throw new AdaptorError(`result ${this.runId}: final text is not a JSON value`, { cause });
    }
  }
}

/**
 * The items as a frozen list; an item the driver froze as it made it is kept as it is (a long turn
 * has one per message), unless its `toolName` is longer than 200 characters: it is cut to its first 200.
 */
function frozenItems(items: readonly TranscriptItem[]): readonly TranscriptItem[] {
  return Object.freeze(
    items.map((item) => {
      // A tool name is the model's (or an ACP agent's title) text: cut as on every event naming it.
      const long = typeof item.toolName === "string" && item.toolName.length > TOOL_NAME_MAX_LENGTH;
      if (long) return Object.freeze({ ...item, toolName: boundToolName(item.toolName!) });
      return Object.isFrozen(item) ? item : Object.freeze({ ...item });
    }),
  );
}
