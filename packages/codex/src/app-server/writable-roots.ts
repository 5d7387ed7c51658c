import { resolve } from "node:path";
import { FeatureUnsupportedError } from "@adaptor/driver";
import type { CodexPolicyPlan } from "../policy.js";
import type { SandboxPolicy } from "../protocol/generated/v2/SandboxPolicy.js";

/**
 * Checks the writable roots codex applied to a thread (`applied`, the `workspaceWrite` policy of
 * the `thread/start` / `thread/resume` / `thread/fork` answer) against the plan's (the run's
 * `additionalDirectories`, `[]`, or the host's `configOverrides` list). codex 0.171.0 keeps the
 * roots of a thread's earlier turns when it resumes or forks it (the thread's workspace roots) and
 * adds the ones the thread's config names; neither `thread/resume` nor a `turn/start`
 * `sandboxPolicy` of its stable protocol drops them. A root the plan lacks would let the turn
 * write where the run did not allow, so the turn is refused before it starts. A plan without a
 * roots list, or an answer with another sandbox, is not checked.
 *
 * @throws FeatureUnsupportedError (feature `additionalDirectories`) naming the roots codex kept.
 */
export function checkWritableRoots(plan: CodexPolicyPlan, applied: SandboxPolicy | undefined, driverType: string): void {
  if (plan.sandbox !== "workspace-write" || !Array.isArray(plan.writableRoots)) return;
  if (applied?.type !== "workspaceWrite") return;
  const allowed = new Set((plan.writableRoots as readonly string[]).map((root) => resolve(root)));
  const kept = applied.writableRoots.filter((root) => !allowed.has(resolve(root)));
  if (kept.length === 0) return;
  throw new FeatureUnsupportedError(
    driverType,
    "additionalDirectories",
    `codex keeps the writable roots of a thread's earlier turns when it resumes the thread, and this one would still write in ` +
      `${JSON.stringify(kept)} (codex 0.171.0 offers no stable way to drop them); give this turn the thread's earlier ` +
      "additionalDirectories too, or start a new thread",
  );
}
