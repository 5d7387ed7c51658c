import type * as acp from "@agentclientprotocol/sdk";
import type { ApprovalAsk, DriverSink, TranscriptItem, Usage } from "@adaptor/driver";
import { hasNoEffect, knownInput } from "@adaptor/driver/kit";
import type { AgentNotice } from "../acp-driver.js";
import type { SessionHandler } from "../connection/acp-process.js";
import { commandLines, inputCommandLines } from "../host/command-lines.js";
import { isReadOnlyKind } from "../policy/acp-policy.js";
import { callsServer, changesMachine, moreActing, toolCallText, toolNameOf, type TrustedServer } from "./tool-call.js";
import { reportsUnknownTool } from "./unknown-tool.js";

interface ToolState {
  /** The first name that is not only a title (a later update may carry `_meta.toolName`). */
  name: string;
  named: boolean;
  /** The most complete input seen across the call's updates. */
  input: unknown;
  ended: boolean;
  /** The call has its `tool-result` (from the agent's `completed` / `failed`, or the host's denial). */
  resulted: boolean;
  /**
   * The agent itself reported the call `completed` or `failed`. A host denial gives the call its
   * result but does not finish it: an agent may ask before it announces the call (`tool_call`).
   */
  finished?: boolean;
  /**
   * The most acting kind any ask or update of the call gave it ({@link moreActing}): a later, lower
   * kind never turns a call that acts into a read.
   */
  kind?: acp.ToolKind;
  /** The most acting kind the call had when the agent asked about it: the `toolKind` its asks showed. */
  askedKind?: acp.ToolKind;
  /** Some update of the call carried a `kind`. */
  kindSeen?: boolean;
  /**
   * The most acting kind any update of the call carried (`edit`, `delete`, `move`, `execute` over
   * `other` or an unknown kind); undefined while every kind seen only reads or reasons.
   */
  actingKind?: string;
  /** The call is one of a trusted MCP server's tools (the SDK's host tools), by its exact name. */
  trusted?: boolean;
  /**
   * The call's ask was allowed without the host (a trusted host tool of no kind that changes the
   * machine): neither the host nor the `read_only` gate saw it.
   */
  grantedTrusted?: boolean;
  /** How the agent last reported the call's end (`completed` / `failed`), until a `tool_call` restarts it. */
  endStatus?: "completed" | "failed";
  /** The call was reported running without an ask. */
  unasked?: boolean;
  /**
   * Before the host cancelled the turn the agent reported the call started: `in_progress` (ACP:
   * running; `pending`, also a `tool_call` with no status, has not started), `completed` or
   * `failed`, or with output (`rawOutput`, a host terminal).
   */
  startedBeforeCancel?: boolean;
  /**
   * An update before the call's end reported it running: `in_progress`, or with output
   * (`rawOutput`, a host terminal).
   */
  reportedRunning?: boolean;
  /** The last host terminal the call's content named (`{ type: "terminal", terminalId }`). */
  terminalId?: string;
  /** The call ran unasked in a host terminal the host itself asked about: that ask was the call's. */
  coveredByAsk?: boolean;
  /**
   * The host refused a `terminal/create` of the call's command before starting anything, while the
   * call was the one open `execute` call whose input named that command (see {@link AcpTurn.terminalRefused}).
   */
  refusedTerminal?: boolean;
}

/** A tool call that acts (see {@link actsKind}) and ran without a permission ask. */
export interface UnaskedCall {
  readonly toolCallId: string;
  readonly toolName: string;
  /** The call's ACP kind (the most acting any of its asks and updates gave); undefined when the agent gave none. */
  readonly toolKind?: string;
  /**
   * The agent asked about the call only as this kind, `read` or `search`, and an update gave the call
   * an acting kind (`toolKind`) after: the ask, which the `read_only` gate lets through, was not
   * about the call that ran.
   */
  readonly askedAs?: string;
  /** The host had denied the call's permission ask: the agent ran it against the answer. */
  readonly denied?: boolean;
  /**
   * The host had answered the call's permission ask `cancelled` (it had interrupted the turn, before
   * or while the agent asked): the agent ran it against the answer.
   */
  readonly cancelled?: boolean;
  /** How the agent reported the call's end. */
  readonly status: "completed" | "failed";
}

/**
 * True for a call that may act: ACP kind `edit`, `delete`, `move`, `execute`, `fetch`,
 * `switch_mode`, `other`, any unknown kind, or none ({@link hasNoEffect}: the kinds the SDK's
 * `approval.unasked` notice exempts, so the notice and the verdict agree).
 */
