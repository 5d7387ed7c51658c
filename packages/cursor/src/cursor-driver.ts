import type { DriverDescriptor, DriverFailure, DriverRequest } from "@adaptor/driver";
import { deepFreeze, OneShotCliDriver, type OneShotTurnContext, type OneShotTurnHandler } from "@adaptor/driver/kit";
import { CURSOR_INHERITED_ENV, validateCursorConfig, type CursorConfig } from "./config.js";
import { CursorTurn } from "./turn.js";

/**
 * What the Cursor driver does, proved against a fake CLI that replays the documented stream-json
 * format (packages/cursor/test/), not against the real binary, which is not on the npm registry:
 * resume by chat id (no fork), no process reuse, structured output by prompt instructions (the
 * SDK's), no MCP or sandbox flags, text deltas (`--stream-partial-output`). Print mode has no
 * approval channel: the CLI's own permission settings decide (`inherit`), or `--force` allows
 * every command (`auto_approve`).
 */
export const CURSOR_DESCRIPTOR: DriverDescriptor = deepFreeze<DriverDescriptor>({
  type: "cursor",
  displayName: "Cursor Agent",
  capabilities: {
    sessions: { resume: true, fork: false },
    processReuse: false,
    structuredOutput: { native: false, prompt: true },
    mcp: { transports: [] },
    policy: { sandbox: [], webSearch: [], browser: [], activeExecutionTimeout: false },
    approvals: { permission: ["inherit", "auto_approve"], plan_review: ["inherit"], question: ["inherit"] },
    streaming: { textDeltas: true, thinking: false, toolCallArgs: false },
  },
});

/** stderr of a resume the CLI could not find (the chat id is unknown to it). */
const UNKNOWN_CHAT = /chat.*not found|no (?:such )?(?:chat|session)|unknown (?:chat|session)/i;

/**
 * Drives the Cursor Agent CLI in print mode: `cursor-agent -p --output-format stream-json
 * --stream-partial-output [--model m] [--resume <chat id>] [--force] <extraArgs>`, the prompt on
 * stdin (then closed), one process per run. The `result` line ends the run; a run that resumes a
 * chat the CLI does not know (exit without a result, stderr saying so) is `resume_rejected`.
 * Cancel terminates the process group (print mode has no interrupt).
 */
export class CursorDriver extends OneShotCliDriver<CursorConfig> {
  constructor(config: CursorConfig = {}) {
    super(
      {
        descriptor: CURSOR_DESCRIPTOR,
        validate: validateCursorConfig,
        command: "cursor-agent",
        inheritedEnv: CURSOR_INHERITED_ENV,
        outputSchemaRefusal: "cursor-agent has no native JSON Schema output",
        args: cursorArgs,
        // The descriptor accepts only `auto_approve` besides `inherit`.
        enforcement: () => ({ mechanisms: ["cli_flag"], detail: "--force" }),
        startTurn: cursorTurn,
      },
      config,
    );
  }
}

/** One run: the prompt on stdin (then closed), the stream-json lines read by `CursorTurn` (print mode asks nothing). */
function cursorTurn({ proc, request, sink }: OneShotTurnContext<CursorConfig>): OneShotTurnHandler {
  const turn = new CursorTurn((event) => sink.emit(event));
  return {
    begin: () => {
      proc.writeText(request.prompt).catch(() => undefined);
      proc.closeStdin();
      return (value) => turn.accept(value);
    },
    finish: (exit) => ({
      text: turn.text,
      transcript: turn.transcript,
      model: turn.model,
      failure: turn.failure() ?? (turn.terminal ? undefined : exitFailure(request, exit.code, exit.signal, proc.stderrTail())),
      resumeId: turn.sessionId,
    }),
  };
}

/** The argv of one run (the prompt is never in it: it goes on stdin). */
export function cursorArgs(config: CursorConfig, request: DriverRequest): string[] {
  const model = request.model ?? config.model;
  return [
    "-p",
    "--output-format",
    "stream-json",
    "--stream-partial-output",
    ...(model ? ["--model", model] : []),
    ...(request.session ? ["--resume", request.session.resumeId] : []),
    ...(request.policy?.approvals?.permission === "auto_approve" ? ["--force"] : []),
    ...(config.extraArgs ?? []),
  ];
}

/** The failure of a run that ended without a `result` line. */
function exitFailure(request: DriverRequest, code: number | null, signal: NodeJS.Signals | null, stderr: string): DriverFailure {
  if (request.session && UNKNOWN_CHAT.test(stderr)) return { reason: "resume_rejected", message: stderr, details: { exitCode: code } };
  const how = signal ? `killed by ${signal}` : `code ${String(code)}`;
  return {
    reason: "agent_error",
    message: `cursor-agent exited (${how}) without a result line${stderr ? `: ${stderr}` : ""}`,
    details: { exitCode: code, exitSignal: signal, stderrTail: stderr },
  };
}

/**
 * The Cursor Agent CLI driver (print mode, stream-json).
 * @throws InvalidDriverConfigError (from runs and `validateConfig()`) for a bad config.
 * @example
 * ```ts
 * const agent = new Agent(cursor({ cwd: "/path/to/project", model: "gpt-5" }));
 * const result = await agent.run("Summarise the README", { policy: { approvals: { permission: "auto_approve" } } });
 * ```
 */
export function cursor(config: CursorConfig = {}): CursorDriver {
  return new CursorDriver(config);
}
