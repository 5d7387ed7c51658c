import { AdaptorError } from "@adaptor/errors";
import { ErrSkillsUnsupported } from "./sentinels.js";

/**
 * The run asks for skills (`skills`, or a `skillProvider` with required skills) and its driver
 * declares no way to deliver them to the agent (`capabilities.skills` is false); matches
 * {@link ErrSkillsUnsupported}. Thrown before the driver starts, so no skill is silently dropped.
 */
export class SkillsUnsupportedError extends AdaptorError {
  static override readonly brand: symbol = Symbol.for("adaptor.error.SkillsUnsupportedError");
  static override readonly sentinel = ErrSkillsUnsupported;
  /** Driver type, e.g. `"acp"`. */
  readonly driver: string;
  /** The skills' runtime names the run asked for. */
  readonly skills: readonly string[];

  constructor(driver: string, skills: readonly string[]) {
    super(`${driver}: skills unsupported: the driver cannot deliver ${skills.map((name) => JSON.stringify(name)).join(", ")} to the agent`);
    this.driver = driver;
    this.skills = Object.freeze([...skills]);
  }
}
