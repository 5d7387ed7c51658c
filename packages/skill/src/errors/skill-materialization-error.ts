import { AdaptorError } from "@adaptor/errors";
import { ErrSkillMaterializationFailed } from "./sentinels.js";

/** Staging a skill failed; matches {@link ErrSkillMaterializationFailed} and keeps the materialiser's `cause`. */
export class SkillMaterializationError extends AdaptorError {
  static override readonly brand: symbol = Symbol.for("adaptor.error.SkillMaterializationError");
  static override readonly sentinel = ErrSkillMaterializationFailed;
  readonly key: string;
  /** The folder name the CLI would load it under. */
  readonly runtimeName: string;

  constructor(key: string, runtimeName: string, cause: unknown) {
    super(`skill ${JSON.stringify(key)} (${runtimeName}): materialization failed`, { cause });
    this.key = key;
    this.runtimeName = runtimeName;
  }
}