export function actsKind(kind: string | undefined): boolean {
  return !hasNoEffect(kind);
}

const CANCELLED: acp.RequestPermissionResponse = { outcome: { outcome: "cancelled" } };

/**
 * One prompt turn of one session: turns `session/update` notifications into driver events and a
 * transcript, and `session/request_permission` requests into approvals through the sink, each
 * answered exactly once; {@link end} answers every still-open one `cancelled`.
 */
export class AcpTurn implements SessionHandler {
  readonly #sink: DriverSink;
  readonly transcript: TranscriptItem[] = [];
  readonly #tools = new Map<string, ToolState>();
  readonly #open = new Set<(response: acp.RequestPermissionResponse) => void>();
  /** Tool calls the agent asked about. */
  readonly #asked = new Set<string>();
  /** Tool calls whose ask the host denied. */
  readonly #refused = new Set<string>();
  /** Tool calls whose ask was answered `cancelled` because the host interrupted the turn. */
  readonly #cancelled = new Set<string>();
  #interrupted = false;
  #message: { text: string } | undefined;
  #thinking: { text: string } | undefined;
  #ended = false;
  /** False until the prompt is sent: updates before it are not this turn's output. */
  #prompting = false;
  /** Output updates dropped before the prompt was sent (a `session/load` replaying history). */
  replayed = 0;
  /** Text of the last assistant message. */
  text = "";
  /** Tool calls the host denied during this turn. */
  denied = 0;
  /**
   * The agent was answered with one of its `allow_always` options during this turn (the host's
   * answer, or a trusted host tool's ask allowed so): it may run later calls without asking.
   */
  grantedAlways = false;
  /** The agent's last own `error` notice of this turn (see {@link AgentNotice}). */
  agentError: AgentNotice | undefined;
  /** The session's cumulative cost from the latest `usage_update` (of this turn, or replayed before it). */
  sessionCost: { readonly amount: number; readonly currency: string } | undefined;
  /** {@link sessionCost} as it stood when the prompt was sent: the turn's baseline. */
  costBeforePrompt: { readonly amount: number; readonly currency: string } | undefined;

  readonly #nameOf: (call: acp.ToolCallUpdate) => string;
  readonly #inputOf: ((call: acp.ToolCallUpdate, toolName: string) => unknown) | undefined;
  readonly #trusted: readonly TrustedServer[];
  readonly #onUnasked: ((call: UnaskedCall) => void) | undefined;
  readonly #terminalExitCode: ((terminalId: string) => number | undefined) | undefined;
  readonly #agentNotice: ((text: string) => AgentNotice | undefined) | undefined;
  /** Whether the agent's `allow_always` / `reject_always` options are left out (see the constructor). */
  readonly #oneCallOptions: boolean;
  readonly #takeAskedTerminal: ((terminalId: string) => boolean) | undefined;
  readonly #controlsApprovedTerminal: ((toolName: string, input: unknown) => boolean) | undefined;

