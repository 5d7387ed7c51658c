import type { SessionConfigOption } from "@agentclientprotocol/sdk";

/** The values a `select` config option takes, groups flattened, in the agent's order; undefined for another kind of option. */
export function choicesOf(option: SessionConfigOption): string[] | undefined {
  if (option.type !== "select") return undefined;
  return option.options.flatMap((o) => ("options" in o ? o.options.map((choice) => choice.value) : [o.value]));
}

/** Which config option of a session selects the model (see {@link modelOption}). */
export interface ModelOptionChoice {
  /** The option to set; undefined when none is the model's or several could be. */
  readonly option?: SessionConfigOption;
  /** Every option of category `model` (or id `model`), in the agent's order. */
  readonly candidates: readonly SessionConfigOption[];
}

/**
 * The config option that selects the model: of the options of category `model` (or id `model`),
 * the one whose id is `model`, else the only one, else the only one whose values hold `model`. An
 * agent may file other settings under the category (Nanocoder 1.30.0 sends a `provider` option
 * before its `model` option, both of category `model`): a value is never set on an option that is
 * not the model's. `option` is undefined when no candidate is, or several are and none is named
 * `model` and `model` is not the value of exactly one.
 */
export function modelOption(options: readonly SessionConfigOption[] | null | undefined, model?: string): ModelOptionChoice {
  const candidates = (options ?? []).filter((o) => o.category === "model" || o.id === "model");
  const named = candidates.find((o) => o.id === "model");
  if (named || candidates.length <= 1) return { option: named ?? candidates[0], candidates };
  const holding = model === undefined ? [] : candidates.filter((o) => choicesOf(o)?.includes(model) === true);
  return holding.length === 1 ? { option: holding[0], candidates } : { candidates };
}

/** `options` for a message: each option's id and the values it takes (`provider ("local"), model ("m1")`). */
export function describeOptions(options: readonly SessionConfigOption[]): string {
  return options.map((o) => `${o.id} (${(choicesOf(o) ?? []).map((c) => JSON.stringify(c)).join(", ") || o.type})`).join(", ");
}
