import type { DriverEvent } from "@adaptor/driver";

/**
 * Compares the model last asked for on the process (`--model`, or the latest `set_model`) with the one claude says it uses (the `model` of
 * its `system init` line, which is also the model of its API requests and of the result's
 * `modelUsage`), and reports a difference with {@link reportModel}; any other line is ignored.
 *
 * claude 2.1.332 does not always send the model it was given (seen on the real binary against a
 * scripted server):
 * - an alias resolves to a model of its family: `opus`, `opus[1m]`, `best` and `default` to
 *   `claude-opus-5-5`, `sonnet` and `opusplan` to `claude-sonnet-5-5`, `haiku` to
 *   `claude-haiku-5-5`, `fable` to `claude-fable-5-2`.
 * - some retired ids are replaced: `claude-opus-4-0`, `claude-opus-4-1`,
 *   `claude-opus-4-1-20250805` and `claude-opus-4-20250514` are sent as `claude-opus-5-5`.
 * Other ids, unknown ones included (`claude-3-opus-20240229`, `gpt-5`), are sent as given. Letter
 * case and a `[1m]` context suffix are not a difference (claude sends `CLAUDE-OPUS-5-5` as
 * `claude-opus-5-5`, and `claude-sonnet-4-5[1m]` as `claude-sonnet-4-5` with a long-context beta).
 *
 * @param atLine - the model asked for when the user line that started the turn was written: the
 * CLI starts its turn on the model it was on when it read the line, so a `set_model` written
 * after it is no difference for this line (the answer to `set_model` names the model switched to).
 */
export function checkModel(
  message: Record<string, unknown>,
  requested: string | undefined,
  emit: (event: DriverEvent) => void,
  atLine?: string,
): void {
  if (message.type !== "system" || message.subtype !== "init") return;
  const used = message.model;
  if (requested === undefined || typeof used !== "string" || used === "") return;
  // A switch written after the user line that started this turn reaches its later requests only.
  if (atLine !== undefined && sameModel(atLine, used)) return;
  reportModel(requested, used, emit);
}

/**
 * One `notice` when claude uses another model than `requested` (at start, or as the answer to a
 * `set_model` request, which names the model switched to): kind `model.resolved` for an alias,
 * `model.substituted` for a model id, both with `data.requested` and `data.used`. An alias is a
 * requested name without a hyphen (every model id has one; none of claude's aliases does).
 */
export function reportModel(requested: string, used: string, emit: (event: DriverEvent) => void): void {
  if (sameModel(requested, used)) return;
  const data = { requested, used };
  if (!requested.includes("-")) {
    emit({ type: "notice", kind: "model.resolved", message: `claude resolved the model alias ${requested} to ${used}`, data });
  } else {
    emit({ type: "notice", kind: "model.substituted", message: `claude uses the model ${used}, not the requested ${requested}`, data });
  }
}

/**
 * The `emit` of one turn's {@link checkModel} and {@link reportModel} calls, which passes each
 * difference (`data.requested` → `data.used`) once: claude names the model it switched to both in
 * its answer to `set_model` and in the turn's `system init` line.
 */
export function oncePerDifference(emit: (event: DriverEvent) => void): (event: DriverEvent) => void {
  const reported = new Set<string>();
  return (event) => {
    if (event.type === "notice") {
      const key = `${event.kind}\n${JSON.stringify(event.data)}`;
      if (reported.has(key)) return;
      reported.add(key);
    }
    emit(event);
  };
}

/**
 * claude's `system` line of subtype `model_fallback`: the CLI switched the turn to the fallback
 * model (`--fallback-model`) because the primary failed. claude 2.1.332 writes it with
 * `original_model`, `fallback_model` and `trigger` (`model_not_found`, `permission_denied`,
 * `overloaded`, `server_error`, `last_resort`, `model_blocked`; seen on the real binary for a
 * primary the server answers 404). The switch lasts the turn: the next one tries the primary again.
 * Reports it as one `notice` of kind `model.substituted` (`data.requested`: the model that failed,
 * `data.used`: the fallback, `data.trigger`) and returns the fallback model, which the turn's
 * result names; `undefined` for any other line.
 */
export function checkModelFallback(message: Record<string, unknown>, emit: (event: DriverEvent) => void): string | undefined {
  if (message.type !== "system" || message.subtype !== "model_fallback") return undefined;
  const { original_model: requested, fallback_model: used, trigger } = message;
  if (typeof used !== "string" || used === "") return undefined;
  const data = {
    requested: typeof requested === "string" ? requested : undefined,
    used,
    trigger: typeof trigger === "string" ? trigger : undefined,
  };
  emit({
    type: "notice",
    kind: "model.substituted",
    message: `claude switched to the fallback model ${used}${data.requested ? ` after ${data.requested} failed` : ""}${data.trigger ? ` (${data.trigger})` : ""}`,
    data,
  });
  return used;
}

/** Same model up to letter case and a trailing context-window suffix such as `[1m]`. */
export function sameModel(a: string, b: string): boolean {
  const plain = (id: string): string => id.replace(/\[\d+m\]$/i, "").toLowerCase();
  return plain(a) === plain(b);
}
