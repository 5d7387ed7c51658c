import type { DriverFailure, DriverRequest, DriverResponse, DriverSink, PolicyEnforcement } from "@adaptor/driver";
import { forceKilledError, launchSecrets, rawStreams, spawnCli, type CliProcess, type ExitInfo } from "@adaptor/driver/process";
import { DriverError, ErrCode } from "@adaptor/errors";
import { classifyCodexTurn, MAX_MODEL_RETRIES, modelUnreachable, plainText, resumeRefusal, retryCause } from "../classify.js";
import { configOverrideArgs, type CodexConfig } from "../config.js";
import { structuredAnswer } from "../output-schema/structured-answer.js";
import { WRITABLE_ROOTS_KEY, type CodexPolicyPlan } from "../policy.js";
import { codexEnv, commonArgs } from "../process-helpers.js";
import { exitOrTerminate, graceMs, readTextBatches, responseExit, spawnLimits, StallWatchdog } from "@adaptor/driver/kit";
import { readCheckpointData, usageSince, type CodexCheckpointData } from "../session/checkpoint-data.js";
import type { ExecEvent } from "./exec-events.js";
import { rewindExecThread, type ExecRewindOutcome } from "./exec-rewind.js";
import { rolloutModel, rolloutUsageTotal } from "./rollout-usage.js";
import { ExecTurnState } from "./exec-turn-state.js";
import { AgentMessageLineReader } from "./agent-message-line.js";
import { reportLateOutput } from "../turn-end.js";
import { execImagePath, promptImageFiles } from "../prompt-images/image-files.js";
import { RunFiles } from "../prompt-images/run-files.js";

const DEVICE = "codex";

/** Everything one exec run needs. */
export interface ExecRunInit {
  readonly command: string;
  readonly config: CodexConfig;
  readonly request: DriverRequest;
  readonly sink: DriverSink;
  readonly signal: AbortSignal;
  readonly plan: CodexPolicyPlan;
  readonly outputSchema: Record<string, unknown> | undefined;
  readonly track: (proc: CliProcess) => () => void;
  /** How the run's policy is enforced, reported in the response. */
  readonly enforcement: readonly PolicyEnforcement[];
}

/**
 * The argv of one `codex exec --json` run: `exec --json --skip-git-repo-check [-m model]
 * [-s sandbox] [-c approval_policy=…] [-c model_reasoning_effort=…] [-c model_instructions_file=… | developer_instructions=…] [--output-schema file] <overrides/extra> [resume <id>] -`.
 * The prompt is never in argv: `-` makes codex read it from stdin, which gets the prompt and is
 * then closed.
 */
export function execArgs(
  request: DriverRequest,
  config: CodexConfig,
  plan: CodexPolicyPlan,
  schemaFile: string | undefined,
  promptFile?: string,
  imageFiles: readonly string[] = [],
): string[] {
  const model = request.model ?? config.model;
  return [
    "exec",
    "--json",
    "--skip-git-repo-check",
    ...(model ? ["-m", model] : []),
    ...(plan.sandbox ? ["-s", plan.sandbox] : []),
    // The driver's pin of the workspace-write roots: the run's additionalDirectories, else none (the
    // host's own value comes with its configOverrides).
    ...(Array.isArray(plan.writableRoots) && !plan.hostWritableRoots
      ? configOverrideArgs({ [WRITABLE_ROOTS_KEY]: plan.writableRoots })
      : []),
    ...(plan.approvalPolicy ? ["-c", `approval_policy="${plan.approvalPolicy}"`] : []),
    ...(plan.webSearch ? ["-c", `web_search="${plan.webSearch}"`] : []),
    ...(request.effort ? ["-c", `model_reasoning_effort="${request.effort}"`] : []),
    ...systemPromptArgs(request, promptFile),
    ...(schemaFile ? ["--output-schema", schemaFile] : []),
    // `exec --image` takes any number of values (it would take `resume <id> -` as images too):
    // one `--image=<file>` each, and for a resumed session `resume`'s own `--image`.
    ...(request.session ? [] : images(imageFiles)),
    ...commonArgs(config),
    ...(request.session ? ["resume", ...images(imageFiles), request.session.resumeId] : []),
    "-",
  ];
}