  /**
   * @param nameOf - the tool's name from a call (a preset's naming rule).
   * @param trustedServers - MCP servers whose tools (by exact name, and not of an acting kind) are
   *   allowed without asking (the SDK's host tools).
   * @param onUnasked - called once per call that acts (see {@link actsKind}; by the most acting kind
   *   any of its updates carried), is not a trusted server's, and is reported `completed` or
   *   `failed` although no permission ask about it came first (not `in_progress`: an agent may
   *   report a call running while the tool itself is about to ask, as OpenCode does; a call ended
   *   `failed` after the host cancelled the turn counts only when it was reported started,
   *   `in_progress` or with output, before the cancel; a call ended `failed` whose command the
   *   host refused in its terminal does not count, see {@link terminalRefused}); and once per call of any kind reported
   *   `completed` after the host denied its ask (`denied`) or answered it `cancelled` because it
   *   had interrupted the turn (`cancelled`); and once per call asked about only as a `read` or
   *   `search` that an update then gave a kind that acts, reported `completed` or `failed` (`askedAs`).
   *   A trusted server's call whose ask was allowed without the host counts as unasked once an
   *   update gives it a kind that changes the machine. A kind sent after the call's end (an update
   *   with no status) is checked against that end. A call covered by the host's approval of its
   *   terminal (`takeAskedTerminal`, `controlsApprovedTerminal`) does not count.
   * @param terminalExitCode - the exit code of a host terminal, once it has exited.
   * @param agentNotice - recognizes a message chunk that is the agent's own notice (a `notice`, not text).
   */
  constructor(
    sink: DriverSink,
    nameOf: (call: acp.ToolCallUpdate) => string = toolNameOf,
    trustedServers: readonly TrustedServer[] = [],
    onUnasked?: (call: UnaskedCall) => void,
    terminalExitCode?: (terminalId: string) => number | undefined,
    agentNotice?: (text: string) => AgentNotice | undefined,
    options: {
      /**
       * Offer and select only the agent's options for the one call asked about: its
       * `allow_always` and `reject_always` options (which answer the tool's later calls, or switch
       * asking off, without an ask) are left out of the ask's `choices` and never selected. For a
       * run whose policy has every acting call asked (a permission mode, `read_only`). Default false.
       */
      oneCallOptions?: boolean;
      /**
       * Whether the host itself asked about the command of a host terminal (and it was approved):
       * the call whose content names that terminal counts as asked (each terminal for one call).
       */
      takeAskedTerminal?: (terminalId: string) => boolean;
      /**
       * Whether a call (by its tool's name and input) only reads the output of, or ends, host
       * terminals whose command was approved (a Claude Code adapter's `BashOutput`): reported
       * ended unasked, it counts as covered by that approval.
       */
      controlsApprovedTerminal?: (toolName: string, input: unknown) => boolean;
      /**
       * The call's input when an update carries no `rawInput`, taken another way (a preset's rule,
       * e.g. gemini-cli's shell command from the title), or undefined. Given the update and the
       * tool's name.
       */
      inputOf?: (call: acp.ToolCallUpdate, toolName: string) => unknown;
    } = {},
  ) {
    this.#oneCallOptions = options.oneCallOptions === true;
    this.#inputOf = options.inputOf;
    this.#takeAskedTerminal = options.takeAskedTerminal;
    this.#controlsApprovedTerminal = options.controlsApprovedTerminal;
    this.#terminalExitCode = terminalExitCode;
    this.#agentNotice = agentNotice;
    this.#sink = sink;
    this.#nameOf = nameOf;
    this.#trusted = trustedServers;
    this.#onUnasked = onUnasked;
  }

  onText(line: string): void {
    if (!this.#ended) this.#sink.emit({ type: "process", kind: "stdout", text: line });
  }

  /** The prompt is being sent: from now on the session's updates are this turn's output. */
  beginPrompt(): void {
    this.#prompting = true;
    this.costBeforePrompt = this.sessionCost;
  }

  onUpdate(update: acp.SessionUpdate): boolean {
    if (this.#ended) return false;
    if (update.sessionUpdate === "usage_update" && update.cost)
      this.sessionCost = { amount: update.cost.amount, currency: update.cost.currency };
    if (!this.#prompting) {
      if (
        update.sessionUpdate !== "available_commands_update" &&
        update.sessionUpdate !== "current_mode_update" &&
        update.sessionUpdate !== "config_option_update" &&
        update.sessionUpdate !== "usage_update"
      )
        this.replayed += 1;
      return true;
    }
    this.#accept(update);
    return true;
  }

  #accept(update: acp.SessionUpdate): void {
    switch (update.sessionUpdate) {
      case "agent_message_chunk":
        if (update.content.type !== "text") return;
        if (!this.#noticed(update.content.text)) this.#appendText(update.content.text, update.messageId ?? undefined);
        return;
      case "agent_thought_chunk":
        if (update.content.type === "text") this.#appendThinking(update.content.text, update.messageId ?? undefined);
        return;
      case "tool_call":
        this.#restart(update.toolCallId);
        this.#toolCall(update, update.rawInput, update.status ?? undefined);
        this.#toolUpdate(update);
        return;
      case "tool_call_update":
        this.#toolCall(update, update.rawInput, update.status ?? undefined);
        this.#toolUpdate(update);
        return;
      case "plan":
        this.#sink.emit({ type: "notice", kind: "plan", message: "plan updated", data: { entries: update.entries } });
        return;
      case "current_mode_update":
        this.#sink.emit({
          type: "notice",
          kind: "lifecycle",
          message: `session mode ${update.currentModeId}`,
          data: { modeId: update.currentModeId },
        });
        return;
      case "user_message_chunk":
      case "available_commands_update":
        return;
      default:
        this.#sink.emit({ type: "notice", kind: "runtime", message: `session/update ${update.sessionUpdate}`, data: { update } });
    }
  }

