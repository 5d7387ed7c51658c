import { resolve } from "node:path";
import { FeatureUnsupportedError } from "@adaptor/driver";
import type { CodexPolicyPlan } from "../policy.js";

/**
 * Checks the writable roots codex gives a thread (`roots`: those of the `workspaceWrite` policy in
 * the `thread/start` / `thread/resume` / `thread/fork` answer, or, before launch, those the
 * thread's checkpoint recorded) against the plan's (the run's `additionalDirectories`, `[]`, or
 * the host's `configOverrides` list). codex 0.171.0 keeps the roots of a thread's earlier turns
 * when it resumes or forks it (the thread's workspace roots) and adds the ones the thread's config
 * names; neither `thread/resume` nor a `turn/start` `sandboxPolicy` of its stable protocol drops
 * them. A root the plan lacks would let the turn write where the run did not allow, so the turn is
 * refused. A plan without a roots list (a sandbox other than `workspace-write`), or no `roots`, is
 * not checked.
 *
 * @throws FeatureUnsupportedError (feature `additionalDirectories`) naming the roots codex keeps.
 */
export function checkWritableRoots(plan: CodexPolicyPlan, roots: readonly string[] | undefined, driverType: string): void {
  if (plan.sandbox !== "workspace-write" || !Array.isArray(plan.writableRoots) || roots === undefined) return;
  const allowed = new Set((plan.writableRoots as readonly string[]).map((root) => resolve(root)));
  const kept = roots.filter((root) => !allowed.has(resolve(root)));
  if (kept.length === 0) return;
  throw new FeatureUnsupportedError(
    driverType,
    "additionalDirectories",
    `codex keeps the writable roots of a thread's earlier turns when it resumes the thread, and this one would still write in ` +
      `${JSON.stringify(kept)} (codex 0.171.0 offers no stable way to drop them); give this turn the thread's earlier ` +
      "additionalDirectories too, or start a new thread",
  );
}
