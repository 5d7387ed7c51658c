/**
 * Limits applied while unpacking a skill archive (and to inline skills' files). Exceeding any of
 * them fails the run before launch with `SkillMaterializationError`.
 */
export interface SkillArchiveLimits {
  /** Most entries (files and folders). */
  readonly maxEntries: number;
  /** Most bytes of all files together, uncompressed. */
  readonly maxTotalBytes: number;
  /** Largest archive file, in bytes, as stored (compressed). */
  readonly maxArchiveBytes: number;
}

/** Defaults: 10 000 entries, 100 MiB unpacked, 100 MiB archive. */
export const DEFAULT_SKILL_ARCHIVE_LIMITS: SkillArchiveLimits = Object.freeze({
  maxEntries: 10_000,
  maxTotalBytes: 100 * 1024 * 1024,
  maxArchiveBytes: 100 * 1024 * 1024,
});

/** `limits` over the defaults. */
export function archiveLimits(limits: Partial<SkillArchiveLimits> | undefined): SkillArchiveLimits {
  return { ...DEFAULT_SKILL_ARCHIVE_LIMITS, ...limits };
}
