import {
  checkInspectOptions,
  type DriverDescriptor,
  type DriverInspection,
  type InspectCheck,
  type InspectModels,
  type InspectOptions,
} from "@adaptor/driver";
import {
  DEFAULT_PROBE_TIMEOUT_MS,
  JSON_RPC_METHOD_NOT_FOUND,
  inspectCli,
  NOT_PROBED,
  probeFailure,
  withDeadline,
  type ProbeContext,
  type ProbeFindings,
} from "@adaptor/driver/kit";
import { answerObject, requestAnswer } from "../app-server/answers.js";
import { codexRpc } from "../app-server/codex-rpc.js";
import type { CliProcess } from "@adaptor/driver/process";
import { CODEX_VERSION_FLOOR, defaultCodexCommand } from "../command.js";
import { configOverrideArgs, type CodexConfig } from "../config.js";
import { codexEnv } from "../process-helpers.js";

/** The parts of `config/read` the inspection reads (codex 0.171.0). */
interface ProviderConfig {
  readonly env_key?: string | null;
  readonly experimental_bearer_token?: string | null;
  readonly requires_openai_auth?: boolean | null;
}

/**
 * The Codex driver's `inspect()`: `codex --version` against the driver's versions (pinned, oldest supported), then one
 * `codex app-server` session (`initialize`, `config/read`, `getAuthStatus` without the token,
 * `model/list`), ended at once. No turn is started, so no model call is made.
 */
export async function inspectCodex(
  driver: { readonly descriptor: DriverDescriptor; readonly config: CodexConfig; validateConfig(): void },
  options: InspectOptions = {},
): Promise<DriverInspection> {
  const { signal } = checkInspectOptions(options);
  const { config } = driver;
  return inspectCli({
    descriptor: driver.descriptor,
    validate: () => driver.validateConfig(),
    command: config.command ?? defaultCodexCommand(),
    env: codexEnv(config, undefined),
    ...(config.cwd !== undefined ? { cwd: config.cwd } : {}),
    versionFloor: CODEX_VERSION_FLOOR,
    versionArgs: ["--version"],
    skills: false,
    ...(signal ? { signal } : {}),
    probe: (context) => probeAppServer(context, config),
  });
}

async function probeAppServer(context: ProbeContext, config: CodexConfig): Promise<ProbeFindings> {
  const args = ["app-server", ...configOverrideArgs(config.configOverrides)];
  const child = await context.spawn(args);
  try {
    return await withDeadline(child, converse(child, context, config), DEFAULT_PROBE_TIMEOUT_MS, context.signal, args);
  } catch (error) {
    context.signal.throwIfAborted();
    // The CLI's stderr says why it stopped (a bad CODEX_HOME, a config it refused): keep its tail.
    await child.close();
    return {
      authentication: { present: false },
      models: { supported: false, reason: NOT_PROBED },
      failed: [probeFailure("authentication", error, child.stderrTail())],
    };
  } finally {
    await child.close();
  }
}

async function converse(child: CliProcess, context: ProbeContext, config: CodexConfig): Promise<ProbeFindings> {
  const rpc = codexRpc(
    child,
    {
      onNotification: () => undefined,
      // The app-server asks nothing of a client that starts no turn; refuse anything it might.
      onServerRequest: (request) =>
        void rpc.respondError(request.id, JSON_RPC_METHOD_NOT_FOUND, "not served during inspect").catch(() => undefined),
    },
    DEFAULT_PROBE_TIMEOUT_MS,
  );
  void (async () => {
    for await (const line of child.lines()) if (line.kind === "json") rpc.accept(line.value);
    rpc.close();
  })().catch((error: unknown) => rpc.close(error));
  const request = <R>(method: string, params: unknown): Promise<R> => rpc.request<R>(method, params);
  await request("initialize", {
    clientInfo: { name: config.clientName ?? "adaptor", title: null, version: "0.1.0" },
    capabilities: { experimentalApi: false },
  });
  rpc.notify("initialized");
  const failed: InspectCheck[] = [];

  // Answers the probe reads fields of must be objects (a malformed one is a DRIVER DriverError, not a TypeError).
  const read = (await requestAnswer(rpc, "config/read", { includeLayers: false }, answerObject)) as {
    config?: { model?: string | null; model_provider?: string | null; model_providers?: Record<string, ProviderConfig> };
  };
  const providerName = read.config?.model_provider ?? "openai";
  const provider = read.config?.model_providers?.[providerName];
  const status = (await requestAnswer(rpc, "getAuthStatus", { includeToken: false, refreshToken: false }, answerObject)) as {
    authMethod?: string | null;
  };
  let authentication: DriverInspection["authentication"] = { present: false };
  if (typeof status.authMethod === "string") authentication = { present: true, method: status.authMethod, source: "codex login" };
  else if (provider?.experimental_bearer_token)
    authentication = { present: true, method: "bearer_token", source: `model_providers.${providerName}.experimental_bearer_token` };
  else if (provider?.env_key && context.env[provider.env_key])
    authentication = { present: true, method: "api_key", source: provider.env_key };
  else if (provider?.requires_openai_auth === false && !provider.env_key)
    authentication = { present: true, method: "none_required", source: `model_providers.${providerName}` };
  else {
    const variable = ["CODEX_API_KEY", "OPENAI_API_KEY"].find((name) => context.env[name]);
    if (variable) authentication = { present: true, method: "api_key", source: variable };
  }
  if (!authentication.present) {
    failed.push({
      check: "authentication",
      reason: "unauthenticated",
      message: `codex is not logged in and provider ${JSON.stringify(providerName)} has no key in the environment (run \`codex login\` or set its key)`,
    });
  }

  let models: InspectModels;
  try {
    const list = (await requestAnswer(rpc, "model/list", {}, answerObject)) as {
      data?: readonly { id?: unknown; model?: unknown; isDefault?: unknown; hidden?: unknown }[];
    };
    const visible = (list.data ?? []).filter((m) => m.hidden !== true);
    const ids = visible.map((m) => (typeof m.model === "string" ? m.model : String(m.id)));
    const fallback = visible.find((m) => m.isDefault === true);
    const configured =
      read.config?.model ?? (fallback ? (typeof fallback.model === "string" ? fallback.model : String(fallback.id)) : undefined);
    models = { supported: true, models: ids, ...(configured ? { defaultModel: configured } : {}) };
  } catch (error) {
    failed.push(probeFailure("models", error));
    models = { supported: false, reason: "codex app-server model/list failed" };
  }
  return { authentication, models, failed };
}
