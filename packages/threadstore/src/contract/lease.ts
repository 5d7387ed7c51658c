/**
 * A lease on one target (a thread key). `token` is a fencing token: strictly increasing per
 * target across every acquisition, so a stale holder can never overwrite a newer one.
 */
export interface Lease {
  /** What is leased: a thread key. */
  readonly target: string;
  /** Who holds it (a worker or run id). */
  readonly owner: string;
  /** Fencing token, strictly increasing per target. */
  readonly token: number;
  /** When it lapses unless renewed (UTC). */
  readonly expiresAt: Date;
}
