import { createHash } from "node:crypto";
import type { SegmentSummary } from "@adaptor/threadstore";
import type { TurnLog } from "../thread/turn-log.js";

/** How the SDK describes a thread's stored session state (the store keeps it as opaque JSON). */
export interface SessionManifest {
  /** Layout version of this manifest. */
  readonly v: 1;
  /** The driver's export format (`SessionTransfer.format`). */
  readonly format: string;
  /** How each segment is compressed. */
  readonly compression: "gzip";
  /** The files, each the concatenation of its segments (indexes into the record's segments) once decompressed. */
  readonly files: readonly SessionManifestFile[];
  /**
   * What the record's stored segments add up to after the write that stored this manifest
   * (`SegmentSummary`: count, bytes, checksum), for comparing with a store's
   * `summary` when a turn begins. Written since that check; absent in manifests of earlier versions
   * and after a write whose earlier segments' summary was not known.
   */
  readonly stored?: SegmentSummary;
  /**
   * The conversation's committed turns and the checkpoint each ended at, for a fork at an earlier
   * turn (`thread.fork(key, { at })`). Written since forks at a turn; absent before.
   */
  readonly turns?: TurnLog;
}

/**
 * One file of a {@link SessionManifest}. Every hash in it covers a bounded number of bytes the
 * turn wrote, so a turn hashes only what it adds (plus one window of at most {@link TAIL_WINDOW}
 * bytes), never the whole history.
 */
export interface SessionManifestFile {
  /** The driver's logical name. */
  readonly name: string;
  /** Uncompressed length in bytes. */
  readonly bytes: number;
  /** sha256 (hex) of the whole uncompressed content; written by earlier versions only (they hashed every byte every turn). */
  readonly sha256?: string;
  /** Which of the record's segments hold it, in order. */
  readonly segments: readonly number[];
  /** sha256 (hex) of each segment's uncompressed bytes, in the order of `segments`. */
  readonly segmentSha256?: readonly string[];
  /** sha256 (hex) of the file's last `tail.bytes` bytes: what a later export must still hold at the same offset to count as grown from this one. */
  readonly tail?: { readonly bytes: number; readonly sha256: string };
  /**
   * Where each segment ends, in the order of `segments`: the file's length through that segment and
   * the sha256 (hex) of its last {@link TAIL_WINDOW} bytes there (the `tail` the file had when that
   * segment was its last). A host whose copy ends at one of them, with that window, holds the
   * stored file up to there and needs only the later segments. Written since per-segment restore.
   */
  readonly ends?: readonly { readonly bytes: number; readonly sha256: string }[];
}

/** The most bytes at the end of a stored file whose hash is kept to tell a grown file from a rewritten one: 64 KiB. */
export const TAIL_WINDOW = 64 * 1024;

/** sha256 (hex) of `content`. */
export function sha256(content: Uint8Array): string {
  return createHash("sha256").update(content).digest("hex");
}

/**
 * Part of a file as this host has it: its whole length and its bytes from `offset` on (the whole
 * file when `offset` is 0).
 */
export interface FilePart {
  /** The file's whole length in bytes. */
  readonly bytes: number;
  /** Where `content` begins in the file. */
  readonly offset: number;
  /** The file's bytes from `offset` to `bytes`. */
  readonly content: Uint8Array;
  /** The file's identity when read, if the driver gives one (`SessionFileSlice.identity`). */
  readonly identity?: string;
}

/** The bytes `[start, end)` of the file `part` is from, or `undefined` when `part` does not hold them all. */
export function bytesOf(part: FilePart, start: number, end: number): Uint8Array | undefined {
  if (start < part.offset || end > part.bytes || start > end) return undefined;
  return part.content.subarray(start - part.offset, end - part.offset);
}

/** Where a file read for {@link grewFrom} against `stored` must begin: its tail window (0 for a manifest of an earlier version). */
export function readFrom(stored: SessionManifestFile): number {
  return stored.tail ? Math.max(0, stored.bytes - stored.tail.bytes) : 0;
}

/**
 * The tail hash of a file (its last {@link TAIL_WINDOW} bytes at most) from `part`, which must hold
 * them; `undefined` when it does not.
 */
export function tailOf(part: FilePart): { bytes: number; sha256: string } | undefined {
  const bytes = Math.min(TAIL_WINDOW, part.bytes);
  const window = bytesOf(part, part.bytes - bytes, part.bytes);
  return window && { bytes, sha256: sha256(window) };
}

/**
 * Whether the file `part` is from begins with the bytes `stored` describes: at least as long, and
 * the same bytes in the stored file's tail window (or, for a manifest of an earlier version, the
 * same sha256 of the whole stored prefix). `part` must begin at or before {@link readFrom}; a part
 * that does not holds too little to tell, and counts as not grown.
 */
export function grewFrom(stored: SessionManifestFile, part: FilePart): boolean {
  if (part.bytes < stored.bytes) return false;
  const { bytes, sha256: hash } = stored.tail ?? { bytes: stored.bytes, sha256: stored.sha256 };
  if (hash === undefined || bytes > stored.bytes) return false;
  const window = bytesOf(part, stored.bytes - bytes, stored.bytes);
  return window !== undefined && sha256(window) === hash;
}

