/** One skill ready for a driver: a folder holding `SKILL.md` (structurally a driver `SkillBundle` plus identity). */
export interface MaterializedSkill {
  /** The skill's key. */
  readonly key: string;
  /** Folder name the CLI loads it under (the driver SPI's `SkillBundle.name`). */
  readonly name: string;
  /** Local folder with `SKILL.md`: the host's own folder for dir skills, else one in the staging root. */
  readonly dir: string;
  /** Whether the skill was marked required. */
  readonly required: boolean;
}

/** What {@link materializeSkills} staged for one run; dispose it after the run. */
export interface MaterializedSkills extends AsyncDisposable {
  /** The staged skills, in order. */
  readonly skills: readonly MaterializedSkill[];
  /** The private staging folder (0700), or `undefined` when nothing needed staging. */
  readonly root: string | undefined;
  /** Removes the staging folder and everything in it; never touches dir skills. Idempotent; never rejects. */
  cleanup(): Promise<void>;
}
