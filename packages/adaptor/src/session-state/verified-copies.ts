/** How many verified identities this process remembers; the oldest are forgotten first. */
const REMEMBERED = 4096;

/** Identities (`SessionFileSlice.identity`) of local session files this process verified or saw its own turns write. */
const verified = new Set<string>();

/**
 * Whether this process verified the local session file that had `identity` when read: the SDK
 * checked it against every stored byte, or read it after a turn whose start it checked. A file
 * written since (by anyone) has another identity; `undefined` (a driver that gives none) is never
 * verified.
 */
export function isVerified(identity: string | undefined): boolean {
  return identity !== undefined && verified.has(identity);
}

/** Remembers `identity` as verified (see {@link isVerified}); at most {@link REMEMBERED} are kept. */
export function markVerified(identity: string | undefined): void {
  if (identity === undefined) return;
  verified.delete(identity);
  verified.add(identity);
  if (verified.size > REMEMBERED) verified.delete(verified.values().next().value!);
}
