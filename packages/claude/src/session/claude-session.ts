import { randomUUID } from "node:crypto";
import type {
  ApprovalDecision,
  DriverEvent,
  DriverSink,
  HookAnswer,
  HookAsk,
  HookPoint,
  McpServerState,
  PromptImage,
  ToolHookPoint,
  Usage,
} from "@adaptor/driver";
import { DriverError, ErrCode } from "@adaptor/errors";
import {
  approvalModeNotice,
  BACKGROUND_ENDED_MESSAGE,
  endTurnBackground,
  exitOrTerminate,
  InterruptEscalation,
  raceAbort,
  resultUsage,
  StreamJsonTurn,
  elicitationResult,
  toApprovalAsk,
  toPermissionAnswer,
  type CanUseToolRequest,
  type PooledProcess,
  type ResultLine,
} from "@adaptor/driver/kit";
import { descendantBaseline, type CapturedOutput, type CliProcess, type ExitInfo, type OutputLine } from "@adaptor/driver/process";
import type { Launch } from "../launch/launch.js";
import { READ_ONLY_TOOLS } from "../launch/policy.js";
import { PLAN_EXIT_TOOL, PLAN_MODE_ASKABLE, PLAN_MODE_DENIAL } from "../launch/plan-mode.js";
import { STRUCTURED_OUTPUT_TOOL } from "../protocol/structured-attempt.js";
import { hookOutput, hookRegistrations, hookResponse, readHookCallback } from "../protocol/hooks.js";
import {
  ASK_EVERY_TOOL_HOOK,
  initializeRequest,
  controlError,
  interruptRequest,
  permissionResponse,
  preToolUseAnswer,
  userLine,
} from "../protocol/messages.js";
import { ofOtherSession } from "../protocol/other-session.js";
import { elicitationControlAsk, elicitationOf, elicitationResponse, type ElicitationControlRequest } from "../protocol/elicitation.js";
import { attribute } from "../protocol/turn-attribution.js";
import { CLAUDE_TOOL_ALIASES, FOREGROUND_AGENT_HOOK, foregroundAgentAnswer, inForeground } from "../protocol/foreground-agents.js";
import { roundCost, turnCostUsd, type CostBaseline } from "../protocol/turn-cost.js";
import { apiTimeTotal, turnReport, type TurnReport } from "../protocol/turn-report.js";
import {
  checkMcpStoppedBeforeReport,
  mcpStatusNotice,
  readMcpStatus,
  requiredMcpError,
  withMcpStatusAnswer,
} from "../protocol/mcp-status.js";
import { checkModel, checkModelFallback, oncePerDifference, reportModel, sameModel } from "../protocol/model-check.js";
import { TextDeltaLineReader } from "../protocol/text-delta-line.js";
import { parseLine, StdoutLines } from "./stdout-lines.js";
import { ControlAnswers } from "./control-answers.js";
import { trackBackgroundTask } from "./background-tasks.js";
import { addUsage, cliOwnUsage, type CliOwnUsage } from "./cli-own-turns.js";

/**
 * True for a `result` line of a turn the CLI started by itself, answering none of the host's
 * prompts: it names the turn's `origin` (e.g. `{"kind":"task-notification"}` after a background
 * task ended), which a turn started by a prompt does not carry.
 */
function startedByCli(message: Record<string, unknown>): boolean {
  return typeof message.origin === "object" && message.origin !== null;
}

/** A host hook's `updatedInput` for a delegation (the Agent tool) keeps it in the foreground. */
function foregroundEdit(ask: HookAsk, answer: HookAnswer): HookAnswer {
  if (ask.point !== "beforeToolCall" || answer.updatedInput === undefined) return answer;
  return { ...answer, updatedInput: inForeground(ask.toolName, answer.updatedInput) as Readonly<Record<string, unknown>> };
}

/**
 * `ask`, about a tool call, with the delegation's tool call id when a subagent makes the call: the CLI's
 * `can_use_tool` request and hook callback name only the subagent (`agentId`, their `agent_id`).
 * The call's own line carries `parent_tool_use_id` when it was read before; else (a hook callback
 * comes before the call's line when no approval is asked) the subagent's `task_started` line,
 * read when it started, names its delegation.
 */
function withParent<T extends object>(ask: T, turn: StreamJsonTurn, agentId?: unknown): T {
  const id = (ask as { toolCallId?: unknown }).toolCallId;
  if (typeof id !== "string") return ask; // not about a tool call
  const parent = turn.parentToolCallId(id) ?? (typeof agentId === "string" ? turn.delegationOf(agentId) : undefined);
  return parent === undefined ? ask : { ...ask, parentToolCallId: parent };
}

/**
 * How long a turn ending on a required MCP server not connected waits for Claude Code's answer to
 * `mcp_status` (the server's reason), in ms: it answers at once; without an answer the turn fails
 * without the reason.
 */
const MCP_REASON_WAIT_MS = 10_000;

/** How long what a turn left running below the CLI may take to end by itself before it is ended, in ms. */
const BACKGROUND_SETTLE_MS = 500;

/** How one turn on a {@link ClaudeSession} ended. */
export interface TurnOutcome {
  readonly turn: StreamJsonTurn;
  /** stdout and stderr written during this turn only (bounded tails plus byte counts). */
  readonly output: CapturedOutput;
  /** Set when the process ended; undefined while it stays alive for the next turn. */
  readonly exit: ExitInfo | undefined;
  /** Cost in US dollars of this turn alone; undefined when its share of the session's running total cannot be known. */
  readonly costUsd: number | undefined;
  /** True when the host interrupted the turn and the CLI ended it for that (not a failure). */
  readonly interrupted: boolean;
  /**
   * Turns the CLI ran by itself on this process since the host's previous turn (a background
   * task's notification), whose results this turn read: their usage and cost, which
   * {@link costUsd} includes and the turn's reported usage should too.
   */
  readonly cliOwn?: CliOwnUsage;
  /**
   * Usage of the turn's earlier parts: a message the host sent that the CLI took in only after the
   * turn's result, answered in a turn of its own that this run read on. {@link costUsd} includes
   * their cost; the turn's reported usage should include this.
   */
  readonly partsUsage?: Usage;
  /** What the turn's result lines report beyond text, usage and cost (model responses, API time, usage per model, denials). */
  readonly report: TurnReport;
}

/** Awaited between two lines of a batch: one turn of the microtask queue, for the host's loop. */
const ONE_TURN = Promise.resolve();

/**
 * The next stdout line of a turn that is not a text delta, its text; undefined once stdout ended.
 * With `deltas` (the turn has begun), each text delta met on the way is handed to `turn` and
 * skipped. One await per line, as with `lines()`: the host's loop takes its events in step, so its
 * queue stays short.
 */
