import { PolicyCapabilityUnsupportedError, type DriverDescriptor, type DriverRequest, type DriverSink } from "@adaptor/driver";
import {
  deepFreeze,
  OneShotCliDriver,
  StreamJsonTurn,
  toApprovalAsk,
  toPermissionAnswer,
  type CanUseToolRequest,
  type OneShotTurnContext,
  type OneShotTurnHandler,
} from "@adaptor/driver/kit";
import type { CliProcess } from "@adaptor/driver/process";
import { classifyCodeBuddyTurn } from "./classify.js";
import { CODEBUDDY_INHERITED_ENV, validateCodeBuddyConfig, type CodeBuddyConfig } from "./config.js";

/**
 * What the CodeBuddy driver does, proved against the real `codebuddy` CLI (2.117.0, shipped in
 * `@tencent-ai/agent-sdk` 0.3.201) with a scripted chat-completions model (packages/codebuddy/test/):
 * resume and fork by session id, no process reuse, structured output by prompt instructions (the
 * SDK's), no MCP or sandbox flags, a system prompt replaced or appended, text deltas
 * (`--include-partial-messages`). Permission approvals: `inherit` (the CLI's own settings; print
 * mode denies what would need asking), `auto_approve` (`--dangerously-skip-permissions`), `ask`
 * and `auto_deny` (the control protocol: each `can_use_tool` request is the host's approval).
 */
export const CODEBUDDY_DESCRIPTOR: DriverDescriptor = deepFreeze<DriverDescriptor>({
  type: "codebuddy",
  displayName: "CodeBuddy Code",
  capabilities: {
    sessions: { resume: true, fork: true },
    processReuse: false,
    structuredOutput: { native: false, prompt: true },
    mcp: { transports: [] },
    policy: { sandbox: [], webSearch: [], browser: [], activeExecutionTimeout: false },
    approvals: { permission: ["inherit", "ask", "auto_approve", "auto_deny"], plan_review: ["inherit"], question: ["inherit"] },
    systemPrompt: ["replace", "append"],
    streaming: { textDeltas: true, thinking: false, toolCallArgs: false },
  },
});

/**
 * Drives CodeBuddy Code in print mode: `codebuddy -p --output-format stream-json --verbose
 * --include-partial-messages [--model m] [--resume <session id> [--fork-session]]
 * [--system-prompt s | --append-system-prompt s] [--dangerously-skip-permissions] <extraArgs>`,
 * the prompt on stdin (then closed), one process per run. With `ask` or `auto_deny` permission
 * approvals it runs the control protocol instead (`--input-format stream-json` in place of `-p`):
 * an `initialize` control request, the prompt as a user line, each `can_use_tool` request answered
 * with the host's decision, stdin closed after the `result` line. The output is Claude Code's
 * stream-json format, read by the kit's `StreamJsonTurn`; the `result` line ends the run. Cancel
 * terminates the process group.
 */
export class CodeBuddyDriver extends OneShotCliDriver<CodeBuddyConfig> {
  constructor(config: CodeBuddyConfig = {}) {
    super(
      {
        descriptor: CODEBUDDY_DESCRIPTOR,
        validate: validateCodeBuddyConfig,
        command: "codebuddy",
        inheritedEnv: CODEBUDDY_INHERITED_ENV,
        outputSchemaRefusal: "the driver runs the SDK's prompt mode, not --json-schema",
        args: codebuddyArgs,
        // The descriptor accepts only permission modes besides `inherit`.
        enforcement: (_field, value) =>
          value === "auto_approve"
            ? { mechanisms: ["cli_flag"], detail: "--dangerously-skip-permissions" }
            : { mechanisms: ["approval"], detail: "the CLI asks through the control protocol (can_use_tool); the SDK answers" },
        // The control protocol is the CLI's SDK entry point.
        env: (request) => (asksHost(request) ? { CODEBUDDY_CODE_ENTRYPOINT: "sdk-ts" } : undefined),
        startTurn: codebuddyTurn,
      },
      config,
    );
  }
}

/** One run: the prompt (plain on stdin, or the control protocol's lines), the stream-json lines read by `StreamJsonTurn`. */
function codebuddyTurn({ proc, request, sink }: OneShotTurnContext<CodeBuddyConfig>): OneShotTurnHandler {
  const turn = new StreamJsonTurn((event) => sink.emit(event));
  /** The text of the CLI's `{"type":"error"}` line (it ends a run that never started, e.g. an unknown `--resume`). */
  let errorLine: string | undefined;
  const control = asksHost(request);
  return {
    begin: (guarded) => {
      if (control) {
        // The control protocol: `initialize`, then the prompt as a user line; stdin stays open for the answers.
        proc.writeJson(controlRequest("adaptor_init", { subtype: "initialize", hasPrompt: true })).catch(() => undefined);
        proc.writeJson(userLine(request.prompt)).catch(() => undefined);
      } else {
        proc.writeText(request.prompt).catch(() => undefined);
        proc.closeStdin();
      }
      return (value, text) => {
        if (value.type === "control_request") onControlRequest(proc, guarded, turn, value);
        else if (value.type === "error") {
          errorLine = typeof value.error === "string" ? value.error : JSON.stringify(value.error ?? null);
          sink.emit({ type: "notice", kind: "runtime", message: `codebuddy error: ${errorLine}`, data: value });
        } else if (value.type !== "control_response" && value.type !== "control_cancel_request") return turn.accept(value, text);
        // A control response answers the driver's `initialize` (models, commands): nothing the run needs.
        return false;
      };
    },
    end: () => {
      if (control) proc.closeStdin();
    },
    finish: (exit) => {
      const terminal = turn.terminal?.line;
      const failure = classifyCodeBuddyTurn({
        terminal,
        exitCode: exit.code,
        exitSignal: exit.signal,
        stderrTail: proc.stderrTail(),
        resuming: request.session !== undefined,
        errorLine,
      });
      return {
        text: typeof terminal?.result === "string" ? terminal.result : assistantText(turn),
        transcript: turn.transcript,
        model: turn.model,
        usage: turn.usage(),
        failure,
        resumeId: turn.sessionId,
      };
    },
  };
}