/** One `--image=<file>` argument per image (the `=` form: a value never swallows the next argument). */
function images(files: readonly string[]): string[] {
  return files.map((file) => `--image=${file}`);
}

/**
 * The request with the model and effort the thread's last committed turn named (its checkpoint
 * `data`), where it names none itself: `codex exec resume` would take them from the config again,
 * while a thread on app-server keeps them. A run that is not a thread turn is returned as it is.
 */
function keptModelAndEffort(request: DriverRequest): DriverRequest {
  if (!request.session || (request.model !== undefined && request.effort !== undefined)) return request;
  const kept = readCheckpointData(request.session.data);
  const model = request.model ?? kept.model;
  const effort = request.effort ?? (kept.effort as DriverRequest["effort"]);
  return { ...request, ...(model !== undefined ? { model } : {}), ...(effort !== undefined ? { effort } : {}) };
}

/**
 * The run's system prompt as config overrides: `model_instructions_file` (a file holding the
 * text) replaces codex's base instructions, `developer_instructions` adds a developer message
 * after them (what app-server's `baseInstructions` / `developerInstructions` set). Values are TOML
 * basic strings (a JSON string literal is one).
 */
function systemPromptArgs(request: DriverRequest, promptFile: string | undefined): string[] {
  const prompt = request.systemPrompt;
  if (!prompt) return [];
  if (prompt.mode === "append") return ["-c", `developer_instructions=${JSON.stringify(prompt.text)}`];
  return promptFile ? ["-c", `model_instructions_file=${JSON.stringify(promptFile)}`] : [];
}

/**
 * One turn over `codex exec --json` (docs/protocols.md): batch, no approval channel, stdin
 * closed at once; `turn.completed` / `turn.failed` is the terminal; cancellation is SIGTERM then
 * SIGKILL (exec has no interrupt request). A resume of a thread codex cannot find exits 1 before
 * `thread.started` and becomes `resume_rejected`.
 */
export async function runExec(asked: ExecRunInit): Promise<DriverResponse> {
  const init = { ...asked, request: keptModelAndEffort(asked.request) };
  const { config, request, sink, signal, plan } = init;
  // Per-run files (output schema, replaced instructions, image copies), removed after the run.
  const files = new RunFiles();
  try {
    const schemaFile = init.outputSchema ? await files.write("schema.json", JSON.stringify(init.outputSchema)) : undefined;
    const promptFile =
      request.systemPrompt?.mode === "replace" ? await files.write("instructions.md", request.systemPrompt.text) : undefined;
    const imageFiles = await promptImageFiles(request.images, files, execImagePath);
    return await execTurn(init, execArgs(request, config, plan, schemaFile, promptFile, imageFiles), sink, signal);
  } finally {
    await files.remove();
  }
}