  async onPermission(request: acp.RequestPermissionRequest, signal: AbortSignal): Promise<acp.RequestPermissionResponse> {
    if (this.#ended || !this.#prompting || signal.aborted) return CANCELLED;
    const call = request.toolCall;
    // The name and input the call's own updates gave win (a permission request may carry less, e.g. no `_meta`).
    this.#toolCall(call, call.rawInput, undefined, true);
    // An ask after the host's interrupt is answered `cancelled` (ACP: a client that cancelled the
    // turn answers every permission request so): the call is not allowed, and running it after all
    // is running it against the answer, as after a deny.
    if (this.#interrupted) return this.#cancel(call.toolCallId);
    this.#asked.add(call.toolCallId);
    // Announcing the call may have ended the run (the tool-call budget): its ask is not put to the host.
    if (this.#ended) return CANCELLED;
    const tool = this.#tools.get(call.toolCallId)!;
    const name = tool.name;
    // The ask shows the most acting kind the call has had (its own, or an earlier update's): an
    // ask cannot pass off a call announced as acting as a read.
    const toolKind = tool.kind;
    tool.askedKind = moreActing(tool.askedKind, toolKind);
    // Under a policy that has every acting call asked, an option answering later calls too is not offered.
    const options = this.#oneCallOptions ? request.options.filter((o) => !o.kind.endsWith("_always")) : request.options;
    const ofKind = (kind: acp.PermissionOptionKind): acp.PermissionOption | undefined => options.find((o) => o.kind === kind);
    if (tool.trusted && !changesMachine(tool.actingKind)) {
      const allow = ofKind("allow_once") ?? ofKind("allow_always");
      if (allow) {
        tool.grantedTrusted = true;
        return this.#granting(options, { outcome: { outcome: "selected", optionId: allow.optionId } });
      }
    }
    const ask: ApprovalAsk = {
      kind: "permission",
      title: call.title ?? name,
      toolName: name,
      toolCallId: call.toolCallId,
      input: knownInput(tool.input) ? tool.input : (call.content ?? {}),
      // The agent's options, for `answer(optionId)`: the option's name for people, its kind beside it.
      ...(options.length > 0 ? { choices: options.map((o) => ({ key: o.optionId, label: o.name, description: o.kind })) } : {}),
      details: {
        options: options.map((o) => ({ optionId: o.optionId, name: o.name, kind: o.kind })),
        // With no kind of its own the ask takes the one the call's updates gave (Nanocoder 1.30.0
        // asks its multiple-choice questions with no kind, its tool_call saying `other`).
        ...(toolKind ? { toolKind } : {}),
        ...(call.content ? { content: call.content } : {}),
        ...(call.locations ? { locations: call.locations } : {}),
      },
    };
    let resolveCancelled!: (response: acp.RequestPermissionResponse) => void;
    const cancelled = new Promise<acp.RequestPermissionResponse>((resolve) => (resolveCancelled = resolve));
    // Once the ask is answered `cancelled` (the interrupt, the turn's end, the request's abort), the
    // host's decision arriving after it (the interrupt expires the pending approval: a deny) is
    // not what the agent got: it records nothing.
    let lost = false;
    let decided = false;
    const settle = (response: acp.RequestPermissionResponse): void => {
      if (decided) return;
      lost = true;
      if (this.#interrupted) this.#cancel(call.toolCallId);
      resolveCancelled(response);
    };
    this.#open.add(settle);
    const onAbort = (): void => settle(CANCELLED);
    signal.addEventListener("abort", onAbort, { once: true });
    try {
      const answered = this.#sink.requestApproval(ask).then((decision): acp.RequestPermissionResponse => {
        if (lost) return CANCELLED;
        decided = true;
        if (decision.outcome === "answer") {
          // Only an offered option is selected: another answer (one left out) refuses the call.
          const option = options.find((o) => o.optionId === decision.choice);
          if (!option || option.kind.startsWith("reject_")) {
            this.#refused.add(call.toolCallId);
            this.#denied(call.toolCallId, option?.name ?? `${JSON.stringify(decision.choice)} is not an offered option`);
          }
          if (option) return { outcome: { outcome: "selected", optionId: option.optionId } };
          const reject = ofKind("reject_once");
          return reject ? { outcome: { outcome: "selected", optionId: reject.optionId } } : CANCELLED;
        }
        const kinds: acp.PermissionOptionKind[] =
          decision.outcome === "approve" ? ["allow_once", "allow_always"] : ["reject_once", "reject_always"];
        const option = kinds.map(ofKind).find((o) => o !== undefined);
        if (decision.outcome === "deny") {
          this.#refused.add(call.toolCallId);
          this.#denied(call.toolCallId, decision.reason);
        } else if (!option && options.length < request.options.length) {
          // Only an option for every later call too would run it: the approved call is not run.
          const reason = `${name}: the agent offers no option to allow this one call (only one that also allows later calls unasked)`;
          this.#sink.emit({
            type: "notice",
            kind: "policy",
            message: `not run: ${reason}`,
            data: { toolName: name, toolCallId: call.toolCallId },
          });
          this.#refused.add(call.toolCallId);
          this.#denied(call.toolCallId, reason);
        }
        return option ? { outcome: { outcome: "selected", optionId: option.optionId } } : CANCELLED;
      });
      return this.#granting(options, await Promise.race([answered, cancelled]));
    } finally {
      signal.removeEventListener("abort", onAbort);
      this.#open.delete(settle);
    }
  }

