import type * as acp from "@agentclientprotocol/sdk";
import type { AcpProcess } from "../connection/acp-process.js";
import { choicesOf } from "../session/model-option.js";

/**
 * How long the driver waits for the agent's report of the mode (`current_mode_update`,
 * `config_option_update`) after setting it was answered without one: 5 s (a safety net).
 */
export const MODE_REPORT_WAIT_MS = 5_000;

/** A session's modes as `session/new` / `session/load` offered them. */
type Offered = Pick<acp.NewSessionResponse, "modes" | "configOptions"> | undefined;

function modeOption(options: readonly acp.SessionConfigOption[] | null | undefined): acp.SessionConfigOption | undefined {
  return options?.find((option) => option.category === "mode" || option.id === "mode");
}

function currentValue(option: acp.SessionConfigOption | undefined): string | undefined {
  const value = (option as { currentValue?: unknown } | undefined)?.currentValue;
  return typeof value === "string" ? value : undefined;
}

/**
 * The mode ids a session offers: the values of its `mode` config option when it has one, else its
 * `modes.availableModes`; undefined when it lists none (the mode is then set and checked as reported).
 */
export function offeredModes(offered: Offered): string[] | undefined {
  const option = modeOption(offered?.configOptions);
  const modes = option ? choicesOf(option) : offered?.modes?.availableModes.map((mode) => mode.id);
  return modes !== undefined && modes.length > 0 ? modes : undefined;
}

/** The modes the session offers when `modeId` is not among them (it must not be set); undefined when it is, or none are listed. */
export function notOffered(modeId: string, offered: Offered): string[] | undefined {
  const modes = offeredModes(offered);
  return modes !== undefined && !modes.includes(modeId) ? modes : undefined;
}

/**
 * The mode an update reports: a `current_mode_update`'s `currentModeId`, or the current value of
 * the mode option (`optionId`, else the first of category `mode` or id `mode`) a `config_option_update` lists.
 */
function reportedBy(update: acp.SessionUpdate, optionId: string | undefined): string | undefined {
  if (update.sessionUpdate === "current_mode_update") return update.currentModeId;
  if (update.sessionUpdate !== "config_option_update") return undefined;
  const options = update.configOptions;
  return currentValue(optionId !== undefined ? options.find((option) => option.id === optionId) : modeOption(options));
}

/**
 * Selects session mode `modeId` and returns the mode the agent reports afterwards (undefined when it
 * reports none): through the agent's `mode` config option when it offers one
 * (`session/set_config_option`, whose answer lists the options with their current values), else
 * `session/set_mode`. The agent's own report of the mode after the request was sent counts too:
 * a `current_mode_update`, or a `config_option_update` listing the mode option's current value
 * (the latest of them). When the answer reports no mode (`session/set_mode` never does; Factory
 * Droid 0.225.2 answers `session/set_config_option` with `{}`, against the schema) and no update
 * came before it, the first update is waited for at most {@link MODE_REPORT_WAIT_MS}. A mode already
 * current is not set again. With `confirmedByAnswer`, a success answer that reports no mode counts
 * as the report when no update did (an agent that refuses unknown modes and sends no update).
 * The caller checks first that the session offers the mode ({@link notOffered}).
 */
export async function applyMode(
  proc: AcpProcess,
  sessionId: string,
  modeId: string,
  offered: Offered,
  step: <T>(promise: Promise<T>) => Promise<T>,
  confirmedByAnswer = false,
): Promise<string | undefined> {
  const agent = proc.connection.agent;
  const option = modeOption(offered?.configOptions);
  if (option ? currentValue(option) === modeId : offered?.modes?.currentModeId === modeId) return modeId;
  let reported: string | undefined;
  let heard!: () => void;
  const report = new Promise<void>((resolve) => (heard = resolve));
  const detach = proc.attach(sessionId, {
    onUpdate: (update) => {
      const mode = reportedBy(update, option?.id);
      if (mode === undefined) return true;
      reported = mode;
      heard();
      return true;
    },
    onPermission: () => Promise.resolve({ outcome: { outcome: "cancelled" } }),
    onText: () => undefined,
  });
  try {
    if (option) {
      const answer = await step(agent.request("session/set_config_option", { sessionId, configId: option.id, value: modeId }));
      // The answer's list of options, when it has the mode option, is the report.
      const answered = answer?.configOptions ? answer.configOptions.find((o) => o.id === option.id) : undefined;
      if (answered) return currentValue(answered);
    } else await step(agent.request("session/set_mode", { sessionId, modeId }));
    if (reported === undefined && confirmedByAnswer) return modeId;
    if (reported === undefined) {
      let timer: NodeJS.Timeout | undefined;
      await step(Promise.race([report, new Promise<void>((resolve) => (timer = setTimeout(resolve, MODE_REPORT_WAIT_MS)))])).finally(() =>
        clearTimeout(timer),
      );
    }
    return reported;
  } finally {
    detach();
  }
}
