import { FeatureUnsupportedError } from "@adaptor/driver";
import { InvalidOptionError } from "@adaptor/errors";
import { WRITABLE_ROOTS_KEY, type CodexPolicyPlan } from "./policy.js";
import { containsPath, realDirectory } from "@adaptor/driver/kit";

/**
 * Why a run with `additionalDirectories` and no sandbox in its policy is refused: codex's own
 * config picks the sandbox, and the directories could only be made writable by replacing it.
 */
export const DIRECTORIES_WITHOUT_SANDBOX =
  "with no policy sandbox codex's own config picks its sandbox (read-only, workspace-write with its own writable roots, " +
  "or full access), and the directories could only be made writable by replacing that sandbox or its writable roots; " +
  'set policy.sandbox ("workspace_write" makes them writable roots)';

/**
 * Carries the run's `additionalDirectories` (absolute paths, checked by the SDK) into the codex
 * plan, by the sandbox the plan sets:
 * - `workspace-write`: they become codex's writable roots besides the working directory
 *   (`sandbox_workspace_write.writable_roots`, pinned to exactly these; a write anywhere else
 *   outside the working directory stays refused by codex's sandbox). Each is resolved when the run
 *   starts (no trailing slash, `.` or `..`, every symbolic link followed; for a path that does not
 *   exist, its nearest existing ancestor's): codex is given the real directory, so a link swapped
 *   after launch changes nothing, and the enforcement report names the directory as given and,
 *   when they differ, the real one ({@link CodexPolicyPlan.requestedDirectories}). A directory
 *   that is the filesystem root, that contains the Codex home the run uses (`codexHome`: its
 *   config.toml would become writable, and with it the sandbox), or that is inside it (`rules/`,
 *   hooks and the rest of what codex obeys), is refused;
 * - `read-only`: accepted, writes not widened: codex's read-only sandbox lets commands read every
 *   path already, so the directories are readable and stay unwritable ({@link CodexPolicyPlan.readOnlyDirectories}
 *   for the report);
 * - `danger-full-access` (sandbox `unrestricted`, or permission `ask` with no sandbox): accepted,
 *   every path is writable already.
 * Without directories (absent or empty) the plan is returned as it is.
 *
 * @throws FeatureUnsupportedError (feature `additionalDirectories`) when the plan sets no sandbox
 * ({@link DIRECTORIES_WITHOUT_SANDBOX}); InvalidOptionError (subject `run`, field
 * `additionalDirectories`) under `workspace-write` when `codex({ configOverrides })` sets the
 * writable roots too (one of the two would be dropped); InvalidOptionError (subject `run`, field
 * `additionalDirectories[i]`) under `workspace-write` for a directory that resolves to `/`,
 * contains `codexHome` or is inside it. All before launch.
 */
export function withAdditionalDirectories(
  plan: CodexPolicyPlan,
  directories: readonly string[] | undefined,
  driverType: string,
  codexHome: string,
): CodexPolicyPlan {
  if (directories === undefined || directories.length === 0) return plan;
  if (plan.sandbox === undefined) throw new FeatureUnsupportedError(driverType, "additionalDirectories", DIRECTORIES_WITHOUT_SANDBOX);
  if (plan.sandbox === "read-only") return { ...plan, readOnlyDirectories: [...directories] };
  if (plan.sandbox !== "workspace-write") return plan;
  if (plan.hostWritableRoots)
    throw new InvalidOptionError({
      subject: "run",
      field: "additionalDirectories",
      reason: `are set while codex({ configOverrides }) sets ${WRITABLE_ROOTS_KEY}: set one of them`,
    });
  const home = realDirectory(codexHome);
  const roots = directories.map((directory, index) => {
    const real = realDirectory(directory);
    const wide =
      real === "/"
        ? "the filesystem root"
        : containsPath(real, home)
          ? `the Codex home ${JSON.stringify(home)} (its config.toml sets the sandbox)`
          : containsPath(home, real)
            ? `a directory inside the Codex home ${JSON.stringify(home)} (its rules and hooks decide what runs)`
            : undefined;
    if (wide)
      throw new InvalidOptionError({
        subject: "run",
        field: `additionalDirectories[${index}]`,
        reason: `${JSON.stringify(directory)} (${JSON.stringify(real)}) would make ${wide} writable under sandbox workspace_write`,
      });
    return real;
  });
  return { ...plan, writableRoots: roots, requestedDirectories: [...directories] };
}
