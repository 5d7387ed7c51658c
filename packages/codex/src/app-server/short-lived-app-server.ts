import { spawnCli } from "@adaptor/driver/process";
import { DriverError, ErrCode } from "@adaptor/errors";
import { exitOrTerminate, graceMs, JSON_RPC_METHOD_NOT_FOUND, spawnLimits, type JsonRpcConnection } from "@adaptor/driver/kit";
import type { CodexConfig } from "../config.js";
import { codexEnv, commonArgs } from "../process-helpers.js";
import type { InitializeParams } from "../protocol/generated/InitializeParams.js";
import { CodexRpcError } from "./codex-rpc-error.js";
import { codexRpc } from "./codex-rpc.js";

const DEVICE = "codex";

/** Where and how {@link withShortLivedAppServer} starts codex. */
export interface ShortLivedAppServer {
  /** The codex executable. */
  readonly command: string;
  /** The driver's config (arguments, environment, limits, reply timeout, client name). */
  readonly config: CodexConfig;
  /** Working directory of the process. */
  readonly cwd: string;
  /** The run's extra environment, merged over the config's (it may name `CODEX_HOME`). */
  readonly env: Readonly<Record<string, string>> | undefined;
  /** Ends the process; the call then rejects with its reason. */
  readonly signal?: AbortSignal | undefined;
}

/**
 * Runs `work` on a `codex app-server` started for it alone (the driver's command, config and
 * environment), after `initialize`; then closes its stdin, waits for its exit (terminating it after
 * the config's grace) and returns what `work` returned. No thread is started unless `work` does.
 * Server requests are answered method-not-found; notifications are dropped.
 * @throws what `work` throws, a `CodexRpcError` as a DriverError `DRIVER` (op the method, the error
 * its cause) unless `mapRpcError` maps it first; the read's DriverError when codex's output could
 * not be read (`RESOURCE_EXHAUSTED` for a line over `maxLineBytes`), whatever `work` threw after
 * it; the spawn's DriverError (`NOT_FOUND`);
 * `signal.reason` once aborted (the process is then ended).
 */
export async function withShortLivedAppServer<T>(
  launch: ShortLivedAppServer,
  work: (rpc: JsonRpcConnection) => Promise<T>,
  mapRpcError?: (error: CodexRpcError) => Error | undefined,
): Promise<T> {
  const { config, signal } = launch;
  signal?.throwIfAborted();
  const proc = await spawnCli({
    command: launch.command,
    args: ["app-server", ...commonArgs(config)],
    cwd: launch.cwd,
    env: codexEnv(config, launch.env),
    device: DEVICE,
    ...spawnLimits(config),
  });
  const rpc: JsonRpcConnection = codexRpc(
    proc,
    {
      onNotification: () => undefined,
      onServerRequest: (message) => void rpc.respondError(message.id, JSON_RPC_METHOD_NOT_FOUND, "no turn is running"),
    },
    config.replyTimeoutMs,
  );
  /** Why reading codex's output failed (a line over `maxLineBytes`), if it did: the call's error then. */
  let readError: unknown;
  const pump = (async () => {
    try {
      for await (const line of proc.lines()) if (line.kind === "json") rpc.accept(line.value);
    } catch (err) {
      readError = err;
    } finally {
      rpc.close(readError ?? "codex app-server exited");
    }
  })();
  const onAbort = (): void => void proc.terminate();
  signal?.addEventListener("abort", onAbort, { once: true });
  if (signal?.aborted) onAbort(); // aborted while the process was starting
  let outcome: T;
  try {
    const initialize: InitializeParams = {
      clientInfo: { name: config.clientName ?? "adaptor", title: null, version: "0.1.0" },
      capabilities: { experimentalApi: false, requestAttestation: false, optOutNotificationMethods: null },
    };
    await rpc.request("initialize", initialize);
    rpc.notify("initialized");
    outcome = await work(rpc);
  } catch (err) {
    signal?.throwIfAborted();
    if (readError !== undefined) throw readError;
    if (err instanceof CodexRpcError)
      throw mapRpcError?.(err) ?? new DriverError({ op: err.method, device: DEVICE, code: ErrCode.Driver, cause: err });
    throw err;
  } finally {
    signal?.removeEventListener("abort", onAbort);
    proc.closeStdin();
    await exitOrTerminate(proc, graceMs(config));
    await proc.close();
    await pump;
  }
  signal?.throwIfAborted();
  return outcome;
}