async function execTurn(init: ExecRunInit, args: string[], sink: DriverSink, signal: AbortSignal): Promise<DriverResponse> {
  const { config, request } = init;
  signal.throwIfAborted();
  const previous = readCheckpointData(request.session?.data);
  // The thread starts from the committed checkpoint: turns codex recorded after it are dropped
  // first. A thread with no count in its checkpoint (an adopted CLI thread) is counted instead,
  // and its running usage total read, so this turn's usage and the next turns' cut-back are known.
  let opened: ExecRewindOutcome | undefined;
  if (request.session) {
    opened = await rewindExecThread({
      command: init.command,
      config,
      request: { ...request, session: request.session },
      sink,
      signal,
      turns: previous.turns,
    });
    if (opened.failure)
      return { text: "", transcript: [], raw: { stdout: "", stderr: "" }, enforcement: init.enforcement, failure: opened.failure };
  }
  const baseTurns = previous.turns ?? opened?.turns;
  // An adopted thread's running total before this turn: the last one codex recorded in its rollout.
  const baseUsage =
    previous.usage ??
    (request.session && previous.turns === undefined ? await rolloutUsageTotal(config, request.session.resumeId, request.env) : undefined);
  const env = codexEnv(config, request.env);
  const proc = await spawnCli({
    command: init.command,
    args,
    cwd: request.cwd ?? config.cwd ?? process.cwd(),
    env,
    device: DEVICE,
    ...spawnLimits(config),
    // The credentials the run hands codex read [redacted] in its stderr events and result.raw().
    redactRaw: launchSecrets(env, request.mcpServers),
    onStderr: (text) => sink.emit({ type: "process", kind: "stderr", text }),
  });
  const untrack = init.track(proc);
  sink.emit({ type: "process", kind: "spawn", pid: proc.pid });
  // No output for stallTimeoutMs ends the run like a cancel, with a TIMEOUT verdict (exec asks no approvals).
  const watchdog = new StallWatchdog(proc, { timeoutMs: config.stallTimeoutMs, device: DEVICE });
  const runSignal = AbortSignal.any([signal, watchdog.signal]);
  // A dead child is classified from its exit; a failed write alone is no verdict.
  proc
    .writeText(request.prompt)
    .catch(() => undefined)
    .finally(() => proc.closeStdin());
  const turn = new ExecTurnState((event) => sink.emit(event), config.maxModelRetries ?? MAX_MODEL_RETRIES);
  const onAbort = (): void => void proc.terminate();
  runSignal.addEventListener("abort", onAbort, { once: true });
  if (runSignal.aborted) onAbort();
  let exit: ExitInfo;
  // Terminal means terminal: after `turn.completed` / `turn.failed` codex gets the kill grace to
  // exit and close its output, then it is terminated; the verdict is the terminal already read.
  let afterTerminal: Promise<ExitInfo> | undefined;
  try {
    // A completed agent message of the shape learned from the one before is read without a parse.
    // Between two lines the host's loop takes its events in step (beforeNextLine, in readTextBatches).
    const messages = new AgentMessageLineReader();
    await readTextBatches(proc.textBatches(), sink, (text) => {
      if (messages.read(text)) {
        turn.agentMessage(messages.id, messages.text);
        return true;
      }
      let value: unknown;
      try {
        value = JSON.parse(text);
      } catch {
        value = undefined;
      }
      if (typeof value === "object" && value !== null && typeof (value as { type?: unknown }).type === "string") {
        messages.learn(text, value as Record<string, unknown>);
        if (turn.accept(value as ExecEvent, text)) afterTerminal ??= exitOrTerminate(proc, graceMs(config));
      } else {
        sink.emit({ type: "process", kind: "stdout", text });
      }
      return false;
    });
    // Stdout ended without a terminal: codex can report nothing more. One that stays alive is given
    // the grace to exit, then ended, rather than waited for until the stall timeout.
    exit = await (afterTerminal ?? exitOrTerminate(proc, graceMs(config)));
  } finally {
    watchdog.close();
    runSignal.removeEventListener("abort", onAbort);
    await proc.close();
    untrack();
  }
  if (runSignal.aborted) {
    // What ran before the stop: the agent's text and the transcript (exec reports usage only at the turn's end).
    sink.partial?.({
      text: turn.lastAgentText ?? "",
      ...((request.model ?? config.model) ? { model: request.model ?? config.model } : {}),
      transcript: turn.transcript.items(),
    });
    throw exit.forceKilled ? forceKilledError(DEVICE, runSignal.reason) : runSignal.reason;
  }

  reportLateOutput(sink, turn.late);
  const stderrTail = plainText(proc.stderrTail());
  let failure: DriverFailure | undefined;
  if (request.session && !turn.threadId && exit.code !== 0) {
    // codex could not open the thread. Only "no such thread" may lead to a fresh start; a thread
    // another process is writing to is `session_busy`; anything else is an infrastructure error.
    const message = /Error: (.*)/.exec(stderrTail)?.[1] ?? `codex exec resume failed (code ${String(exit.code)})`;
    const refusal = resumeRefusal(stderrTail);
    if (refusal === "other") {
      throw new DriverError({ op: "exec resume", device: DEVICE, code: ErrCode.Driver, cause: new Error(stderrTail || message) });
    }
    failure = {
      reason: refusal === "missing" ? "resume_rejected" : "session_busy",
      message,
      details: { resumeId: request.session.resumeId, exitCode: exit.code, stderrTail },
      cause: new Error(stderrTail || message),
    };
  }
  if (turn.gaveUp) failure ??= modelUnreachable(turn.gaveUp, retryCause(stderrTail));
  failure ??= classifyCodexTurn({
    status: turn.status,
    ...(turn.errorMessage !== undefined ? { errorMessage: turn.errorMessage } : {}),
    exitCode: exit.code,
    exitSignal: exit.signal,
    ...(exit.terminated === true ? { endedBySdk: true } : {}),
    stderrTail,
  });
  const text = turn.lastAgentText ?? "";
  const structured = !failure && init.outputSchema ? structuredAnswer(text, request.outputSchema, sink) : undefined;
  // `codex exec resume` reports the thread's running total: the run's own usage is the difference
  // from the total kept in the checkpoint, unknown when there is none.
  const total = turn.usage();
  const usage = total && request.session ? usageSince(total, baseUsage) : total;
  if (total && request.session && !usage) {
    sink.emit({
      type: "notice",
      kind: "runtime",
      message: "usage unknown: codex reported the thread's running total and no previous total was recorded",
      data: { total },
    });
  }
  const turns = request.session ? (baseTurns !== undefined ? baseTurns + 1 : undefined) : 1;
  // No checkpoint counts an adopted thread's turns yet: a failed first turn there is dropped now,
  // or the next adoption would continue after it.
  if (failure && request.session && previous.turns === undefined && baseTurns !== undefined && turn.threadId)
    await dropFailedTurn(init, { ...request, session: request.session }, baseTurns);
  // Only a model or effort a turn named is kept (as on app-server): a thread that names none follows the driver's.
  const data: CodexCheckpointData = {
    ...(turns !== undefined ? { turns } : {}),
    ...(total ? { usage: total } : {}),
    ...(request.model !== undefined ? { model: request.model } : {}),
    ...(request.effort !== undefined ? { effort: request.effort } : {}),
  };
  // `codex exec --json` names no model: one the run did not name is read from the thread's rollout.
  const model = request.model ?? config.model ?? (turn.threadId ? await rolloutModel(config, turn.threadId, request.env) : undefined);
  return {
    text: failure ? "" : text,
    ...(structured !== undefined ? { structured } : {}),
    ...(model ? { model } : {}),
    ...(usage ? { usage } : {}),
    // Made when first read: the SDK reads it when the host asks the Result for its transcript.
    get transcript() {
      return turn.transcript.items();
    },
    raw: rawStreams(proc.takeOutput(), turn.terminal),
    ...(!failure && turn.threadId ? { checkpoint: { resumeId: turn.threadId, data } } : {}),
    ...(failure ? { failure } : {}),
    exit: responseExit(exit),
    enforcement: init.enforcement,
  };
}

/**
 * Drops the turn an adopted thread's failed first turn left in codex's thread (see
 * `rewindExecThread`), so the thread stays where it was adopted. A failure to do so is a `warning`
 * notice: the run's verdict is its own failure.
 */
async function dropFailedTurn(
  init: ExecRunInit,
  request: DriverRequest & { readonly session: NonNullable<DriverRequest["session"]> },
  turns: number,
): Promise<void> {
  try {
    await rewindExecThread({ command: init.command, config: init.config, request, sink: init.sink, signal: init.signal, turns });
  } catch (error) {
    init.sink.emit({
      type: "notice",
      kind: "warning",
      message: "the failed turn could not be dropped from codex's thread",
      data: { threadId: request.session.resumeId, error: error instanceof Error ? error.message : String(error) },
    });
  }
}
