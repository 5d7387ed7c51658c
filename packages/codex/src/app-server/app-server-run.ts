import type { DriverFailure, DriverRequest, DriverResponse, DriverSink } from "@adaptor/driver";
import { DriverError, ErrCode } from "@adaptor/errors";
import { forceKilledError, spawnCli, type CliProcess, type ExitInfo } from "@adaptor/driver/process";
import { classifyCodexTurn } from "../classify.js";
import type { CodexConfig } from "../config.js";
import { stripOptionalNulls } from "../output-schema/strict-output-schema.js";
import type { CodexPolicyPlan } from "../policy.js";
import { codexEnv, commonArgs, exitOrTerminate } from "../process-helpers.js";
import type { InitializeParams } from "../protocol/generated/InitializeParams.js";
import type { ServerNotification } from "../protocol/generated/ServerNotification.js";
import type { ServerRequest } from "../protocol/generated/ServerRequest.js";
import type { ThreadForkParams } from "../protocol/generated/v2/ThreadForkParams.js";
import type { ThreadResumeParams } from "../protocol/generated/v2/ThreadResumeParams.js";
import type { ThreadStartParams } from "../protocol/generated/v2/ThreadStartParams.js";
import type { ThreadStartResponse } from "../protocol/generated/v2/ThreadStartResponse.js";
import type { TurnStartParams } from "../protocol/generated/v2/TurnStartParams.js";
import type { TurnStartResponse } from "../protocol/generated/v2/TurnStartResponse.js";
import { APPROVAL_METHODS, approvalAnswer, approvalAsk } from "./approvals.js";
import { AppServerCancellation } from "./cancellation.js";
import { CodexRpcError } from "./codex-rpc-error.js";
import { METHOD_NOT_FOUND, RpcConnection, type ServerRequestMessage } from "./rpc-connection.js";
import { AppServerTurnState } from "./turn-state.js";

const DEVICE = "codex";
/** Notifications the driver never reads; codex is asked not to send them (`optOutNotificationMethods`). */
const OPTED_OUT = ["account/rateLimits/updated", "remoteControl/status/changed", "thread/status/changed"];

/** Everything one app-server run needs. */
export interface AppServerRunInit {
  readonly command: string;
  readonly config: CodexConfig;
  readonly request: DriverRequest;
  readonly sink: DriverSink;
  readonly signal: AbortSignal;
  readonly plan: CodexPolicyPlan;
  /** The strict form of `request.outputSchema` (already normalised), if any. */
  readonly outputSchema: Record<string, unknown> | undefined;
  /** Registers the live process (for `Driver.close`) and returns its unregister. */
  readonly track: (proc: CliProcess) => () => void;
}

type ThreadOpened = Pick<ThreadStartResponse, "thread" | "model" | "modelProvider">;

/**
 * One turn over `codex app-server` in a fresh process (notes/cli-protocols.md §3): `initialize` /
 * `initialized`, `thread/start` (or `thread/resume` / `thread/fork` for `request.session`),
 * `turn/start` with the prompt (and the strict output schema), notifications → events until this
 * turn's `turn/completed`, then stdin closed so codex exits. Every server request is answered.
 */