async function nextLine(
  lines: StdoutLines,
  deltas: TextDeltaLineReader | undefined,
  turn: StreamJsonTurn,
  sessionId?: string,
): Promise<string | undefined> {
  for (;;) {
    let text = lines.take();
    if (text !== undefined) await ONE_TURN;
    else if (await lines.fill()) text = lines.take();
    else return undefined;
    if (text === undefined) continue;
    const delta = deltas?.read(text, sessionId);
    if (delta === undefined) return text;
    turn.textDelta(delta);
  }
}

/** The answer the CLI gets for an approval request that arrives after its turn's result. */
const LATE_APPROVAL_DENIAL = "the turn this request belongs to has already ended";

/** A `control_response` line as far as {@link ClaudeSession.reportedVersion} reads it. */
interface ControlResponseLine {
  readonly type?: unknown;
  readonly response?: { readonly subtype?: unknown; readonly request_id?: unknown; readonly response?: Record<string, unknown> | null };
}

/**
 * One live claude process in stream-json mode and the files it was launched with. Serves turns
 * one at a time (a user line in, lines out until the `result` line); the process either stays
 * alive for the next turn of its session or is ended. Its launch files live as long as it does.
 *
 * Turn isolation: each prompt goes in with its own id, which the CLI tags the turn's lines with.
 * On a reused process, lines that arrive before the new turn begins (the `init` line or the first
 * line tagged with its id), and tagged lines of another prompt, are an earlier turn's late output:
 * they never reach the new turn's events, transcript or usage, and a late approval request is
 * denied to the CLI at once without asking the host. A stream event naming another session than
 * the turn's is dropped too, and counted in a notice.
 */
export class ClaudeSession implements PooledProcess {
  readonly proc: CliProcess;
  readonly signature: string;
  readonly #launch: Launch;
  readonly #lines: StdoutLines;
  /** Reads the text-delta lines of a turn without parsing them. */
  readonly #deltaLines = new TextDeltaLineReader();
  readonly #graceMs: number;
  /** The process started a new session (no `--resume`), so its running cost began at 0 here. */
  readonly #freshSession: boolean;
  #closed: Promise<void> | undefined;
  #exited = false;
  /** Result lines this process has written (turns served). */
  #results = 0;
  /** `total_cost_usd` of the last result line on this process. */
  #lastTotalCost: number | undefined;
  /** `duration_api_ms` of the last result line on this process that reported the running total. */
  #lastApiTotal: number | undefined;
  /** The session id the CLI reported last. */
  sessionId: string | undefined;
  /** `uuid` of the last conversation message of the last turn this process completed successfully. */
  lastMessageId: string | undefined;

  /**
   * The model last asked for on this process: its `--model`, then the model of each `set_model`
   * request written to it (a turn's model differences are judged against it).
   */
  #requestedModel: string | undefined;

  /** Tool-name prefixes (`mcp__<server>__`) of trusted MCP servers, never asked for by the every-tool hook. */
  readonly #trustedPrefixes: string[];