  /** `response`, noting in {@link grantedAlways} when it selects one of `options` of kind `allow_always`. */
  #granting(options: readonly acp.PermissionOption[], response: acp.RequestPermissionResponse): acp.RequestPermissionResponse {
    const outcome = response.outcome;
    if (outcome.outcome === "selected" && options.some((o) => o.optionId === outcome.optionId && o.kind === "allow_always"))
      this.grantedAlways = true;
    return response;
  }

  /** Answers the ask of call `id` `cancelled` after the host's interrupt, and remembers it (see {@link UnaskedCall.cancelled}). */
  #cancel(id: string): acp.RequestPermissionResponse {
    this.#cancelled.add(id);
    return CANCELLED;
  }

  /**
   * The host interrupted the turn (`session/cancel` sent): every open permission request, and any
   * later one, is answered `cancelled`, as ACP asks of a client that cancels (not a deny: the host
   * counts no denial); updates are still the turn's until the prompt's answer, and a call whose
   * ask was answered so that the agent then reports `completed` ran against the answer.
   */
  interrupt(): void {
    this.#interrupted = true;
    for (const settle of [...this.#open]) settle(CANCELLED);
    this.#open.clear();
  }

  /**
   * The host refused the agent's `terminal/create` of `request` before starting anything (its
   * policy, or its own ask denied): the refusal belongs to the one open call (announced, not yet
   * reported `completed` or `failed`) whose most acting kind is `execute` and whose input's
   * `command` (with its `args`) is the same command line (whitespace runs aside; a `sh -c <script>`
   * on either side is compared as its script). With no such call, or several, it is no call's.
   * A call so refused that the agent then reports `failed` did not run (see `onUnasked`).
   */
  terminalRefused(request: Pick<acp.CreateTerminalRequest, "command" | "args">): void {
    if (this.#ended || !this.#prompting) return;
    const lines = commandLines([request.command, ...(request.args ?? [])]);
    const naming = [...this.#tools.values()].filter(
      (tool) => !tool.finished && tool.actingKind === "execute" && inputCommandLines(tool.input).some((line) => lines.includes(line)),
    );
    if (naming.length === 1) naming[0]!.refusedTerminal = true;
  }

  /** Stops taking updates and answers every open permission request `cancelled`. */
  end(): void {
    this.#ended = true;
    for (const settle of [...this.#open]) settle(CANCELLED);
    this.#open.clear();
  }

  /** A chunk that is the agent's own notice becomes a `notice` (an `error` one is kept for the verdict). */
  #noticed(text: string): boolean {
    const notice = this.#agentNotice?.(text);
    if (!notice) return false;
    if (notice.level === "error") this.agentError = notice;
    this.#sink.emit({ type: "notice", kind: "runtime", message: notice.message, data: { agentNotice: notice.level } });
    return true;
  }

  #appendText(text: string, messageId: string | undefined): void {
    if (text === "") return;
    this.#thinking = undefined;
    if (!this.#message) {
      this.#message = { text: "" };
      this.transcript.push({ kind: "assistant", text: "" });
    }
    this.#message.text += text;
    this.text = this.#message.text;
    (this.transcript.at(-1) as { text: string }).text = this.#message.text;
    this.#sink.emit({ type: "text-delta", text, ...(messageId ? { messageId } : {}) });
  }

  #appendThinking(text: string, messageId: string | undefined): void {
    if (text === "") return;
    if (!this.#thinking) {
      this.#thinking = { text: "" };
      this.transcript.push({ kind: "thinking", text: "" });
    }
    this.#thinking.text += text;
    (this.transcript.at(-1) as { text: string }).text = this.#thinking.text;
    this.#sink.emit({ type: "thinking-delta", text, ...(messageId ? { messageId } : {}) });
  }

  /**
   * Emits the call's start once, and its end once its input is known (or it is asked about or done),
   * with the most complete input any of its updates carried: agents send `rawInput` on the
   * `tool_call`, on a later `tool_call_update`, or an empty `{}` first and the real one later.
   */
  #toolCall(call: acp.ToolCallUpdate, given: unknown, status: string | undefined, asking = false): void {
    const id = call.toolCallId;
    const name = this.#nameOf(call);
    // A name that is only the call's title or kind gives way to a real one a later update carries.
    const named = name !== call.title && name !== call.kind && name !== "tool";
    let tool = this.#tools.get(id);
    if (!tool) {
      this.#message = undefined;
      this.#thinking = undefined;
      tool = { name, named, input: undefined, ended: false, resulted: false, ...(call.kind ? { kind: call.kind } : {}) };
      this.#tools.set(id, tool);
      this.#sink.emit({ type: "tool-call", phase: "start", id, name, ...(call.kind ? { kind: call.kind } : {}) });
    } else if (!tool.ended && !tool.named && named) {
      tool.name = name;
      tool.named = true;
    }
    tool.kind = moreActing(tool.kind, call.kind);
    const actingBefore = tool.actingKind;
    if (call.kind) {
      tool.kindSeen = true;
      if (changesMachine(call.kind) || (actsKind(call.kind) && tool.actingKind === undefined)) tool.actingKind = call.kind;
    }
    if (callsServer(call, tool.name, this.#trusted, tool.actingKind ?? call.kind)) tool.trusted = true;
    if (!this.#interrupted && reportsStarted(call, status)) tool.startedBeforeCancel = true;
    for (const item of call.content ?? []) if (item.type === "terminal") tool.terminalId = item.terminalId;
    const rawInput = given !== undefined ? given : this.#inputOf?.(call, tool.name);
    if (knownInput(rawInput) || (rawInput !== undefined && tool.input === undefined)) tool.input = rawInput;
    if ((status === "completed" || status === "failed") && !tool.unasked) {
      tool.endStatus = status;
      this.#checkRan(id, tool, call, status);
    } else if (tool.endStatus !== undefined && tool.actingKind !== actingBefore && !tool.unasked) {
      // A kind that acts sent after the call's end (an update with no status) is checked against
      // that end: the call ran as that kind.
      this.#checkRan(id, tool, call, tool.endStatus);
    }
    if (!tool.finished && reportsStarted(call, status === "completed" || status === "failed" ? undefined : status))
      tool.reportedRunning = true;
    const done = status === "completed" || status === "failed";
    // A `pending` announcement's input may be partial (Kilo CLI announces `{ cwd }` after asking
    // with the command): the call ends at its ask, its next update, or its result.
    const settled = knownInput(tool.input) && status !== "pending";
    if (!tool.ended && (settled || asking || done)) {
      tool.ended = true;
      const input = tool.input ?? {};
      this.transcript.push({ kind: "tool-call", toolCallId: id, toolName: tool.name, input });
      this.#sink.emit({ type: "tool-call", phase: "end", id, name: tool.name, input, ...(tool.kind ? { kind: tool.kind } : {}) });
    }
  }

  /**
   * A call reported `completed` or `failed`: unasked while it acts, or run although its ask was
   * denied. A failed call ran as far as anyone can tell (a shell command that wrote a file and
   * exited non-zero is reported `failed`), except where the host has evidence it never ran: its ask
   * was denied (the agent reports the refusal as the call's failure), or the host had cancelled the
   * turn before the call was reported started (an agent ends a call still `pending` `failed` then).
   * A call reported `in_progress` before the cancel has started as far as the host can tell (pi-acp
   * reports pi's shell command `in_progress` as it runs it, then `failed` when the cancel aborts it):
   * unasked, it is a violation although the turn was interrupted. A call the agent answered itself
   * because it has no such tool (a name the model invented) did not run either: reported `failed`
   * with only the agent's "no such tool" text naming it ({@link reportsUnknownTool}), never
   * reported running before, and of no kind that changes the machine. Nor did an `execute` call
   * whose command the host refused in its terminal ({@link terminalRefused}), reported `failed`
   * without naming a host terminal and never reported running (`in_progress`, output) before.
   */
  #checkRan(id: string, tool: ToolState, call: acp.ToolCallUpdate, status: "completed" | "failed"): void {
    const kind = call.kind ?? undefined;
    if (status === "failed" && this.#interrupted && !tool.startedBeforeCancel) return;
    if (
      status === "failed" &&
      !tool.reportedRunning &&
      tool.terminalId === undefined &&
      !changesMachine(tool.actingKind) &&
      reportsUnknownTool(call, tool.name)
    ) {
      this.#sink.emit({
        type: "notice",
        kind: "runtime",
        message: `${tool.name}: the agent has no such tool (the call did not run)`,
        data: { toolCallId: id, toolName: tool.name, unknownTool: true },
      });
      return;
    }
    const refused = this.#refused.has(id);
    const cancelled = !refused && this.#cancelled.has(id);
    if ((refused || cancelled) && status === "failed") return;
    const acting = !tool.kindSeen || tool.actingKind !== undefined;
    const exempt = tool.trusted === true && !changesMachine(tool.actingKind);
    // A host tool's ask allowed without the host, the call then given a kind that changes the
    // machine: no one was asked about the call that ran (nor did the read_only gate see it).
    const asked = this.#asked.has(id) && !(tool.grantedTrusted === true && !exempt);
    // Asked about only as a read, the call then given a kind that acts: the ask was not about it.
    const askedAs = asked && isReadOnlyKind(tool.askedKind) && tool.actingKind !== undefined ? tool.askedKind : undefined;
    if (!refused && !cancelled && (exempt || (askedAs === undefined && (asked || !acting)))) return;
    // The call's one command was the host terminal the host refused (see terminalRefused), and
    // nothing of it was reported running before its failure, nor an exit status with it (an
    // agent that ran the command itself after the refusal): it did not run.
    if (
      status === "failed" &&
      !refused &&
      !cancelled &&
      tool.refusedTerminal === true &&
      tool.actingKind === "execute" &&
      tool.terminalId === undefined &&
      tool.reportedRunning !== true &&
      !reportsExitStatus(call)
    ) {
      this.#sink.emit({
        type: "notice",
        kind: "policy",
        message: `${tool.name}: the host refused its command's terminal (the call did not run)`,
        data: { toolCallId: id, toolName: tool.name, refusedTerminal: true },
      });
      return;
    }
    // The command the call ran in a host terminal the host itself asked about: that was its ask.
    if (!refused && !cancelled && tool.terminalId !== undefined && this.#takeAskedTerminal?.(tool.terminalId) === true) {
      tool.coveredByAsk = true;
      return;
    }
    // The call only reads or ends a host terminal whose command was approved: it runs nothing new.
    if (!refused && !cancelled && this.#controlsApprovedTerminal?.(tool.name, tool.input) === true) {
      tool.coveredByAsk = true;
      return;
    }
    tool.unasked = true;
    const toolKind = tool.actingKind ?? kind ?? tool.kind;
    this.#onUnasked?.({
      toolCallId: id,
      toolName: tool.name,
      ...(toolKind ? { toolKind } : {}),
      ...(askedAs !== undefined && !refused && !cancelled ? { askedAs } : {}),
      ...(refused ? { denied: true } : {}),
      ...(cancelled ? { cancelled: true } : {}),
      status,
    });
  }

  /**
   * A `tool_call` (not an update) for an id whose call the agent already reported `completed` or
   * `failed` starts a new call under the same id: it needs its own ask, and its kinds are its own.
   * Until then a `tool_call` announces the same call, also after its ask (and the host's answer):
   * asks and updates are matched by `toolCallId`, whatever their order.
   */
  #restart(id: string): void {
    const tool = this.#tools.get(id);
    if (!tool?.finished) return;
    delete tool.finished;
    this.#asked.delete(id);
    this.#refused.delete(id);
    this.#cancelled.delete(id);
    delete tool.kind;
    delete tool.askedKind;
    delete tool.kindSeen;
    delete tool.actingKind;
    delete tool.trusted;
    delete tool.grantedTrusted;
    delete tool.endStatus;
    delete tool.unasked;
    delete tool.startedBeforeCancel;
    delete tool.reportedRunning;
    delete tool.refusedTerminal;
  }

  /**
   * A call's end (`completed` / `failed`) becomes its `tool-result`; with the exit code of the last
   * host terminal its content named (the command the agent ran through `terminal/*`), once that
   * terminal has exited with a code.
   */
  #toolUpdate(update: acp.ToolCallUpdate): void {
    const tool = this.#tools.get(update.toolCallId);
    if (!tool) return;
    if (update.status !== "completed" && update.status !== "failed") return;
    tool.finished = true;
    if (tool.resulted) return;
    tool.resulted = true;
    const output = toolCallText(update);
    const isError = update.status === "failed";
    const exitCode = tool.terminalId !== undefined ? this.#terminalExitCode?.(tool.terminalId) : undefined;
    const code = exitCode !== undefined ? { exitCode } : {};
    this.transcript.push({ kind: "tool-result", toolCallId: update.toolCallId, toolName: tool.name, text: output, isError, ...code });
    const covered = tool.coveredByAsk === true ? { coveredByAsk: true as const } : {};
    this.#sink.emit({ type: "tool-result", id: update.toolCallId, name: tool.name, output, isError, ...code, ...covered });
  }

  #denied(id: string, reason: string): void {
    this.denied += 1;
    const tool = this.#tools.get(id);
    if (!tool || tool.resulted) return;
    tool.resulted = true;
    const output = reason === "" ? "denied" : `denied: ${reason}`;
    this.transcript.push({ kind: "tool-result", toolCallId: id, toolName: tool.name, text: output, isError: true });
    this.#sink.emit({ type: "tool-result", id, name: tool.name, output, isError: true });
  }
}

