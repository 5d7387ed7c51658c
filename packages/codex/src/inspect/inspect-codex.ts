import type { DriverDescriptor, DriverInspection, InspectCheck, InspectModels, InspectOptions } from "@adaptor/driver";
import { DEFAULT_PROBE_TIMEOUT_MS, inspectCli, probeFailure, withDeadline, type ProbeContext, type ProbeFindings } from "@adaptor/driver/kit";
import type { CliProcess } from "@adaptor/driver/process";
import { DriverError, ErrCode } from "@adaptor/errors";
import { PINNED_CODEX_VERSION, defaultCodexCommand } from "../command.js";
import { configOverrideArgs, type CodexConfig } from "../config.js";
import { codexEnv } from "../process-helpers.js";

/** The parts of `config/read` the inspection reads (codex 0.171.0). */
interface ProviderConfig {
  readonly env_key?: string | null;
  readonly experimental_bearer_token?: string | null;
  readonly requires_openai_auth?: boolean | null;
}

/**
 * The Codex driver's `inspect()`: `codex --version` against the pinned version, then one
 * `codex app-server` session (`initialize`, `config/read`, `getAuthStatus` without the token,
 * `model/list`), ended at once. No turn is started, so no model call is made.
 */
export function inspectCodex(
  driver: { readonly descriptor: DriverDescriptor; readonly config: CodexConfig; validateConfig(): void },
  options: InspectOptions = {},
): Promise<DriverInspection> {
  const { config } = driver;
  return inspectCli({
    descriptor: driver.descriptor,
    validate: () => driver.validateConfig(),
    command: config.command ?? defaultCodexCommand(),
    env: codexEnv(config, undefined),
    ...(config.cwd !== undefined ? { cwd: config.cwd } : {}),
    pinnedVersion: PINNED_CODEX_VERSION,
    versionArgs: ["--version"],
    skills: false,
    ...(options.signal ? { signal: options.signal } : {}),
    probe: (context) => probeAppServer(context, config),
  });
}

async function probeAppServer(context: ProbeContext, config: CodexConfig): Promise<ProbeFindings> {
  const args = ["app-server", ...configOverrideArgs(config.configOverrides)];
  const child = await context.spawn(args);
  try {
    return await withDeadline(child, converse(child, context, config), DEFAULT_PROBE_TIMEOUT_MS, context.signal, args);
  } finally {
    await child.close();
  }
}

async function converse(child: CliProcess, context: ProbeContext, config: CodexConfig): Promise<ProbeFindings> {
  const replies = new Map<number, (message: { result?: unknown; error?: { message?: string } }) => void>();
  const reader = (async () => {
    for await (const line of child.lines()) {
      if (line.kind !== "json" || typeof line.value !== "object" || line.value === null) continue;
      const message = line.value as { id?: unknown; result?: unknown; error?: { message?: string } };
      if (typeof message.id === "number" && !("method" in message)) replies.get(message.id)?.(message);
    }
  })();
  let next = 0;
  const request = async (method: string, params: unknown): Promise<unknown> => {
    const id = ++next;
    const reply = new Promise<{ result?: unknown; error?: { message?: string } }>((resolve) => replies.set(id, resolve));
    await child.writeJson({ id, method, params });
    const message = await Promise.race([
      reply,
      reader.then(() => {
        throw new DriverError({ op: "inspect", device: "codex app-server", code: ErrCode.DeviceDisconnected, cause: child.stderrTail(512) || "exited before answering" });
      }),
    ]);
    if (message.error) throw new DriverError({ op: "inspect", device: `codex app-server ${method}`, code: ErrCode.Driver, cause: message.error.message ?? "error" });
    return message.result;
  };
  await request("initialize", { clientInfo: { name: config.clientName ?? "adaptor", title: null, version: "0.1.0" }, capabilities: { experimentalApi: false } });
  await child.writeJson({ method: "initialized" });
  const failed: InspectCheck[] = [];

  const read = (await request("config/read", { includeLayers: false })) as { config?: { model?: string | null; model_provider?: string | null; model_providers?: Record<string, ProviderConfig> } };
  const providerName = read.config?.model_provider ?? "openai";
  const provider = read.config?.model_providers?.[providerName];
  const status = (await request("getAuthStatus", { includeToken: false, refreshToken: false })) as { authMethod?: string | null };
  let authentication: DriverInspection["authentication"] = { present: false };
  if (typeof status.authMethod === "string") authentication = { present: true, method: status.authMethod, source: "codex login" };
  else if (provider?.experimental_bearer_token) authentication = { present: true, method: "bearer_token", source: `model_providers.${providerName}.experimental_bearer_token` };
  else if (provider?.env_key && context.env[provider.env_key]) authentication = { present: true, method: "api_key", source: provider.env_key };
  else if (provider?.requires_openai_auth === false && !provider.env_key) authentication = { present: true, method: "none_required", source: `model_providers.${providerName}` };
  else {
    const variable = ["CODEX_API_KEY", "OPENAI_API_KEY"].find((name) => context.env[name]);
    if (variable) authentication = { present: true, method: "api_key", source: variable };
  }
  if (!authentication.present) {
    failed.push({ check: "authentication", reason: "unauthenticated", message: `codex is not logged in and provider ${JSON.stringify(providerName)} has no key in the environment (run \`codex login\` or set its key)` });
  }

  let models: InspectModels;
  try {
    const list = (await request("model/list", {})) as { data?: readonly { id?: unknown; model?: unknown; isDefault?: unknown; hidden?: unknown }[] };
    const visible = (list.data ?? []).filter((m) => m.hidden !== true);
    const ids = visible.map((m) => (typeof m.model === "string" ? m.model : String(m.id)));
    const fallback = visible.find((m) => m.isDefault === true);
    const configured = read.config?.model ?? (fallback ? (typeof fallback.model === "string" ? fallback.model : String(fallback.id)) : undefined);
    models = { supported: true, models: ids, ...(configured ? { defaultModel: configured } : {}) };
  } catch (error) {
    failed.push(probeFailure("models", error));
    models = { supported: false, reason: "codex app-server model/list failed" };
  }
  return { authentication, models, failed };
}
