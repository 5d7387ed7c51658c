import { randomUUID } from "node:crypto";
import type { InspectCheck, InspectCommand, InspectCommands, InspectModels } from "@adaptor/driver";
import { DEFAULT_PROBE_TIMEOUT_MS, probeFailure, withDeadline, type ProbeContext } from "@adaptor/driver/kit";
import { DriverError, ErrCode } from "@adaptor/errors";
import type { ClaudeConfig } from "../config.js";
import { STREAM_JSON_FLAGS, settingSources } from "../launch/launch.js";

/** What the models and commands probe found; a failure becomes a `models` check. */
export interface InitializeFindings {
  readonly models: InspectModels;
  readonly commands: InspectCommands;
  readonly failed: readonly InspectCheck[];
}

/** One entry of the `models` array of the CLI's `initialize` answer (claude 2.1.332). */
interface InitModel {
  readonly value?: unknown;
  readonly resolvedModel?: unknown;
}

/** One entry of the `commands` array of the CLI's `initialize` answer (claude 2.1.332). */
interface InitCommand {
  readonly name?: unknown;
  readonly description?: unknown;
  readonly argumentHint?: unknown;
}

/**
 * Starts a short-lived stream-json claude process with the settings a run would load, sends the
 * `initialize` control request (no prompt, so no model call) and reads the models and slash
 * commands from its answer, then closes the process. Bounded by the probe deadline
 * ({@link DEFAULT_PROBE_TIMEOUT_MS}) and the inspect signal; the process is gone when this returns.
 * @throws the inspect signal's reason when aborted; any other failure is a `models` check.
 */
export async function probeInitialize(context: ProbeContext, config: ClaudeConfig): Promise<InitializeFindings> {
  const args = [
    ...STREAM_JSON_FLAGS,
    "--setting-sources",
    settingSources(config),
    ...(config.userMcpServers ? [] : ["--strict-mcp-config"]),
  ];
  const child = await context.spawn(args);
  try {
    const requestId = `adaptor_inspect_${randomUUID()}`;
    const answer = (async () => {
      // A process that exits before reading is reported by its stdout ending, not by the broken pipe.
      child
        .writeJson({ type: "control_request", request_id: requestId, request: { subtype: "initialize", hooks: {} } })
        .catch(() => undefined);
      for await (const line of child.lines()) {
        if (line.kind !== "json") continue;
        const value = line.value as {
          type?: unknown;
          response?: { request_id?: unknown; subtype?: unknown; response?: unknown; error?: unknown };
        };
        if (value.type !== "control_response" || value.response?.request_id !== requestId) continue;
        if (value.response.subtype !== "success") throw initializeError(`an error answer: ${String(value.response.error)}`);
        return (value.response.response ?? {}) as { models?: unknown; commands?: unknown };
      }
      throw initializeError("stdout ended before the answer");
    })();
    const response = await withDeadline(child, answer, DEFAULT_PROBE_TIMEOUT_MS, context.signal, args);
    return {
      models: modelsOf(response.models, config.model),
      commands: commandsOf(response.commands),
      failed: [],
    };
  } catch (error) {
    context.signal.throwIfAborted();
    const failure = probeFailure("models", error, child.stderrTail());
    const reason = `the initialize probe failed: ${failure.message}`;
    return { models: { supported: false, reason }, commands: { supported: false, reason }, failed: [failure] };
  } finally {
    await child.close();
  }
}

function initializeError(cause: string): DriverError {
  return new DriverError({ op: "initialize", device: "claude", code: ErrCode.Driver, cause });
}

/** The model ids (`value`) in the CLI's order; the default is the configured model, else what `default` resolves to. */
function modelsOf(raw: unknown, configured: string | undefined): InspectModels {
  if (!Array.isArray(raw)) return { supported: false, reason: "the CLI's initialize answer lists no models" };
  const entries = raw as readonly InitModel[];
  const models = entries.map((m) => m.value).filter((v): v is string => typeof v === "string");
  const resolved = entries.find((m) => m.value === "default")?.resolvedModel;
  const defaultModel = configured ?? (typeof resolved === "string" ? resolved : undefined);
  return { supported: true, models, ...(defaultModel ? { defaultModel } : {}) };
}

function commandsOf(raw: unknown): InspectCommands {
  if (!Array.isArray(raw)) return { supported: false, reason: "the CLI's initialize answer lists no commands" };
  const commands: InspectCommand[] = [];
  for (const c of raw as readonly InitCommand[]) {
    if (typeof c.name !== "string") continue;
    commands.push({
      name: c.name,
      ...(typeof c.description === "string" && c.description ? { description: c.description } : {}),
      ...(typeof c.argumentHint === "string" && c.argumentHint ? { argumentHint: c.argumentHint } : {}),
    });
  }
  return { supported: true, commands };
}
