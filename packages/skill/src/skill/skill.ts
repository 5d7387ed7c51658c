import type { SkillArchiveLimits } from "../materialize/archive-limits.js";

/** A local folder holding `SKILL.md` and its files. Built by `skillDir`. */
export interface SkillDirSource {
  /** Source kind discriminator. */
  readonly kind: "dir";
  /** The folder; used in place (never copied or edited by the SDK). */
  readonly path: string;
}

/** A skill written from memory. Built by `skillInline`. */
export interface SkillInlineSource {
  /** Source kind discriminator. */
  readonly kind: "inline";
  /** `description` of the generated `SKILL.md` front matter: what the model sees before loading the skill. */
  readonly description: string;
  /** Markdown after the front matter. */
  readonly body: string;
  /**
   * Extra files by relative path (`/` separators, no `..`, not `SKILL.md`), as text (UTF-8) or
   * bytes, e.g. `{ "scripts/check.sh": "#!/bin/sh\n..." }`.
   */
  readonly files?: Readonly<Record<string, string | Uint8Array>>;
}

/** Archive formats `skillArchive` accepts; `tgz` is gzip-compressed tar (`.tar.gz`). */
export type SkillArchiveFormat = "zip" | "tar" | "tgz";

/** A zip, tar or tar.gz archive, unpacked per run under limits. Built by `skillArchive`. */
export interface SkillArchiveSource {
  /** Source kind discriminator. */
  readonly kind: "archive";
  /** The archive: a file path, or its bytes. */
  readonly archive: string | Uint8Array;
  /** Format; default: sniffed from the first bytes (zip, gzip, ustar magic). */
  readonly format?: SkillArchiveFormat;
  /**
   * Folder inside the archive that holds `SKILL.md`. Default: the archive root, else its only
   * top-level folder when that folder holds `SKILL.md` (what `tar czf x.tgz my-skill/` makes).
   */
  readonly subpath?: string;
  /** Limits on entries and sizes; unset fields take {@link DEFAULT_SKILL_ARCHIVE_LIMITS}. */
  readonly limits?: Partial<SkillArchiveLimits>;
}

/** Where a concrete skill's files come from. */
export type SkillSource = SkillDirSource | SkillInlineSource | SkillArchiveSource;

/**
 * A concrete skill: identity, source and markers. Two skills with the same `key` must
 * be structurally identical (then they merge) or the run fails with `SkillKeyConflictError`.
 */
export interface Skill {
  /** Discriminator: a concrete skill (vs `"skill-key"`, a catalogue reference). */
  readonly kind: "skill";
  /** Identity within a run and in catalogues; non-empty (else `ErrSkillKeyMissing`). */
  readonly key: string;
  /** Where the files come from; absent → `ErrSkillSourceMissing`. */
  readonly source?: SkillSource;
  /**
   * Folder name the CLI loads the skill under. Default: the key with characters outside
   * `[A-Za-z0-9._-]` replaced by `-`. Claude 2.1.332 lists a skill by this folder name (a
   * different front-matter `name` is shown beside it, as `folder (name): description`), and lists
   * a `SKILL.md` without front matter only as a slash command, not as a skill.
   */
  readonly runtimeName?: string;
  /** A catalogue includes required skills in every run, requested or not. Default false. */
  readonly required?: boolean;
  /** Why the skill is required, for people. */
  readonly reason?: string;
}

/** A reference to a catalogue skill, resolved by the run's `skillProvider`. Built by `skillKey`. */
export interface SkillKeyRef {
  /** Discriminator of a catalogue reference. */
  readonly kind: "skill-key";
  /** The catalogue key; empty → `ErrSkillKeyMissing`, unknown → `ErrSkillNotFound`. */
  readonly key: string;
}

/** What a run's `skills` option accepts: a concrete skill or a catalogue reference. */
export type SkillSpec = Skill | SkillKeyRef;
