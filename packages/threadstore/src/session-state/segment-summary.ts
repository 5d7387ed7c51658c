import { createHash } from "node:crypto";
import type { SessionStateWrite } from "./session-state.js";

/** The modulus of {@link SegmentSummary.checksum}: 2^31 − 1, a prime, so every term fits a signed 64-bit SQL integer. */
export const SEGMENT_CHECKSUM_MODULUS = 2_147_483_647;

/**
 * What a record's stored segments add up to, from the segments themselves
 * (`SessionStateStore.summary`). With segment `i` (0-based, in the order of
 * `SessionStateStore.segments`) of `n_i` bytes and tag `t_i` ({@link segmentTag}): `segments` is
 * their count, `bytes` is `Σ n_i`, and `checksum` is `Σ ((i + 1) × t_i mod M)` mod `M`
 * ({@link SEGMENT_CHECKSUM_MODULUS}), which changes when two different segments swap places.
 * {@link segmentSummaryAfter} gives the summary a write leaves.
 */
export interface SegmentSummary {
  /** How many segments are stored. */
  readonly segments: number;
  /** The sum of their byte lengths. */
  readonly bytes: number;
  /** The position-weighted sum of their tags, modulo {@link SEGMENT_CHECKSUM_MODULUS}. */
  readonly checksum: number;
}

/**
 * A segment's tag: the first four bytes of the SHA-256 of its bytes, read as a big-endian unsigned
 * integer, modulo {@link SEGMENT_CHECKSUM_MODULUS}. A store computes it once, when the segment is
 * written (so it costs only new bytes), and keeps it with the segment for `SessionStateStore.summary`.
 */
export function segmentTag(segment: Uint8Array): number {
  return createHash("sha256").update(segment).digest().readUInt32BE(0) % SEGMENT_CHECKSUM_MODULUS;
}

/** `(position + 1) × tag` modulo {@link SEGMENT_CHECKSUM_MODULUS}: segment `position`'s term of the checksum. */
export function checksumTerm(position: number, tag: number): number {
  return Number((BigInt(position + 1) * BigInt(tag)) % BigInt(SEGMENT_CHECKSUM_MODULUS));
}

/**
 * The {@link SegmentSummary} a record's segments have after `write`, given the summary `before` it
 * (absent: nothing stored). Costs only the written segments (it hashes each for its tag): the SDK
 * keeps it in its manifest to compare with the store's.
 */
export function segmentSummaryAfter(
  before: SegmentSummary | undefined,
  write: Pick<SessionStateWrite, "mode" | "segments">,
): SegmentSummary {
  let { segments, bytes, checksum } = write.mode === "append" && before ? before : { segments: 0, bytes: 0, checksum: 0 };
  for (const segment of write.segments) {
    checksum = (checksum + checksumTerm(segments, segmentTag(segment))) % SEGMENT_CHECKSUM_MODULUS;
    segments += 1;
    bytes += segment.byteLength;
  }
  return { segments, bytes, checksum };
}