/**
 * An update that reports its call started: status `in_progress`, `completed` or `failed`, or output
 * (`rawOutput`, a host terminal in its content). A `pending` call, or one with no status (ACP's
 * default is `pending`), has not started: its input is streaming or it awaits its ask.
 */
function reportsStarted(call: acp.ToolCallUpdate, status: string | undefined): boolean {
  if (status === "in_progress" || status === "completed" || status === "failed") return true;
  if (call.rawOutput !== undefined && call.rawOutput !== null) return true;
  return (call.content ?? []).some((item) => item.type === "terminal");
}

/** Token counts in ACP's shape (`inputTokens`, `cachedReadTokens`, ...) or the model APIs' (`input_tokens`, ...). */
function tokenCounts(value: unknown): Usage | undefined {
  if (typeof value !== "object" || value === null) return undefined;
  const usage = value as Record<string, unknown>;
  const count = (...keys: string[]): number | undefined => {
    for (const key of keys) if (typeof usage[key] === "number") return usage[key];
    return undefined;
  };
  const inputTokens = count("inputTokens", "input_tokens");
  const outputTokens = count("outputTokens", "output_tokens");
  if (inputTokens === undefined || outputTokens === undefined) return undefined;
  const cacheRead = count("cachedReadTokens", "cacheReadTokens", "cache_read_input_tokens", "cached_read_tokens");
  const cacheWrite = count("cachedWriteTokens", "cacheWriteTokens", "cache_creation_input_tokens", "cached_write_tokens");
  return {
    inputTokens,
    outputTokens,
    ...(cacheRead !== undefined ? { cacheReadTokens: cacheRead } : {}),
    ...(cacheWrite !== undefined ? { cacheWriteTokens: cacheWrite } : {}),
  };
}

