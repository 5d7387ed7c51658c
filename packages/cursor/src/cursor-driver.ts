import {
  assertPolicySupported,
  StructuredOutputUnsupportedError,
  type Driver,
  type DriverDescriptor,
  type DriverFailure,
  type DriverRequest,
  type DriverResponse,
  type DriverSink,
} from "@adaptor/driver";
import { captureConfig, deepFreeze, graceMs, oneShotTurn, ProcessPool, spawnLimits, type PooledProcess } from "@adaptor/driver/kit";
import { mergeChildEnv, spawnCli, type CliProcess } from "@adaptor/driver/process";
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
export class CursorDriver implements Driver {
  readonly descriptor = CURSOR_DESCRIPTOR;
  readonly config: CursorConfig;
  readonly #validate: () => void;
  readonly #pool: ProcessPool<PooledProcess>;

  constructor(config: CursorConfig = {}) {
    const captured = captureConfig(validateCursorConfig, config);
    this.config = captured.config;
    this.#validate = captured.validate;
    this.#pool = new ProcessPool(this.config);
  }

  /** @throws InvalidDriverConfigError for a config the driver cannot use. */
  validateConfig(): void {
    this.#validate();
  }

  async run(request: DriverRequest, sink: DriverSink, signal: AbortSignal): Promise<DriverResponse> {
    signal.throwIfAborted();
    this.validateConfig();
    assertPolicySupported(this.descriptor, request.policy);
    if (request.outputSchema) throw new StructuredOutputUnsupportedError("cursor", "cursor-agent has no native JSON Schema output");
    const proc = await this.#pool.spawn(() =>
      spawnCli({
        command: this.config.command ?? "cursor-agent",
        args: cursorArgs(this.config, request),
        cwd: request.cwd ?? this.config.cwd ?? process.cwd(),
        env: mergeChildEnv({
          inheritEnv: this.config.inheritEnv,
          defaultInherit: CURSOR_INHERITED_ENV,
          layers: [this.config.env, request.env],
        }),
        device: "cursor",
        ...spawnLimits(this.config),
      }),
    );
    sink.emit({ type: "process", kind: "spawn", pid: proc.pid });
    return this.#pool.serve(proc, () => this.#turn(proc, request, sink, signal));
  }

  /** Ends every process of this driver. Idempotent. */
  close(): Promise<void> {
    return this.#pool.close();
  }

  /** Same as {@link close}. */
  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }

  async #turn(proc: CliProcess, request: DriverRequest, sink: DriverSink, signal: AbortSignal): Promise<DriverResponse> {
    const turn = new CursorTurn((event) => sink.emit(event));
    // No output for stallTimeoutMs ends the run like a cancel, with a TIMEOUT verdict (print mode asks nothing).
    const exit = await oneShotTurn(proc, sink, signal, {
      device: "cursor",
      stallTimeoutMs: this.config.stallTimeoutMs,
      graceMs: graceMs(this.config),
      begin: () => {
        proc.writeText(request.prompt).catch(() => undefined);
        proc.closeStdin();
        return (value) => turn.accept(value);
      },
    });
    const failure = turn.failure() ?? (turn.terminal ? undefined : exitFailure(request, exit.code, exit.signal, proc.stderrTail()));
    return {
      text: turn.text,
      transcript: [{ kind: "user", text: request.prompt }, ...turn.transcript],
      raw: proc.takeOutput(),
      ...(turn.model ? { model: turn.model } : {}),
      ...(failure ? { failure } : turn.sessionId ? { checkpoint: { resumeId: turn.sessionId } } : {}),
      exit: { code: exit.code, signal: exit.signal },
    };
  }
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