  /**
   * @param askForEveryTool - register the `PreToolUse` hook that makes the CLI ask the host for
   * every tool call (written before the first prompt, so it covers every turn of the process).
   * @param hooks - the hook points whose CLI hooks call the host's (`DriverSink.hook`), registered the same way.
   * @param hookMatchers - per tool hook point of `hooks`, its groups' matchers in order (each the CLI's
   *   own hook matcher); a point absent here has one group, for every tool.
   */
  constructor(
    proc: CliProcess,
    launch: Launch,
    signature: string,
    graceMs: number,
    freshSession: boolean,
    askForEveryTool = false,
    hooks: readonly HookPoint[] = [],
    hookMatchers: Readonly<Partial<Record<ToolHookPoint, readonly string[]>>> = {},
  ) {
    this.proc = proc;
    this.#launch = launch;
    this.signature = signature;
    this.#graceMs = graceMs;
    this.#freshSession = freshSession;
    this.#trustedPrefixes = (launch.mcpServers ?? []).filter((server) => server.trusted).map((server) => `mcp__${server.name}__`);
    this.#lines = new StdoutLines(proc);
    this.#requestedModel = launch.model;
    void proc.exited.then(() => (this.#exited = true));
    // Under ask / auto_deny the hook also guards every process against settings files' allow rules.
    this.#askHook = askForEveryTool || launch.guardAllowRules === true;
    this.#askReadTools = askForEveryTool;
    this.#holdHook = launch.holdToolCalls === true;
    this.#planning = launch.modeAfterPlan !== undefined;
    this.#hooks = hooks;
    this.#hookMatchers = hookMatchers;
  }

  /** Where the process runs: its working directory and environment (which hold its CLI home). */
  get place(): Pick<Launch, "cwd" | "env"> {
    return { cwd: this.#launch.cwd, env: this.#launch.env };
  }

  /** The hook points registered with the process's `initialize` request. */
  readonly #hooks: readonly HookPoint[];
  /** The matchers of the tool hooks of {@link #hooks}. */
  readonly #hookMatchers: Readonly<Partial<Record<ToolHookPoint, readonly string[]>>>;

  /** Register the every-tool `PreToolUse` hook with the process's `initialize` request (`askForEveryTool`, or an ask / auto_deny run). */
  readonly #askHook: boolean;
  /**
   * Register the every-tool `PreToolUse` hook for a tool-call budget (`Launch.holdToolCalls`): the
   * CLI runs no call before the driver answered it, by which time the call's `tool-call` start was
   * reported (it comes first on stdout); a call reported to a run already stopped is never answered.
   */
  readonly #holdHook: boolean;
  /**
   * The hook asks about the read tools too (`askForEveryTool`); else it leaves them to the CLI's
   * defaults, but for a call a deny rule of the run names (`DriverSink.ruleDenies`), which it asks about.
   */
  readonly #askReadTools: boolean;
  /**
   * The turn started in plan mode and no plan was approved yet: every ask but a read, a question
   * and ExitPlanMode is denied without asking ({@link PLAN_MODE_ASKABLE}), so nothing changes
   * before the host approves the plan.
   */
  #planning: boolean;
  /**
   * The CLI reports each prompt's lifecycle (`command_lifecycle` `queued`, `started`): a turn then
   * starts with its prompt's `started` line, never with an untagged `init` (which may open a turn
   * the CLI runs by itself).
   */
  #reportsLifecycle = false;
  /** The CLI reported its MCP servers' status (an init line listing them) at least once. */
  #mcpReported = false;
  /** Background tasks (Bash `run_in_background`, subagents) the CLI reported started and not yet ended. */
  readonly #backgroundTasks = new Set<string>();

  /**
   * Stops, with the CLI's own `stop_task` control request, every background task a turn left
   * running, and waits for each answer; a `lifecycle` notice lists them. (Killed any other way, a
   * task is reported to the model as failed and the CLI starts a model turn of its own about it.)
   */
  async #stopBackgroundTasks(sink: DriverSink, signal: AbortSignal): Promise<void> {
    const taskIds = [...this.#backgroundTasks];
    if (taskIds.length === 0) return;
    sink.emit({ type: "notice", kind: "lifecycle", message: BACKGROUND_ENDED_MESSAGE, data: { taskIds, count: taskIds.length } });
    for (const taskId of taskIds) {
      this.#backgroundTasks.delete(taskId);
      const requestId = `adaptor_stop_${randomUUID()}`;
      this.proc
        .writeJson({ type: "control_request", request_id: requestId, request: { subtype: "stop_task", task_id: taskId } })
        .catch(() => undefined);
      await raceAbort(this.#awaitControlResponse("stop_task", requestId), signal).catch(() => undefined);
    }
  }
  /** The `initialize` control request was written (by {@link initialize} or before the first turn). */
  #initializeSent = false;

  /** Whether the process was sent its `initialize` control request (by {@link initialize} or a turn). */
  get initialized(): boolean {
    return this.#initializeSent;
  }

  #initializeRequest(requestId: string): Record<string, unknown> {
    this.#initializeSent = true;
    return initializeRequest(requestId, this.#askHook || this.#holdHook, hookRegistrations(this.#hooks, this.#hookMatchers));
  }

  /** OS process id of the CLI. */
  get pid(): number {
    return this.proc.pid;
  }

  /** Lets the host exit while the process is parked (see `CliProcess.unref`). */
  unref(): void {
    this.proc.unref();
  }

  /** Holds the host again while the process serves a turn. */
  ref(): void {
    this.proc.ref();
  }

  /** Where the conversation stands for reuse: {@link lastMessageId}. */
  get version(): string | undefined {
    return this.lastMessageId;
  }

  /** True while the process can take another turn. */
  get usable(): boolean {
    return this.#closed === undefined && !this.#exited;
  }

  /**
   * False once a turn told the CLI to ask about calls its launch runs unasked (a host's
   * `setApprovalMode` to `ask` or `auto_deny` on a process launched under `bypassPermissions` or
   * a settings file's mode). The CLI stays in that mode, and it has none meaning "the settings
   * files' mode" to go back to: such a process serves no later turn, which runs in a fresh process
   * launched under its own policy.
   */
  get keepsLaunchMode(): boolean {
    return !this.#permissionModeSwitched;
  }

  /** A `set_permission_mode` request was written to the process (see {@link keepsLaunchMode}). */
  #permissionModeSwitched = false;

  /**
   * Runs one turn. With `keepAlive`, a clean success leaves the process running (stdin open);
   * otherwise, after the result, stdin is closed, the CLI gets the grace to exit on its own, then
   * SIGTERM and SIGKILL: the verdict is the result already received. On `signal` abort the CLI's own
   * interrupt goes first, then SIGTERM/SIGKILL after the grace.
   *
   * A `signal` aborted before the prompt is written ends the turn without writing it: an interrupt
   * that reaches the CLI before its prompt stops nothing (claude 2.1.332 then runs the prompt's
   * whole turn), and a signal aborted before the turn began starts no interrupt at all; either way
   * the turn's tool calls would wait unanswered at the every-tool hook (see {@link #holdHook}) until
   * the process is ended.
   *
   * @param model - the model the turn names (the run's `model`): when the process was switched to
   * another one (`set_model` in an earlier turn), it is switched back before the prompt. Undefined:
   * the turn runs on the model the process is on.
   * @throws `signal.reason` when aborted before the prompt was written (the process is ended).
   */
  async runTurn(
    prompt: string,
    sink: DriverSink,
    signal: AbortSignal,
    keepAlive: boolean,
    images?: readonly PromptImage[],
    model?: string,
  ): Promise<TurnOutcome> {
    const proc = this.proc;
    proc.takeOutput(); // drop what came between turns: the turn's raw output starts here
    const turn = new StreamJsonTurn((event) => sink.emit(event), { toolAliases: CLAUDE_TOOL_ALIASES });
    // Interrupt first; SIGTERM/SIGKILL only if the CLI has not exited within the grace.
    const cancel = new InterruptEscalation(proc, {
      graceMs: this.#graceMs,
      interrupt: () => {
        proc.writeJson(interruptRequest(`interrupt_${Date.now()}`)).catch(() => undefined);
        return true;
      },
    });
    const onAbort = (): void => cancel.start();
    signal.addEventListener("abort", onAbort, { once: true });
    const promptId = randomUUID();
    // Every user line of this turn: its prompt and the messages the host sent into it.
    const promptIds = new Set([promptId]);
    /** Messages the host sent into the turn, by their line's uuid, until the CLI takes them in. */
    const sent = new Map<string, string>();
    /** The turn's last `result` line was read: later requests of the host reach no turn. */
    let closed = false;
    /**
     * Results of the turn's parts that ended before the CLI took in a message the host sent: the
     * CLI answers such a message in a turn of its own right after, which this run reads on.
     */
    const parts: { line: ResultLine; json: string }[] = [];
    const answers = new ControlAnswers();
    /** Reports the MCP servers the CLI did not answer `mcp_status` for yet, without their errors. */
    let flushMcp: (() => void) | undefined;
    let interruptedByHost = false;
    /** The turn ended as the host's interrupt ends it (set once its last line was read). */
    let endedByInterrupt = false;
    const late = new LateOutput(sink, proc);
    // Stream events naming another session than the turn's (a misbehaving CLI): never this turn's text.
    const otherSession = new LateOutput(sink, proc, "of another session");
    // Results of turns the CLI ran by itself before this one began: not this turn's, but their usage counts.
    const ownResults: ResultLine[] = [];
    // The first turn of a process has no predecessor whose output could still arrive; a CLI that
    // reports its prompts' lifecycle starts the turn with its prompt's `started` line (see below).
    let begun = this.#results === 0 && !this.#reportsLifecycle;
    let detach: (() => void) | undefined;
    /** Settles what waits for the turn's `init` line (see below); called again as the turn ends. */
    let turnStarted: () => void = () => undefined;
    let ended = false;
    const baseline = {
      previousTotal: this.#lastTotalCost,
      previousApiTotal: this.#lastApiTotal,
      freshSession: this.#freshSession && this.#results === 0,
    };
    // What runs below the CLI now is not this turn's (the CLI's own helpers, a previous turn's).
    const running = await descendantBaseline(proc);
    try {
      // A dead child is classified from its exit; a failed write alone is no verdict.
      // The every-tool hook is registered before the first prompt (its answer is a control_response, skipped below).
      if (!this.#initializeSent) {
        proc.writeJson(this.#initializeRequest(`adaptor_init_${randomUUID()}`)).catch(() => undefined);
      }
      /** The model asked for when the last user line was written: the CLI starts its turn on it. */
      let lineModel = this.#requestedModel;
      // Each model difference is reported once, against the model last asked for.
      const reportModels = oncePerDifference((event) => sink.emit(event));
      // A process launched with `--model` goes back to it as it starts its first prompt: a switch
      // it applies meanwhile (it validates the model first, so possibly after reading the prompt)
      // is lost although answered, and asking the same again changes nothing (claude 2.1.332). A
      // switch asked for once the prompt went out waits for the turn's `init` line: it then
      // applies as one during the turn, to the requests after it.
      let started = !(this.#results === 0 && this.#launch.model !== undefined);
      const startedOrClosed = new Promise<void>((resolve) => (turnStarted = resolve));
      // A reused process a host's set_model switched away from the model this turn names goes back to it first.
      if (model !== undefined && this.#requestedModel !== undefined && !sameModel(model, this.#requestedModel)) {
        void this.#setModel(model, answers, turn, reportModels).catch(() => undefined);
      }
      // The controls come first: a model switch the host asked for before the turn started is
      // written ahead of the prompt, and the prompt waits for the CLI's answer, so the whole turn
      // runs on it; messages and interrupts follow the prompt. (claude 2.1.332 builds the first
      // request of a prompt it read before a switch on the model it was on.)
      let promptWritten: () => void = () => undefined;
      let promptIsWritten = false;
      const prompted = new Promise<void>((resolve) => (promptWritten = resolve));
      detach = sink.attachControl?.({
        interrupt: async () => {
          await prompted;
          if (closed) return false;
          interruptedByHost = true;
          const id = `adaptor_interrupt_${randomUUID()}`;
          const answered = answers.wait(id, "interrupt");
          await proc.writeJson(interruptRequest(id));
          // Unanswered when the turn ended: taken only if the interrupt is what ended it (not the
          // stall stop, a cancel, or the CLI exiting).
          return (await answered) !== null || endedByInterrupt;
        },
        send: async (text, images) => {
          await prompted;
          // The turn's result is in: a message written now would start a turn of its own.
          if (closed) return false;
          const id = randomUUID();
          promptIds.add(id);
          sent.set(id, text);
          lineModel = this.#requestedModel;
          await proc.writeJson(userLine(text, id, images));
          return true;
        },
        setModel: async (model) => {
          if (!started && promptIsWritten) await startedOrClosed;
          if (closed) return false;
          await this.#setModel(model, answers, turn, reportModels);
          // The result came first: the switch reached no model request of this turn.
          return !closed;
        },
        setApprovalMode: async (permission) => {
          if (closed) return false;
          const taken = (): void => sink.emit(approvalModeNotice(permission));
          // The CLI already asks about every call but the read tools (the every-tool hook, or its
          // `dontAsk` mode under read_only), or the SDK answers its asks: nothing to tell it.
          if (!(permission === "ask" || permission === "auto_deny") || this.#askHook || this.#launch.askableTools !== undefined) {
            taken();
            return true;
          }
          // Launched to run calls unasked (bypassPermissions, a settings file's mode): from the
          // CLI's answer on, it asks about every call no allow rule of the launch allows.
          const id = `adaptor_set_permission_mode_${randomUUID()}`;
          const answered = answers.wait(id, "set_permission_mode", taken);
          this.#permissionModeSwitched = true;
          await proc.writeJson({ type: "control_request", request_id: id, request: { subtype: "set_permission_mode", mode: "default" } });
          return (await answered) !== null;
        },
      });
      // The init line's MCP servers: reported at once when all are connected; otherwise once the
      // CLI answered `mcp_status` with their errors, or without them when the turn's result comes
      // first. (A required server not connected ends the turn: see #mcpErrors.)
      const reportMcp = (servers: readonly McpServerState[]): void => {
        if (servers.every((server) => server.status === "connected")) {
          sink.emit(mcpStatusNotice(servers, this.#launch.mcpCommandProblems));
          return;
        }
        let reported = false;
        const once = (list: readonly McpServerState[]): void => {
          if (reported) return;
          reported = true;
          flushMcp = undefined;
          sink.emit(mcpStatusNotice(list, this.#launch.mcpCommandProblems));
        };
        flushMcp = () => once(servers);
        const id = `adaptor_mcp_status_${randomUUID()}`;
        answers.wait(id, "mcp_status").then(
          (answer) => once(answer ? withMcpStatusAnswer(servers, answer) : servers),
          () => once(servers),
        );
        proc.writeJson({ type: "control_request", request_id: id, request: { subtype: "mcp_status" } }).catch(() => flushMcp?.());
      };
      // Requests the host made before the turn started are written now (they waited for the controls).
      await new Promise<void>((resolve) => setImmediate(resolve));
      await this.#awaitAnswers(answers, turn);
      if (signal.aborted) {
        // Nothing of the turn reached the CLI (an interrupt written meanwhile found it idle): it is ended.
        await proc.terminate();
        throw signal.reason;
      }
      proc.writeJson(userLine(prompt, promptId, images)).catch(() => undefined);
      lineModel = this.#requestedModel;
      promptIsWritten = true;
      promptWritten();
      // A text delta of the running turn is read without a parse. One await per line, as with
      // lines(): the host's loop takes its events in step, so its queue stays short.
      const deltaLines = this.#deltaLines;
      // The line at hand, let go before waiting for the next: a line is a slice of the stdout
      // chunk it came in, and this function may wait long after one (for an approval, for the
      // CLI), holding what its suspended frame holds.
      let text: string | undefined;
      let line: OutputLine | undefined;
      for (;;) {
        text = line = undefined;
        // The run of text deltas is read by a small loop of its own: this function resumes once
        // per other line, so the large turn body is not what the engine compiles for the deltas.
        text = await nextLine(this.#lines, begun ? deltaLines : undefined, turn, turn.sessionId ?? this.sessionId);
        if (text === undefined) {
          ended = true;
          break;
        }
        line = parseLine(text);
        if (line.kind === "text") {
          sink.emit({ type: "process", kind: "stdout", text: line.text });
          continue;
        }
        if (typeof line.value !== "object" || line.value === null) continue;
        const message = line.value as Record<string, unknown>;
        if (message.type === "control_response") {
          answers.settle(message);
          continue;
        }
        // `control_cancel_request`: the CLI withdrew a control request of its own that had no
        // answer yet (a permission ask, when it is stopped mid-ask); nothing here waits on it.
        if (message.type === "keep_alive" || message.type === "control_cancel_request") continue;
        // The CLI queues a message sent during the turn and starts it ("started") when it adds it
        // to the turn's next model request.
        if (message.type === "command_lifecycle" && typeof message.command_uuid === "string" && sent.has(message.command_uuid)) {
          if (message.state === "started" && !closed) {
            sink.emit({
              type: "notice",
              kind: "input.accepted",
              message: "message taken into the running turn",
              data: { text: sent.get(message.command_uuid) },
            });
            sent.delete(message.command_uuid);
          }
          continue;
        }
        const owner = attribute(message, promptIds);
        const lifecycle = message.type === "command_lifecycle" ? message.state : undefined;
        if (owner === "this" && lifecycle === "queued") {
          // The CLI has read the prompt; its turn starts with the prompt's `started` line. Until
          // then what it writes is not this turn's: an earlier turn's late output, or a turn the
          // CLI runs by itself first (a background task's notification on a resumed session).
          this.#reportsLifecycle = true;
          begun = false;
        } else if (owner === "this") begun = true;
        else if (!begun && !this.#reportsLifecycle && owner === "unknown" && message.type === "system" && message.subtype === "init")
          begun = true;
        if (!begun || owner === "other" || (message.type === "result" && owner === "unknown" && startedByCli(message))) {
          if (message.type === "result" && owner !== "this" && startedByCli(message)) ownResults.push(message as unknown as ResultLine);
          late.accept(message);
          continue;
        }
        if (message.type === "stream_event" && ofOtherSession(message, turn.sessionId ?? this.sessionId)) {
          otherSession.accept(message);
          continue;
        }
        const mcp = readMcpStatus(message, this.#launch.mcpServers);
        if (mcp?.failing) {
          // A required server is not connected: the turn ends here, with the CLI's reason for it
          // (unless the run was stopped, when the CLI is shutting down and a server was still starting).
          const stopped = signal.aborted;
          const servers = stopped ? mcp.statuses : await this.#mcpErrors(answers, turn, mcp.statuses);
          if (servers.length > 0) sink.emit(mcpStatusNotice(servers, this.#launch.mcpCommandProblems));
          throw requiredMcpError(mcp.failing, servers, stopped);
        }
        if (mcp) {
          this.#mcpReported = true;
          if (mcp.statuses.length > 0) reportMcp(mcp.statuses);
        }
        checkModel(message, this.#requestedModel, reportModels, lineModel);
        if (!started && message.type === "system" && message.subtype === "init") {
          started = true;
          turnStarted();
        }
        const fallback = checkModelFallback(message, (event) => sink.emit(event));
        if (fallback !== undefined) {
          // The rest of the turn runs on the fallback model: the result names it.
          turn.model = fallback;
          continue;
        }
        trackBackgroundTask(this.#backgroundTasks, message);
        if (message.type === "control_request") this.#onControlRequest(sink, message, turn, signal);
        else {
          if (message.type === "stream_event") deltaLines.learn(text, message); // the next delta of this shape skips the parse
          if (turn.accept(message, line.text)) {
            // A message the host sent that the CLI queued but did not take in (the turn's last
            // response was under way): the CLI answers it in a turn of its own right after, read
            // as the rest of this run (its output, usage and cost are this run's).
            const part = turn.terminal!;
            if (sent.size === 0 || !this.#reportsLifecycle || part.line.is_error || part.line.subtype !== "success") break;
            parts.push(part);
            turn.terminal = undefined;
          }
        }
      }
      closed = true;
      // A server's error the CLI did not answer for before the result: the notice goes without it.
      flushMcp?.();
      // Stopped before the CLI reported its MCP servers (it was still starting them): say so.
      if (signal.aborted && !this.#mcpReported) checkMcpStoppedBeforeReport(this.#launch.mcpServers);
      // The process ended before the part answering a sent message did: the last part's result stands.
      if (!turn.terminal && parts.length > 0) turn.terminal = parts.pop();
      late.report();
      otherSession.report();
      const settled = this.#settleTurn(turn, parts, ownResults, baseline, sink);
      const { terminal, costUsd, cliOwn, split } = settled;
      // The host's interrupt ends the turn with this result; the process takes the next turn.
      const interrupted = interruptedByHost && terminal?.subtype === "error_during_execution" && !signal.aborted;
      endedByInterrupt = interrupted;
      // The CLI's `num_turns` counts more than the turn's model responses in places (an interrupt's
      // own messages; one more on `error_max_turns`, out of structured-output retries, and for the
      // StructuredOutput tool's round of a structured answer): its model responses are the ones the
      // turn read, one per `model.response` notice, which is also what `budget.maxTurns` counts.
      const report = terminal !== undefined ? { ...settled.report, numTurns: turn.responses } : settled.report;
      const healthy = terminal !== undefined && ((!terminal.is_error && terminal.subtype === "success") || interrupted);
      // A background shell the turn started (Bash `run_in_background`) ends with the turn: on a
      // process kept for the next turn, and before a one-shot CLI is asked to exit (it would wait for
      // it). A one-shot CLI's exit ends what is still below it: one listing that finds nothing does.
      if (!ended && healthy && !signal.aborted) {
        await this.#stopBackgroundTasks(sink, signal);
        await endTurnBackground(proc, running, sink, { settleMs: BACKGROUND_SETTLE_MS, graceMs: this.#graceMs, exiting: !keepAlive });
      }
      if (!ended && keepAlive && healthy && !signal.aborted) {
        this.lastMessageId = turn.lastMessageId;
        return {
          turn,
          output: await proc.takeSettledOutput(),
          exit: undefined,
          costUsd,
          interrupted,
          report,
          ...(cliOwn ? { cliOwn } : {}),
          ...split,
        };
      }
      this.lastMessageId = undefined;
      // Stdout ended: the CLI can report nothing more. One that stays alive is given the grace to
      // exit, then ended, rather than waited for until the stall timeout.
      const exit = ended ? await exitOrTerminate(proc, this.#graceMs) : await this.#finish(sink);
      return { turn, output: await proc.takeSettledOutput(), exit, costUsd, interrupted, report, ...(cliOwn ? { cliOwn } : {}), ...split };
    } finally {
      closed = true;
      turnStarted();
      detach?.();
      flushMcp?.();
      answers.end();
      signal.removeEventListener("abort", onAbort);
      await cancel.settled();
    }
  }

  /**
   * Reads stdout until the CLI has answered every control request of `answers` written so far
   * (before the prompt: the model switches the prompt waits for). Any other line
   * ends the wait (the CLI is writing something else: the turn's reader takes it, put back in
   * order), as does stdout ending.
   */
  async #awaitAnswers(answers: ControlAnswers, turn: StreamJsonTurn): Promise<void> {
    const held: string[] = [];
    try {
      while (answers.waiting > 0) {
        const text = await nextLine(this.#lines, undefined, turn);
        if (text === undefined) return;
        const line = parseLine(text);
        const message = line.kind === "json" ? (line.value as { type?: unknown } | null) : null;
        if (message?.type !== "control_response") {
          held.push(text);
          return;
        }
        answers.settle(message as Record<string, unknown>);
      }
    } finally {
      this.#lines.unread(held);
    }
  }

  /**
   * `statuses` with the `error` of each server as Claude Code's answer to an `mcp_status` control
   * request gives it (e.g. `"Connection closed"`), for a turn that ends on a required server not
   * connected: reads stdout until that answer, skipping the turn's other lines (their run fails).
   * Without an answer (an error answer, the turn's result or the end of stdout first, or none
   * within {@link MCP_REASON_WAIT_MS}) `statuses` are returned as they are.
   */
  async #mcpErrors(answers: ControlAnswers, turn: StreamJsonTurn, statuses: readonly McpServerState[]): Promise<readonly McpServerState[]> {
    const id = `adaptor_mcp_status_${randomUUID()}`;
    const written = await this.proc
      .writeJson({ type: "control_request", request_id: id, request: { subtype: "mcp_status" } })
      .then(() => true)
      .catch(() => false);
    if (!written) return statuses;
    // The turn fails either way: a CLI that neither answers nor ends its turn is not waited for
    // until the stall timeout.
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<undefined>((resolve) => (timer = setTimeout(resolve, MCP_REASON_WAIT_MS, undefined)));
    try {
      return await this.#readMcpAnswer(answers, turn, statuses, id, late);
    } finally {
      clearTimeout(timer);
    }
  }

  /** {@link ClaudeSession.#mcpErrors}'s read of stdout until the answer to `id`, or `late`. */
  async #readMcpAnswer(
    answers: ControlAnswers,
    turn: StreamJsonTurn,
    statuses: readonly McpServerState[],
    id: string,
    late: Promise<undefined>,
  ): Promise<readonly McpServerState[]> {
    for (;;) {
      const next = nextLine(this.#lines, undefined, turn);
      // A read still pending when `late` wins ends with the process, unread.
      next.catch(() => undefined);
      const text = await Promise.race([next, late]);
      if (text === undefined) return statuses;
      const line = parseLine(text);
      const message = line.kind === "json" ? (line.value as Record<string, unknown> | null) : null;
      if (message?.type === "result") return statuses;
      if (message?.type !== "control_response") continue;
      const response = message.response as { request_id?: unknown; subtype?: unknown; response?: unknown } | undefined;
      if (response?.request_id !== id) answers.settle(message);
      else return response.subtype === "success" ? withMcpStatusAnswer(statuses, response.response) : statuses;
    }
  }

  /**
   * Writes a `set_model` control request for `model` and waits for the CLI's answer, which names
   * the model it switched to (it may not be the one asked for: a `model.resolved` /
   * `model.substituted` notice then says so, and the turn reports that model). An error answer
   * rejects (DriverError `DRIVER`) and leaves the model asked for before.
   */
  async #setModel(model: string, answers: ControlAnswers, turn: StreamJsonTurn, report: (event: DriverEvent) => void): Promise<void> {
    const id = `adaptor_set_model_${randomUUID()}`;
    const answered = answers.wait(id, "set_model");
    const before = this.#requestedModel;
    this.#requestedModel = model;
    try {
      await this.proc.writeJson({ type: "control_request", request_id: id, request: { subtype: "set_model", model } });
      const used = (await answered)?.model;
      if (typeof used === "string" && used !== "") {
        reportModel(model, used, report);
        turn.model = used;
      }
    } catch (error) {
      if (this.#requestedModel === model) this.#requestedModel = before;
      throw error;
    }
  }

  /**
   * The accounting of a turn whose last line was read (its result and `parts` final): the usage
   * of the turns the CLI ran by itself (and their notice), the session's counters, and this turn's
   * own cost.
   * Kept out of {@link runTurn}, whose loop is what runs for every line.
   */
  #settleTurn(
    turn: StreamJsonTurn,
    parts: { line: ResultLine; json: string }[],
    ownResults: ResultLine[],
    baseline: CostBaseline & { readonly previousApiTotal: number | undefined },
    sink: DriverSink,
  ): {
    terminal: ResultLine | undefined;
    costUsd: number | undefined;
    cliOwn: CliOwnUsage | undefined;
    split: { partsUsage?: Usage };
    report: TurnReport;
  } {
    const cliOwn = cliOwnUsage(ownResults, baseline);
    if (cliOwn) {
      if (cliOwn.lastTotalCost !== undefined) this.#lastTotalCost = cliOwn.lastTotalCost;
    }
    // A turn that made no model call (on a resumed session) used nothing worth a notice.
    const used = cliOwn && ((cliOwn.usage && cliOwn.usage.inputTokens + cliOwn.usage.outputTokens > 0) || (cliOwn.costUsd ?? 0) > 0);
    if (cliOwn && used) {
      sink.emit({
        type: "notice",
        kind: "usage.cli_turns",
        message: "turns the CLI ran by itself since the previous prompt: their usage is added to this turn's",
        data: {
          turns: cliOwn.turns,
          ...(cliOwn.usage ? { usage: cliOwn.usage } : {}),
          ...(cliOwn.costUsd !== undefined ? { costUsd: cliOwn.costUsd } : {}),
        },
      });
    }
    const terminal = turn.terminal?.line;
    this.#results += parts.length;
    if (terminal) {
      this.#results += 1;
      this.sessionId = turn.sessionId ?? this.sessionId;
      if (typeof terminal.total_cost_usd === "number") this.#lastTotalCost = terminal.total_cost_usd;
    }
    // This turn's share of the running total starts where the CLI's own turns left it; its
    // parts follow one another.
    let from: CostBaseline = cliOwn?.lastTotalCost !== undefined ? { ...baseline, previousTotal: cliOwn.lastTotalCost } : baseline;
    let partsCost: number | undefined = 0;
    let partsUsage: Usage | undefined;
    for (const { line: part } of parts) {
      partsUsage = addUsage(partsUsage, resultUsage(part));
      const cost = turnCostUsd(part, from);
      partsCost = partsCost === undefined || cost === undefined ? undefined : roundCost(partsCost + cost);
      if (typeof part.total_cost_usd === "number") from = { previousTotal: part.total_cost_usd, freshSession: false };
    }
    const lastCost = terminal ? turnCostUsd(terminal, from) : undefined;
    const ownCost = lastCost === undefined || partsCost === undefined ? undefined : roundCost(lastCost + partsCost);
    const costUsd =
      ownCost !== undefined && cliOwn ? (cliOwn.costUsd !== undefined ? roundCost(ownCost + cliOwn.costUsd) : undefined) : ownCost;
    const split = partsUsage ? { partsUsage } : {};
    const prompted = [...parts.map(({ line }) => line), ...(terminal ? [terminal] : [])];
    const report = terminal
      ? turnReport(prompted, ownResults, {
          ...(baseline.previousApiTotal !== undefined ? { previousTotal: baseline.previousApiTotal } : {}),
          freshSession: baseline.freshSession,
        })
      : {};
    for (const line of [...ownResults, ...prompted]) this.#lastApiTotal = apiTimeTotal(line) ?? this.#lastApiTotal;
    return { terminal, costUsd, cliOwn, split, report };
  }

  /**
   * Sends the CLI's `initialize` control request and waits for its answer: the process is then up
   * and reading stdin. Used before any turn (pre-warming); lines before the answer are not turn
   * output and are dropped.
   *
   * @throws DriverError `DEVICE_DISCONNECTED` (op `initialize`) when stdout ends first, `DRIVER`
   * for an error answer; `signal.reason` when aborted.
   */
  async initialize(signal: AbortSignal): Promise<void> {
    const requestId = `adaptor_init_${randomUUID()}`;
    this.proc.writeJson(this.#initializeRequest(requestId)).catch(() => undefined);
    // An abort ends the wait; the caller then closes the process, which ends the loop too.
    await raceAbort(this.#awaitControlResponse("initialize", requestId), signal);
  }

  /**
   * Sends the CLI's `initialize` control request (the one a first turn sends) and reads the version
   * the CLI names in its answer (`claude_code_version`, claude 2.1.332), before anything else is
   * written. claude answers it first; what comes instead (any other line, an error answer, the end
   * of stdout) ends the wait with no version: every line read is left for the first turn, which
   * also classifies an early exit as it would have.
   *
   * @returns the version, or undefined when the CLI named none before anything else.
   * @throws `signal.reason` when aborted.
   */
  async reportedVersion(signal: AbortSignal): Promise<string | undefined> {
    const requestId = `adaptor_init_${randomUUID()}`;
    this.proc.writeJson(this.#initializeRequest(requestId)).catch(() => undefined);
    const held: string[] = [];
    const read = async (): Promise<string | undefined> => {
      const next = await this.#lines.next();
      if (next.done) return undefined;
      held.push(next.value.text);
      const message = next.value.kind === "json" ? (next.value.value as ControlResponseLine | null) : null;
      if (message?.type !== "control_response" || message.response?.request_id !== requestId) return undefined;
      held.pop(); // the answer is no turn's line
      const version = message.response.subtype === "success" ? message.response.response?.["claude_code_version"] : undefined;
      return typeof version === "string" ? version : undefined;
    };
    try {
      return await raceAbort(read(), signal);
    } finally {
      this.#lines.unread(held);
    }
  }

  /**
   * Pre-warming, after {@link initialize}: asks the CLI for its context usage (the `get_context_usage`
   * control request, detail `summary`: answered from local estimates, no model call), which makes it
   * assemble what a first prompt needs (system prompt, tools, memory files) now rather than in the
   * first turn. Nothing is written to the conversation.
   *
   * @throws DriverError `DEVICE_DISCONNECTED` (op `get_context_usage`) when stdout ends first, `DRIVER`
   * for an error answer; `signal.reason` when aborted.
   */
  async warmContext(signal: AbortSignal): Promise<void> {
    const requestId = `adaptor_warm_${randomUUID()}`;
    this.proc
      .writeJson({ type: "control_request", request_id: requestId, request: { subtype: "get_context_usage", detail: "summary" } })
      .catch(() => undefined);
    await raceAbort(this.#awaitControlResponse("get_context_usage", requestId), signal);
  }

  /** Reads lines until the control response to `requestId`; lines before it are not turn output and are dropped. */
  async #awaitControlResponse(op: string, requestId: string): Promise<void> {
    for (;;) {
      const next = await this.#lines.next();
      if (next.done) {
        throw new DriverError({
          op,
          device: "claude",
          code: ErrCode.DeviceDisconnected,
          cause: this.proc.stderrTail() || "stdout ended before the CLI was ready",
        });
      }
      if (next.value.kind !== "json") continue;
      const message = next.value.value as {
        type?: unknown;
        response?: { subtype?: unknown; request_id?: unknown; error?: unknown };
      } | null;
      if (message?.type !== "control_response" || message.response?.request_id !== requestId) continue;
      if (message.response.subtype === "error") {
        throw new DriverError({ op, device: "claude", code: ErrCode.Driver, cause: String(message.response.error) });
      }
      return;
    }
  }

  /** Terminates the process (if alive) and removes its launch files. Idempotent. */
  close(): Promise<void> {
    this.#closed ??= (async () => {
      await this.proc.close();
      await this.#lines.return?.();
      await this.#launch.cleanup();
    })();
    return this.#closed;
  }

  /**
   * Ends the process after a turn that kept it alive, as {@link runTurn} ends a one-shot turn's
   * (stdin closed, the grace, then SIGTERM and SIGKILL); what it writes meanwhile goes to `sink`.
   * Resolves with how it ended.
   */
  finish(sink: DriverSink): Promise<ExitInfo> {
    return this.#finish(sink);
  }

  /**
   * Ends the process after its terminal result: stdin closed, the grace for the CLI to exit on its
   * own, then SIGTERM and SIGKILL. Output after the result is not part of the turn: approval
   * requests are denied at once, a second result is ignored, the rest is dropped.
   */
  async #finish(sink: DriverSink): Promise<ExitInfo> {
    const proc = this.proc;
    proc.closeStdin();
    const after = new LateOutput(sink, proc, "after the result");
    const drain = (async () => {
      for (;;) {
        const next = await this.#lines.next().catch(() => ({ done: true as const, value: undefined }));
        if (next.done) return;
        if (next.value.kind === "json" && typeof next.value.value === "object" && next.value.value !== null) {
          after.accept(next.value.value as Record<string, unknown>);
        }
      }
    })();
    await exitOrTerminate(proc, this.#graceMs, () =>
      sink.emit({
        type: "notice",
        kind: "lifecycle",
        message: "process still running after its result; terminating",
        data: { pid: proc.pid },
      }),
    );
    const exit = await proc.exited;
    await drain;
    after.report();
    return exit;
  }

  /**
   * Whether a turn still in plan mode may bring an ask about `tool` to the host: ExitPlanMode, and
   * what the policy's own mode would ask about. Under `read_only` (launched for `dontAsk`, which
   * denies every ask) only the read tools the every-tool hook asks about; otherwise the read tools
   * and a question ({@link PLAN_MODE_ASKABLE}).
   */
  #askableInPlanMode(tool: string): boolean {
    if (tool === PLAN_EXIT_TOOL) return true;
    if (this.#launch.modeAfterPlan === "dontAsk") return this.#askReadTools && READ_ONLY_TOOLS.includes(tool);
    return PLAN_MODE_ASKABLE.includes(tool) || READ_ONLY_TOOLS.includes(tool);
  }

  #onControlRequest(sink: DriverSink, message: Record<string, unknown>, turn: StreamJsonTurn, signal: AbortSignal): void {
    const proc = this.proc;
    const requestId = String(message.request_id);
    const request = message.request as { subtype?: string; callback_id?: unknown; input?: { tool_name?: unknown } } | undefined;
    if (request?.subtype === "hook_callback" && request.callback_id === ASK_EVERY_TOOL_HOOK) {
      // The run was stopped (a tool-call budget at this very call, a cancel): the call waits
      // unanswered, so it never runs and nothing follows it. The stop's interrupt is written before
      // this request was read: claude 2.1.332 withdraws the request as it takes it
      // (`control_cancel_request`) and ends the turn; a CLI that does not is ended by the stop's
      // escalation (SIGTERM after the grace). An answer, even a denial, would let a CLI that had
      // not taken the interrupt (it was idle when it came) go on to its next model request.
      if (signal.aborted) return;
      // Registered for a tool-call budget alone: the call, now reported, is the CLI's to decide.
      if (!this.#askHook) {
        proc.writeJson(preToolUseAnswer(requestId, false)).catch(() => undefined);
        return;
      }
      const tool = typeof request.input?.tool_name === "string" ? request.input.tool_name : "";
      const trusted = this.#trustedPrefixes.some((prefix) => tool.startsWith(prefix));
      // Under read_only only the read tools are asked about; the rest is the CLI's dontAsk denial.
      const inLaunch = this.#launch.askableTools?.includes(tool) ?? true;
      // A call a deny rule of the run names (given or remembered by now) is asked about whatever the
      // CLI would do unasked (a Read inside the working directory), so the rule denies it before it runs.
      const denied = inLaunch && sink.ruleDenies?.(tool, (request.input as { tool_input?: unknown } | undefined)?.tool_input) === true;
      // The structured-output tool of --json-schema hands the CLI the answer and acts on nothing: never asked.
      const askable = tool !== STRUCTURED_OUTPUT_TOOL && inLaunch && (this.#askReadTools || !READ_ONLY_TOOLS.includes(tool));
      proc.writeJson(preToolUseAnswer(requestId, denied || (!trusted && askable))).catch(() => undefined);
      return;
    }
    if (request?.subtype === "hook_callback" && request.callback_id === FOREGROUND_AGENT_HOOK) {
      const input = (request as { input?: { tool_name?: unknown; tool_input?: unknown } }).input;
      proc.writeJson(foregroundAgentAnswer(requestId, input?.tool_name, input?.tool_input)).catch(() => undefined);
      return;
    }
    const hook =
      request?.subtype === "hook_callback" ? readHookCallback(request.callback_id, (request as { input?: unknown }).input) : undefined;
    if (hook) {
      // The CLI waits for the answer: the host's hook decides, edits or adds context.
      const agentId = (request as { input?: { agent_id?: unknown } }).input?.agent_id;
      const answered = sink.hook ? sink.hook(withParent(hook.ask, turn, agentId)) : Promise.resolve({});
      answered
        .then((answer) => proc.writeJson(hookResponse(requestId, hookOutput(hook.event, foregroundEdit(hook.ask, answer)))))
        .catch(() => undefined); // the process is gone: its exit decides the verdict
      return;
    }
    if (request?.subtype === "elicitation") {
      // An MCP server asks the user for input: the host decides under `approvals.elicitation`.
      const elicitation = request as ElicitationControlRequest;
      sink
        .requestApproval(elicitationControlAsk(elicitation))
        .then((decision: ApprovalDecision) =>
          proc.writeJson(elicitationResponse(requestId, elicitationResult(elicitationOf(elicitation), decision))),
        )
        .catch(() => undefined); // the process is gone: its exit decides the verdict
      return;
    }
    if (request?.subtype !== "can_use_tool") {
      proc.writeJson(controlError(requestId, `unsupported control request ${String(request?.subtype)}`)).catch(() => undefined);
      return;
    }
    const ask = request as CanUseToolRequest;
    if (this.#planning && !this.#askableInPlanMode(ask.tool_name)) {
      // Claude Code in plan mode asks about an edit or a command: the plan is not approved yet.
      proc.writeJson(permissionResponse(requestId, { behavior: "deny", message: PLAN_MODE_DENIAL })).catch(() => undefined);
      sink.emit({
        type: "notice",
        kind: "approval.plan-mode",
        message: `${ask.tool_name}: denied without asking: the turn is in plan mode until its plan is approved`,
        data: { toolName: ask.tool_name, ...(ask.tool_use_id ? { toolCallId: ask.tool_use_id } : {}) },
      });
      return;
    }
    sink
      .requestApproval(withParent(toApprovalAsk(ask, turn.toolInput(ask.tool_use_id)), turn, (ask as { agent_id?: unknown }).agent_id))
      .then((decision: ApprovalDecision) => {
        const answer = toPermissionAnswer(ask, decision);
        // A host's edit of a delegation keeps it in the foreground.
        const kept = answer.behavior === "allow" ? { ...answer, updatedInput: inForeground(ask.tool_name, answer.updatedInput) } : answer;
        // An approved plan returns the CLI to the mode the policy launched in, never a wider one.
        const modeAfterPlan = this.#launch.modeAfterPlan;
        const leavesPlan = kept.behavior === "allow" && ask.tool_name === PLAN_EXIT_TOOL && modeAfterPlan !== undefined;
        if (leavesPlan) this.#planning = false;
        return proc.writeJson(
          permissionResponse(
            requestId,
            leavesPlan ? { ...kept, updatedPermissions: [{ type: "setMode", mode: modeAfterPlan, destination: "session" }] } : kept,
          ),
        );
      })
      .catch(() => undefined); // the process is gone: its exit decides the verdict
  }
}

/**
 * Output that belongs to no live turn: an earlier turn's late lines on a reused process, lines
 * after the terminal result, or stream events of another session. Approval requests are denied to
 * the CLI at once (the host is not asked) and each is recorded in a notice; other control requests
 * get an error answer; everything else is counted and reported in one notice.
 */
class LateOutput {
  readonly #sink: DriverSink;
  readonly #proc: CliProcess;
  readonly #when: string;
  readonly #dropped = new Map<string, number>();

  constructor(sink: DriverSink, proc: CliProcess, when = "from an earlier turn") {
    this.#sink = sink;
    this.#proc = proc;
    this.#when = when;
  }

  accept(message: Record<string, unknown>): void {
    // Bookkeeping without content: a prompt's "completed" lifecycle line routinely follows its result.
    if (
      message.type === "control_response" ||
      message.type === "control_cancel_request" ||
      message.type === "keep_alive" ||
      message.type === "command_lifecycle"
    )
      return;
    if (message.type === "control_request") {
      const requestId = String(message.request_id);
      const request = message.request as Partial<CanUseToolRequest> | undefined;
      if (request?.subtype === "can_use_tool") {
        this.#proc.writeJson(permissionResponse(requestId, { behavior: "deny", message: LATE_APPROVAL_DENIAL })).catch(() => undefined);
        this.#sink.emit({
          type: "notice",
          kind: "approval.late",
          message: `approval request ${this.#when} denied without asking`,
          data: { toolName: request.tool_name, ...(request.tool_use_id ? { toolCallId: request.tool_use_id } : {}) },
        });
      } else {
        this.#proc
          .writeJson(controlError(requestId, `no turn is running for control request ${String(request?.subtype)}`))
          .catch(() => undefined);
      }
      return;
    }
    if (message.type === "result" && this.#when === "after the result") {
      this.#sink.emit({ type: "notice", kind: "runtime", message: "second result line ignored" });
      return;
    }
    const key = String(message.type);
    this.#dropped.set(key, (this.#dropped.get(key) ?? 0) + 1);
  }

  /** Emits one notice for the dropped lines, if any. */
  report(): void {
    if (this.#dropped.size === 0) return;
    const lines = Object.fromEntries(this.#dropped);
    this.#dropped.clear();
    this.#sink.emit({ type: "notice", kind: "runtime", message: `output ${this.#when} dropped`, data: { lines } });
  }
}
