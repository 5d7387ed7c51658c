import { fileURLToPath } from "node:url";
import { acp, type AcpConfig, type AcpDriver } from "../../src/index.js";

/** The scripted, protocol-breaking ACP agent (`hostile-agent.mjs`); see its header for the steps. */
export const HOSTILE_AGENT = fileURLToPath(new URL("./hostile-agent.mjs", import.meta.url));

/** One step of the hostile agent's scenario (see `hostile-agent.mjs`). */
export type HostileStep = Readonly<Record<string, unknown>>;

/** What the hostile agent does for each method; `session/prompt` holds one list per prompt (the last repeats). */
export interface HostileScenario {
  readonly initialize?: readonly HostileStep[];
  readonly "session/new"?: readonly HostileStep[];
  readonly "session/load"?: readonly HostileStep[];
  readonly "session/prompt"?: readonly (readonly HostileStep[])[];
  readonly [method: string]: readonly unknown[] | undefined;
}

/** `acp()` on the hostile agent playing `scenario`. */
export function hostileAcp(scenario: HostileScenario, extra: Partial<AcpConfig> = {}): AcpDriver {
  return acp({
    type: "hostile",
    displayName: "Hostile agent",
    command: process.execPath,
    args: [HOSTILE_AGENT],
    env: { HOSTILE_ACP_SCENARIO: JSON.stringify(scenario) },
    killGraceMs: 1_000,
    ...extra,
  });
}

/** A `session/update` carrying agent text. */
export const text = (chunk: string): HostileStep => ({
  update: { sessionUpdate: "agent_message_chunk", content: { type: "text", text: chunk } },
});

/** The mode list of an agent whose one mode is `normal`, in it. */
export const IN_NORMAL_MODE = { currentModeId: "normal", availableModes: [{ id: "normal", name: "normal" }] };

/**
 * A driver whose agent, at each prompt, reports the execute call `call` pending, asks about it,
 * reports it failed, says "done" and ends the turn; in its one mode `normal` (`read_only` sandbox
 * asked as `normal`), with `extra` as in {@link hostileAcp}.
 */
export function executeAskDriver(
  call: Readonly<Record<string, unknown>> & { readonly toolCallId: string },
  extra: Partial<AcpConfig> = {},
): AcpDriver {
  return hostileAcp(
    {
      "session/new": [{ respond: { sessionId: "hostile-session", modes: IN_NORMAL_MODE } }],
      "session/prompt": [
        [
          { update: { sessionUpdate: "tool_call", status: "pending", ...call } },
          { permission: call },
          { update: { sessionUpdate: "tool_call_update", toolCallId: call.toolCallId, status: "failed" } },
          text("done"),
          { respond: { stopReason: "end_turn" } },
        ],
      ],
    },
    { askMode: "normal", sandboxModes: { read_only: "normal" }, ...extra },
  );
}
