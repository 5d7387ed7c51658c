import { InvalidOptionError } from "@adaptor/errors";
import { allowRuleFlag } from "./policy.js";

/** Claude Code's tool that asks to leave plan mode (a `plan_review`). */
export const PLAN_EXIT_TOOL = "ExitPlanMode";

/**
 * What a turn in plan mode may still ask the host about besides the read tools: leaving plan mode
 * and a question. Any other ask (an edit, a command) is denied without asking until a plan is
 * approved. Under `read_only`, whose own mode (`dontAsk`) denies every ask, only leaving plan mode
 * (and the reads the every-tool hook asks about).
 */
export const PLAN_MODE_ASKABLE: readonly string[] = Object.freeze([PLAN_EXIT_TOOL, "AskUserQuestion"]);

/** What the agent is told when it acts before its plan is approved. */
export const PLAN_MODE_DENIAL =
  "Denied in plan mode: propose your plan with ExitPlanMode, and act once it is approved (and as the run's policy allows).";

/** The permission mode a launch without `--permission-mode` runs in, and plan mode returns to. */
const DEFAULT_MODE = "default";

/**
 * The policy's launch flags for a turn that starts in plan mode: its `--permission-mode` replaced
 * by `plan` and, when `--tools` limits the tools (the `read_only` sandbox), {@link PLAN_EXIT_TOOL}
 * added so the agent can ask to leave. `modeAfterPlan` is the mode the policy launched in
 * (`default` without one): an approved plan returns the CLI to it, so the approve never widens
 * what the policy lets run (under `read_only` the tools stay the read tools). A policy launched in
 * `bypassPermissions` (`unrestricted`) adds `--allow-dangerously-skip-permissions`, without which
 * the CLI refuses to switch to it at run time.
 */
export function planModeArgs(args: readonly string[]): { readonly args: string[]; readonly modeAfterPlan: string } {
  const out: string[] = [];
  let modeAfterPlan = DEFAULT_MODE;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === "--permission-mode") {
      modeAfterPlan = args[++i] ?? DEFAULT_MODE;
      continue;
    }
    if (arg === "--tools" && i + 1 < args.length) {
      const tools = args[++i]!;
      out.push(arg, tools.split(",").includes(PLAN_EXIT_TOOL) ? tools : `${tools},${PLAN_EXIT_TOOL}`);
      continue;
    }
    out.push(arg);
  }
  out.push("--permission-mode", "plan");
  // The CLI switches to bypassPermissions at run time only when launched with it as an option.
  if (modeAfterPlan === "bypassPermissions") out.push("--allow-dangerously-skip-permissions");
  return { args: out, modeAfterPlan };
}

/**
 * Refuses a turn in plan mode that carries allow rules (the run's `allowedTools`, or
 * `--allowedTools` in the driver's `extraArgs`): Claude Code runs the calls they allow without
 * asking, in plan mode too, so they would act before any plan is approved.
 * @throws InvalidOptionError (subject `claude`, field `planMode`) before launch.
 */
export function refusePlanModeAllowRules(allowRules: readonly string[], extraArgs: readonly string[] = []): void {
  const flag = allowRuleFlag(extraArgs);
  if (allowRules.length === 0 && flag === undefined) return;
  const what = allowRules.length > 0 ? "allowedTools" : `${flag!.split("=")[0]} in extraArgs`;
  throw new InvalidOptionError({
    subject: "claude",
    field: "planMode",
    reason: `cannot be combined with ${what}: Claude Code runs the calls they allow without asking, before any plan is approved; drop them or planMode`,
  });
}
