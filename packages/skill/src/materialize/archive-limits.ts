import { checkOptions, optionChecks } from "@adaptor/errors";

/**
 * Limits applied while unpacking a skill archive (and to inline skills' files). Each is a finite
 * positive integer; anything else (`NaN`, `Infinity`, `0`, `-1`, `1.5`, `"10"`) is refused with an
 * `InvalidOptionError` naming the field, never read as "no limit". Exceeding a limit fails the run
 * before launch with `SkillMaterializationError`.
 */
export interface SkillArchiveLimits {
  /** Most entries (files and folders). Default 10 000. */
  readonly maxEntries: number;
  /** Most bytes of all files together, uncompressed. Default 100 MiB. */
  readonly maxTotalBytes: number;
  /** Largest archive file, in bytes, as stored (compressed). Default 100 MiB. */
  readonly maxArchiveBytes: number;
}

/** Defaults: 10 000 entries, 100 MiB unpacked, 100 MiB archive. */
export const DEFAULT_SKILL_ARCHIVE_LIMITS: SkillArchiveLimits = Object.freeze({
  maxEntries: 10_000,
  maxTotalBytes: 100 * 1024 * 1024,
  maxArchiveBytes: 100 * 1024 * 1024,
});

const positiveInteger = optionChecks.integer(1);
const LIMITS_SHAPE = { maxEntries: positiveInteger, maxTotalBytes: positiveInteger, maxArchiveBytes: positiveInteger };

/**
 * `limits` over the defaults (unset or `undefined` fields take the default).
 * @throws InvalidOptionError (subject `"skillArchive limits"`) naming the field: an unknown key, or
 * a value that is not a finite positive integer.
 */
export function archiveLimits(limits: Partial<SkillArchiveLimits> | undefined): SkillArchiveLimits {
  const checked = checkOptions<Partial<SkillArchiveLimits>>("skillArchive limits", limits, LIMITS_SHAPE);
  return {
    maxEntries: checked.maxEntries ?? DEFAULT_SKILL_ARCHIVE_LIMITS.maxEntries,
    maxTotalBytes: checked.maxTotalBytes ?? DEFAULT_SKILL_ARCHIVE_LIMITS.maxTotalBytes,
    maxArchiveBytes: checked.maxArchiveBytes ?? DEFAULT_SKILL_ARCHIVE_LIMITS.maxArchiveBytes,
  };
}
