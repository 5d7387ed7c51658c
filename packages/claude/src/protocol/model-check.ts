import type { DriverEvent } from "@adaptor/driver";

/**
 * Compares the model a run asked for (`--model`) with the one claude says it uses (the `model` of
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
 */
export function checkModel(message: Record<string, unknown>, requested: string | undefined, emit: (event: DriverEvent) => void): void {
  if (message.type !== "system" || message.subtype !== "init") return;
  const used = message.model;
  if (requested === undefined || typeof used !== "string" || used === "") return;
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

/** Same model up to letter case and a trailing context-window suffix such as `[1m]`. */
function sameModel(a: string, b: string): boolean {
  const plain = (id: string): string => id.replace(/\[\d+m\]$/i, "").toLowerCase();
  return plain(a) === plain(b);
}