/**
 * Token counts of a `session/prompt` answer: the ACP `usage` field, else a `usage` an agent puts in
 * `_meta` (camelCase or the model API's snake_case), else Gemini CLI's `_meta.quota.token_count`.
 */
export function promptUsage(response: acp.PromptResponse): Usage | undefined {
  const record = response as Record<string, unknown>;
  const usage = tokenCounts(record["usage"]) ?? tokenCounts(response._meta?.["usage"]);
  if (usage) return usage;
  const quota = (response._meta?.["quota"] as Record<string, unknown> | undefined)?.["token_count"] as Record<string, unknown> | undefined;
  if (quota && typeof quota["input_tokens"] === "number" && typeof quota["output_tokens"] === "number") {
    return { inputTokens: quota["input_tokens"], outputTokens: quota["output_tokens"] };
  }
  return undefined;
}

/** Keys under which agents report a command's exit status in a tool call's `rawOutput`. */
const EXIT_STATUS_KEYS = ["exit_code", "exitCode", "exit_status", "exitStatus", "returncode", "returnCode"];

/** Whether `call`'s `rawOutput` reports an exit status (a number under {@link EXIT_STATUS_KEYS}): a command ran. */
function reportsExitStatus(call: { readonly rawOutput?: unknown }): boolean {
  const raw = call.rawOutput;
  if (typeof raw !== "object" || raw === null) return false;
  return EXIT_STATUS_KEYS.some((key) => typeof (raw as Record<string, unknown>)[key] === "number");
}