/**
 * Whether the file `whole` is from (read from offset 0) begins with stored `file`'s bytes through
 * its first `count` segments (all by default), judged by every hash the manifest keeps for them: each
 * segment's sha256 at the offsets its `ends` give, or for a manifest of an earlier version the sha256
 * of the whole file. `false` when the manifest lacks what that takes (the caller then restores the
 * stored bytes). Hashes every byte it covers: for a copy whose identity was not verified before.
 */
export function heldThrough(file: SessionManifestFile, whole: FilePart, count = file.segments.length): boolean {
  if (whole.offset !== 0) return false;
  if (file.ends && file.segmentSha256 && count <= file.ends.length) {
    for (let i = 0; i < count; i++) {
      const segment = bytesOf(whole, i === 0 ? 0 : file.ends[i - 1]!.bytes, file.ends[i]!.bytes);
      if (!segment || sha256(segment) !== file.segmentSha256[i]) return false;
    }
    // Through the last segment: that segment must end where the file does.
    return count < file.ends.length || (file.ends.at(-1)?.bytes ?? 0) === file.bytes;
  }
  if (count !== file.segments.length || file.sha256 === undefined) return false;
  const content = bytesOf(whole, 0, file.bytes);
  return content !== undefined && sha256(content) === file.sha256;
}

const isHash = (value: unknown): boolean => typeof value === "string" && /^[0-9a-f]{64}$/.test(value);

/** The manifest in `value` when it is one this SDK wrote for `format`, else `undefined`. */
export function readManifest(value: unknown, format: string): SessionManifest | undefined {
  if (typeof value !== "object" || value === null) return undefined;
  const m = value as Partial<SessionManifest>;
  if (m.v !== 1 || m.format !== format || m.compression !== "gzip" || !Array.isArray(m.files)) return undefined;
  const ok = m.files.every(
    (f) =>
      typeof f?.name === "string" &&
      Number.isSafeInteger(f.bytes) &&
      f.bytes >= 0 &&
      (f.sha256 === undefined || isHash(f.sha256)) &&
      Array.isArray(f.segments) &&
      f.segments.every((i: unknown) => Number.isSafeInteger(i) && (i as number) >= 0) &&
      (f.segmentSha256 === undefined ||
        (Array.isArray(f.segmentSha256) && f.segmentSha256.length === f.segments.length && f.segmentSha256.every(isHash))) &&
      (f.tail === undefined || (Number.isSafeInteger(f.tail.bytes) && f.tail.bytes >= 0 && isHash(f.tail.sha256))) &&
      (f.ends === undefined ||
        (Array.isArray(f.ends) &&
          f.ends.length === f.segments.length &&
          f.ends.every(
            (end: unknown, i: number) =>
              typeof end === "object" &&
              end !== null &&
              Number.isSafeInteger((end as { bytes?: unknown }).bytes) &&
              (end as { bytes: number }).bytes >= (i === 0 ? 0 : f.ends![i - 1]!.bytes) &&
              isHash((end as { sha256?: unknown }).sha256),
          ))) &&
      // Something to check the content against: the whole-file hash, or the per-segment hashes and a tail.
      (f.sha256 !== undefined || (f.segmentSha256 !== undefined && f.tail !== undefined)),
  );
  const count = (n: unknown): boolean => Number.isSafeInteger(n) && (n as number) >= 0;
  const stored = m.stored as Partial<SegmentSummary> | undefined;
  const storedOk =
    stored === undefined ||
    (typeof stored === "object" && stored !== null && count(stored.segments) && count(stored.bytes) && count(stored.checksum));
  return ok && storedOk ? (m as SessionManifest) : undefined;
}

/**
 * Whether `name` can be a driver's logical session file name (`SessionFile.name`): relative,
 * `/`-separated, with no empty, `.` or `..` part, no backslash and no NUL, so it never names a path
 * outside the CLI home.
 */
export function isLogicalName(name: string): boolean {
  return name !== "" && !/[\\\0]/.test(name) && name.split("/").every((part) => part !== "" && part !== "." && part !== "..");
}

/**
 * Whether `id` can be a session's id (`SessionLocation.resumeId`): non-empty, not `.` or `..`, with no
 * `/`, backslash or NUL, so a path built from it stays in the folder it is built in.
 */
export function isSessionId(id: string): boolean {
  return id !== "" && id !== "." && id !== ".." && !/[/\\\0]/.test(id);
}

/**
 * What makes `manifest` unfit to restore session `resumeId` from, whatever the driver: a session id
 * or a file name that could name a path outside the CLI home ({@link isSessionId},
 * {@link isLogicalName}), two files of one name, or a file whose segments are not in the order they
 * were stored (each write appends segments with higher indexes, so a file's indexes only rise).
 * `undefined` when none.
 */
export function manifestFault(manifest: SessionManifest, resumeId: string): string | undefined {
  if (!isSessionId(resumeId)) return `the session id ${JSON.stringify(resumeId)} is not one a CLI names a session by`;
  const names = new Set<string>();
  for (const file of manifest.files) {
    if (!isLogicalName(file.name)) return `the file name ${JSON.stringify(file.name)} is not a session file's`;
    if (names.has(file.name)) return `the file name ${JSON.stringify(file.name)} is there twice`;
    names.add(file.name);
    if (file.segments.some((index, i) => i > 0 && index <= file.segments[i - 1]!))
      return `the segments of ${file.name} (${file.segments.join(", ")}) are not in the order they were stored`;
  }
  return undefined;
}
