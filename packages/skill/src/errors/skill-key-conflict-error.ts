import { AdaptorError } from "@adaptor/errors";
import { ErrSkillKeyConflict } from "./sentinels.js";

/**
 * Two structurally different skills share `key` (docs/errors.md "Pre-invocation errors"); matches
 * {@link ErrSkillKeyConflict}. Identical duplicates never raise it: they merge. Thrown before the
 * driver runs.
 */
export class SkillKeyConflictError extends AdaptorError {
  static override readonly brand: symbol = Symbol.for("adaptor.error.SkillKeyConflictError");
  static override readonly sentinel = ErrSkillKeyConflict;
  /** The shared key. */
  readonly key: string;
  /** A description of each conflicting source, e.g. `["dir:/a", "inline"]`. */
  readonly sources: readonly string[];
  /** What differs, e.g. `dir path differs (/a vs /b)`. */
  readonly detail: string;

  constructor(key: string, sources: readonly string[], detail: string) {
    super(`skill ${JSON.stringify(key)}: conflicting declarations (${sources.join(", ")}): ${detail}`);
    this.key = key;
    this.sources = Object.freeze([...sources]);
    this.detail = detail;
  }
}