export async function runAppServer(init: AppServerRunInit): Promise<DriverResponse> {
  const { config, request, sink, signal, plan } = init;
  const graceMs = config.killGraceMs ?? 2000;
  const cwd = request.cwd ?? config.cwd ?? process.cwd();
  const proc = await spawnCli({
    command: init.command,
    args: ["app-server", ...commonArgs(config)],
    cwd,
    env: codexEnv(config, request.env),
    device: DEVICE,
    ...(config.killGraceMs !== undefined ? { killGraceMs: config.killGraceMs } : {}),
    ...(config.maxLineBytes !== undefined ? { maxLineBytes: config.maxLineBytes } : {}),
    onStderr: (text) => sink.emit({ type: "process", kind: "stderr", text }),
  });
  const untrack = init.track(proc);
  sink.emit({ type: "process", kind: "spawn", pid: proc.pid });

  const turn = new AppServerTurnState((event) => sink.emit(event));
  let markTurnDone: () => void = () => undefined;
  const turnDone = new Promise<void>((resolve) => {
    markTurnDone = resolve;
  });
  let lineText = "";
  const answered = new Set<string | number>();
  const rpc: RpcConnection = new RpcConnection(proc, {
    onNotification(method, params) {
      if (turn.accept({ method, params } as ServerNotification, lineText)) markTurnDone();
    },
    onServerRequest(message) {
      onServerRequest(message);
    },
  });

  const answer = (id: string | number, send: () => Promise<void>): void => {
    if (answered.has(id)) return;
    answered.add(id);
    void send();
  };
  const decline = (message: ServerRequestMessage): void =>
    answer(message.id, () => rpc.respond(message.id, approvalAnswer(message.method, { outcome: "deny", reason: "declined" })));

  function onServerRequest(message: ServerRequestMessage): void {
    if (!APPROVAL_METHODS.includes(message.method)) {
      sink.emit({ type: "notice", kind: "runtime", message: `unsupported server request ${message.method}`, data: { id: message.id } });
      answer(message.id, () => rpc.respondError(message.id, METHOD_NOT_FOUND, `the adaptor codex driver does not handle ${message.method}`));
      return;
    }
    try {
      const ask = approvalAsk(message as ServerRequest, (id) => turn.item(id));
      if (!ask) {
        decline(message);
        return;
      }
      sink
        .requestApproval(ask)
        .then(
          (decision) => approvalAnswer(message.method, decision),
          () => approvalAnswer(message.method, { outcome: "deny", reason: "approval failed" }),
        )
        .then(
          (result) => answer(message.id, () => rpc.respond(message.id, result)),
          () => decline(message),
        );
    } catch {
      decline(message);
    }
  }

  let readError: unknown;
  const pump = (async () => {
    try {
      for await (const line of proc.lines()) {
        lineText = line.text;
        if (line.kind === "text" || !rpc.accept(line.value)) sink.emit({ type: "process", kind: "stdout", text: line.text });
      }
    } catch (err) {
      readError = err;
    } finally {
      rpc.close();
      markTurnDone();
    }
  })();

  const cancel = new AppServerCancellation(proc, rpc, turnDone, graceMs);
  const onAbort = (): void => cancel.start();
  signal.addEventListener("abort", onAbort, { once: true });
  if (signal.aborted) cancel.start();

  let opened: ThreadOpened | undefined;
  let failure: DriverFailure | undefined;
  let error: unknown;
  let exit: ExitInfo | undefined;
  try {
    const initialize: InitializeParams = {
      clientInfo: { name: config.clientName ?? "adaptor", title: null, version: "0.1.0" },
      capabilities: { experimentalApi: false, requestAttestation: false, optOutNotificationMethods: OPTED_OUT },
    };
    await rpc.request("initialize", initialize);
    rpc.notify("initialized");
    try {
      opened = await openThread(rpc, request, config, plan, cwd);
    } catch (err) {
      if (!(request.session && err instanceof CodexRpcError)) throw err;
      failure = {
        reason: "resume_rejected",
        message: err.message,
        details: { resumeId: request.session.resumeId, fork: request.session.fork === true, code: err.code },
        cause: err,
      };
    }
    if (opened) {
      turn.threadId = opened.thread.id;
      const params: TurnStartParams = {
        threadId: opened.thread.id,
        input: [{ type: "text", text: request.prompt, text_elements: [] }],
        ...(init.outputSchema ? { outputSchema: init.outputSchema as TurnStartParams["outputSchema"] } : {}),
      };
      const started = await rpc.request<TurnStartResponse>("turn/start", params);
      turn.turnId ??= started.turn.id;
      cancel.turnStarted(opened.thread.id, turn.turnId);
      if (signal.aborted) cancel.start();
      await turnDone;
    }
    proc.closeStdin();
    exit = await exitOrTerminate(proc, graceMs);
    await pump;
  } catch (err) {
    error = err;
  } finally {
    signal.removeEventListener("abort", onAbort);
    await cancel.settled();
    await proc.close();
    await pump;
    untrack();
  }
  const exitInfo = exit ?? (await proc.exited);
  if (signal.aborted) throw exitInfo.forceKilled ? forceKilledError(DEVICE, signal.reason) : signal.reason;
  if (error !== undefined && !isDisconnect(error)) {
    if (error instanceof CodexRpcError) throw new DriverError({ op: error.method, device: DEVICE, code: ErrCode.Driver, cause: error });
    throw error;
  }
  if (readError !== undefined) throw readError;

  const completed = turn.completed;
  failure ??= classifyCodexTurn({
    status: completed?.status,
    ...(completed?.error ? { errorMessage: completed.error.message, codexErrorInfo: completed.error.codexErrorInfo } : {}),
    exitCode: exitInfo.code,
    exitSignal: exitInfo.signal,
    stderrTail: proc.stderrTail(),
  });
  const text = turn.lastAgentText ?? "";
  let structured: unknown;
  if (!failure && init.outputSchema && request.outputSchema && text) {
    try {
      structured = stripOptionalNulls(JSON.parse(text) as unknown, request.outputSchema);
    } catch {
      sink.emit({ type: "notice", kind: "runtime", message: "structured output: the final message is not JSON" });
    }
  }
  const usage = turn.usage();
  return {
    text: failure ? "" : text,
    ...(structured !== undefined ? { structured } : {}),
    ...(opened?.model ? { model: opened.model } : {}),
    ...(opened?.modelProvider ? { provider: opened.modelProvider } : {}),
    ...(usage ? { usage } : {}),
    transcript: turn.transcript,
    raw: {
      stdout: proc.stdout,
      stderr: proc.stderr,
      ...(turn.completedJson ? { terminal: { event: "turn/completed", json: turn.completedJson } } : {}),
    },
    ...(!failure && opened ? { checkpoint: { resumeId: opened.thread.id } } : {}),
    ...(failure ? { failure } : {}),
    exit: { code: exitInfo.code, signal: exitInfo.signal },
  };
}

/** A disconnect (codex gone before answering) is classified from the exit, not thrown. */
function isDisconnect(err: unknown): boolean {
  return err instanceof DriverError && err.code === ErrCode.DeviceDisconnected;
}

async function openThread(
  rpc: RpcConnection,
  request: DriverRequest,
  config: CodexConfig,
  plan: CodexPolicyPlan,
  cwd: string,
): Promise<ThreadOpened> {
  const model = request.model ?? config.model;
  const common = {
    cwd,
    ...(model ? { model } : {}),
    ...(plan.approvalPolicy ? { approvalPolicy: plan.approvalPolicy } : {}),
    ...(plan.sandbox ? { sandbox: plan.sandbox } : {}),
    ...(plan.webSearch ? { config: { web_search: plan.webSearch } } : {}),
  };
  const session = request.session;
  if (!session) return rpc.request<ThreadOpened>("thread/start", common satisfies ThreadStartParams);
  if (session.fork) {
    return rpc.request<ThreadOpened>("thread/fork", { threadId: session.resumeId, excludeTurns: true, ...common } satisfies ThreadForkParams);
  }
  return rpc.request<ThreadOpened>("thread/resume", { threadId: session.resumeId, excludeTurns: true, ...common } satisfies ThreadResumeParams);
}
