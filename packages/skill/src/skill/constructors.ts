import { basename } from "node:path";
import type { SkillArchiveLimits } from "../materialize/archive-limits.js";
import type { Skill, SkillArchiveFormat, SkillKeyRef } from "./skill.js";

/** Options every concrete-skill constructor takes. */
export interface SkillOptions {
  /** Override of the default key. */
  readonly key?: string;
  /** Folder name the CLI loads it under; see {@link Skill.runtimeName}. */
  readonly runtimeName?: string;
  /** Mark the skill required (see {@link requireSkill}). */
  readonly required?: boolean;
  /** Why it is required. */
  readonly reason?: string;
}

/** Fields of {@link skillInline}. */
export interface SkillInlineInit extends Omit<SkillOptions, "key"> {
  /** Key and front-matter `name`; also the default runtime name. */
  readonly name: string;
  /** Front-matter `description`. */
  readonly description: string;
  /** Markdown body after the front matter. */
  readonly body: string;
  /** Extra files by relative path (`/` separators, no `..`, not `SKILL.md`), as UTF-8 text or bytes. */
  readonly files?: Readonly<Record<string, string | Uint8Array>>;
}

/** Options of {@link skillArchive}. */
export interface SkillArchiveOptions extends SkillOptions {
  /** Format; default sniffed. */
  readonly format?: SkillArchiveFormat;
  /** Folder inside the archive holding `SKILL.md`. */
  readonly subpath?: string;
  /** Limits; unset fields take the defaults. */
  readonly limits?: Partial<SkillArchiveLimits>;
}

function markers(options: SkillOptions): Pick<Skill, "runtimeName" | "required" | "reason"> {
  return {
    ...(options.runtimeName !== undefined ? { runtimeName: options.runtimeName } : {}),
    ...(options.required ? { required: true } : {}),
    ...(options.reason !== undefined ? { reason: options.reason } : {}),
  };
}

/** The last path segment, "" for an empty path or a root. */
function keyFromPath(path: string): string {
  const trimmed = path.trim().replace(/[\\/]+$/, "");
  return trimmed === "" ? "" : basename(trimmed);
}

/**
 * A skill from a local folder holding `SKILL.md`; the key defaults to the folder's name. Never
 * throws: the folder is checked when a run materialises it (`SkillMaterializationError`).
 *
 * @example
 * skillDir("./skills/release-notes")
 */
export function skillDir(path: string, options: SkillOptions = {}): Skill {
  return Object.freeze({
    kind: "skill" as const,
    key: options.key ?? keyFromPath(path),
    source: Object.freeze({ kind: "dir" as const, path }),
    ...markers(options),
  });
}

/**
 * A skill written from memory: the run writes `SKILL.md` (front matter `name`, `description`, then
 * `body`) and `files` into a private folder. Key: `name`.
 *
 * @example
 * skillInline({ name: "house-style", description: "Our commit message rules", body: "Use the imperative..." })
 */
export function skillInline(init: SkillInlineInit): Skill {
  const { name, description, body, files, ...options } = init;
  return Object.freeze({
    kind: "skill" as const,
    key: name,
    source: Object.freeze({ kind: "inline" as const, description, body, ...(files ? { files: Object.freeze({ ...files }) } : {}) }),
    ...markers(options),
  });
}

/**
 * A skill from a zip, tar or tar.gz archive (a path or bytes), unpacked per run with limits on
 * entry count, total size and paths (any breach → `SkillMaterializationError`). Key: the file
 * name without its archive extension; give `options.key` for bytes (else `ErrSkillKeyMissing`).
 *
 * @example
 * skillArchive("./dist/deploy-kit.tgz", { limits: { maxEntries: 200 } })
 */
export function skillArchive(archive: string | Uint8Array, options: SkillArchiveOptions = {}): Skill {
  const { format, subpath, limits, ...rest } = options;
  const key = rest.key ?? (typeof archive === "string" ? keyFromPath(archive).replace(/\.(zip|tar|tar\.gz|tgz)$/i, "") : "");
  return Object.freeze({
    kind: "skill" as const,
    key,
    source: Object.freeze({
      kind: "archive" as const,
      archive,
      ...(format ? { format } : {}),
      ...(subpath !== undefined ? { subpath } : {}),
      ...(limits ? { limits: Object.freeze({ ...limits }) } : {}),
    }),
    ...markers(rest),
  });
}

/**
 * A reference to a catalogue skill, resolved before launch by the run's `skillProvider`
 * (unknown key → `ErrSkillNotFound`, empty key → `ErrSkillKeyMissing`).
 */
export function skillKey(key: string): SkillKeyRef {
  return Object.freeze({ kind: "skill-key" as const, key });
}

/**
 * A copy of `skill` marked required, with an optional reason. A catalogue ({@link skillSet})
 * includes its required skills in every run, requested or not.
 */
export function requireSkill(skill: Skill, reason?: string): Skill {
  return Object.freeze({ ...skill, required: true, ...(reason !== undefined ? { reason } : {}) });
}
