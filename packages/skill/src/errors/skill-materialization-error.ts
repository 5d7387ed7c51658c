import { AdaptorError } from "@adaptor/errors";
import { ErrSkillMaterializationFailed } from "./sentinels.js";

/**
 * Staging a skill failed (docs/errors.md "Pre-invocation errors"): matches
 * {@link ErrSkillMaterializationFailed} and keeps the materialiser's error as `cause` (a limit or
 * path rule broken while unpacking, a missing `SKILL.md`, a file system error). Thrown before the
 * driver runs; whatever was staged is removed first.
 */
export class SkillMaterializationError extends AdaptorError {
  static override readonly brand: symbol = Symbol.for("adaptor.error.SkillMaterializationError");
  static override readonly sentinel = ErrSkillMaterializationFailed;
  /** The skill's key. */
  readonly key: string;
  /** The folder name the CLI would load it under. */
  readonly runtimeName: string;

  constructor(key: string, runtimeName: string, cause: unknown) {
    const detail = cause instanceof Error ? cause.message : cause === undefined ? "" : String(cause);
    super(`skill ${JSON.stringify(key)} (${runtimeName}): materialization failed${detail ? `: ${detail}` : ""}`, { cause });
    this.key = key;
    this.runtimeName = runtimeName;
  }
}
