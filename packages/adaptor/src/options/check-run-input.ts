import { checkPolicyDomain } from "../prepare/check-policy.js";
import { assertPromptHasContent, splitPrompt } from "../prompt/prompt.js";
import { checkRunOptions } from "./check-input.js";
import { refuseThreadOnlyOptions } from "./thread-only-options.js";

/** What {@link checkRunInput} knows of the run it checks. */
export interface RunInputContext {
  /** The driver type an `InvalidPolicyError` names. Default `"any"` (not known yet). */
  readonly driver?: string;
  /**
   * Whether the run will be a thread turn: `false` also refuses `suspend` and `checkpointFiles`,
   * which only thread turns take. Default unknown: they are not checked.
   */
  readonly threadTurn?: boolean;
  /** A resume of a suspended turn, which runs its stored prompt: the prompt may then be empty. Default false. */
  readonly resume?: boolean;
}

/**
 * Checks a run's prompt and options the way `agent.run` does before it launches anything, for a
 * host that hands the run to another process (a queue, a fleet worker) and must refuse bad input
 * where it was given, before storing it. Reads no image file and starts nothing.
 *
 * Checked: the prompt's shape, and that it asks something (text that is not only whitespace, or
 * an image); the run options' keys and types; the policy's fields and values. Not checked, as they
 * depend on the Agent that will run it: the driver's capabilities and approval modes, MCP
 * servers, skills and output schemas.
 *
 * @param prompt - the run's prompt (see `Prompt`).
 * @param options - the run's own options (see `RunOptions`); `undefined` and `null` mean none.
 * @param context - the driver it names in errors, and whether the run is a thread turn (see {@link RunInputContext}).
 * @throws InvalidOptionError (subject `run`, field `prompt` or `prompt[i]`) for a prompt of the
 * wrong shape or an empty one (no image, no text but whitespace; not for a `resume`); InvalidOptionError (subject
 * `"run options"`) naming the field for an unknown or mistyped option; MalformedStringError for
 * text with a lone surrogate; InvalidPolicyError naming the field for an unknown policy field or a
 * value out of its domain; InvalidOptionError (field `suspend` or `checkpointFiles`) for a run
 * that is not a thread turn (`context.threadTurn: false`).
 */
export function checkRunInput(prompt: unknown, options?: unknown, context: RunInputContext = {}): void {
  const checked = checkRunOptions(options);
  const split = splitPrompt(prompt);
  if (context.resume !== true) assertPromptHasContent(split);
  if (context.threadTurn === false) refuseThreadOnlyOptions(checked);
  if (checked.policy !== undefined) checkPolicyDomain(context.driver ?? "any", checked.policy);
}