/**
 * A control request of the CLI: `can_use_tool` becomes the host's approval, answered
 * `{ allowed: true, updatedInput }` or `{ allowed: false, reason }`; any other request gets an
 * error answer, so the CLI never waits.
 */
function onControlRequest(proc: CliProcess, sink: DriverSink, turn: StreamJsonTurn, message: Record<string, unknown>): void {
  const id = String(message.request_id ?? "");
  const request = (message.request ?? {}) as Partial<CanUseToolRequest> & { subtype?: string };
  const respond = (response: Record<string, unknown>): void =>
    void proc.writeJson({ type: "control_response", response: { subtype: "success", request_id: id, response } }).catch(() => undefined);
  if (request.subtype !== "can_use_tool" || typeof request.tool_name !== "string") {
    void proc
      .writeJson({
        type: "control_response",
        response: { subtype: "error", request_id: id, error: `unsupported control request ${String(request.subtype)}` },
      })
      .catch(() => undefined);
    return;
  }
  const ask = request as CanUseToolRequest;
  sink
    .requestApproval(toApprovalAsk(ask, turn.toolInput(ask.tool_use_id)))
    .then((decision) => {
      const answer = toPermissionAnswer(ask, decision);
      respond(
        answer.behavior === "allow"
          ? { allowed: true, updatedInput: answer.updatedInput, tool_use_id: ask.tool_use_id }
          : { allowed: false, reason: answer.message, tool_use_id: ask.tool_use_id },
      );
    })
    .catch((error: unknown) =>
      respond({ allowed: false, reason: error instanceof Error ? error.message : String(error), tool_use_id: ask.tool_use_id }),
    );
}

/** True when the run's permission asks go to the host through the control protocol (`ask`, `auto_deny`). */
function asksHost(request: DriverRequest): boolean {
  const mode = request.policy?.approvals?.permission;
  return mode === "ask" || mode === "auto_deny";
}

/** A control request of the driver's. */
function controlRequest(id: string, request: Record<string, unknown>): Record<string, unknown> {
  return { type: "control_request", request_id: id, request };
}

/** The user line that carries the prompt on stdin (control protocol). */
function userLine(text: string): Record<string, unknown> {
  return { type: "user", session_id: "", message: { role: "user", content: text }, parent_tool_use_id: null };
}

/** The assistant text of a turn without a `result` line. */
function assistantText(turn: StreamJsonTurn): string {
  return turn.transcript.flatMap((item) => (item.kind === "assistant" ? [item.text] : [])).join("");
}

/**
 * The argv of one run (the prompt is never in it: it goes on stdin).
 * @throws PolicyCapabilityUnsupportedError for an `ask` / `auto_deny` run with `workspaceSettings`
 * (the workspace's hooks would run commands nobody is asked about).
 */
export function codebuddyArgs(config: CodeBuddyConfig, request: DriverRequest): string[] {
  const model = request.model ?? config.model;
  const system = request.systemPrompt;
  if (config.workspaceSettings && asksHost(request)) {
    const mode = request.policy!.approvals!.permission!;
    const error = new PolicyCapabilityUnsupportedError("codebuddy", "approvals.permission", mode);
    error.message = `codebuddy: policy approvals.permission=${JSON.stringify(mode)} cannot be enforced: workspaceSettings loads the workspace's hooks, which run commands no policy governs; drop the option or the policy`;
    throw error;
  }
  return [
    ...(asksHost(request) ? ["--input-format", "stream-json"] : ["-p"]),
    "--output-format",
    "stream-json",
    "--verbose",
    "--include-partial-messages",
    ...(model ? ["--model", model] : []),
    ...(request.session ? ["--resume", request.session.resumeId, ...(request.session.fork ? ["--fork-session"] : [])] : []),
    ...(system ? [system.mode === "replace" ? "--system-prompt" : "--append-system-prompt", system.text] : []),
    ...(request.policy?.approvals?.permission === "auto_approve" ? ["--dangerously-skip-permissions"] : []),
    // The host decides: no settings file's permission mode answers in its place.
    ...(asksHost(request) ? ["--permission-mode", "default"] : []),
    // The workspace's own settings files (hooks that run commands, permission rules) only when asked for.
    "--setting-sources",
    config.workspaceSettings ? "user,project,local" : "user",
    ...(config.extraArgs ?? []),
  ];
}

/**
 * The CodeBuddy Code CLI driver (print mode, stream-json).
 * @throws InvalidDriverConfigError (from runs and `validateConfig()`) for a bad config.
 * @example
 * ```ts
 * const agent = new Agent(codebuddy({ cwd: "/path/to/project", model: "gpt-5.4" }));
 * const result = await agent.run("Summarise the README", { policy: { approvals: { permission: "auto_approve" } } });
 * ```
 */
export function codebuddy(config: CodeBuddyConfig = {}): CodeBuddyDriver {
  return new CodeBuddyDriver(config);
}
