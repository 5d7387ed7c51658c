import { createHash } from "node:crypto";

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
}

/** One file of a {@link SessionManifest}. */
export interface SessionManifestFile {
  /** The driver's logical name. */
  readonly name: string;
  /** Uncompressed length in bytes. */
  readonly bytes: number;
  /** sha256 (hex) of the uncompressed content. */
  readonly sha256: string;
  /** Which of the record's segments hold it, in order. */
  readonly segments: readonly number[];
}

/** sha256 (hex) of `content`. */
export function sha256(content: Uint8Array): string {
  return createHash("sha256").update(content).digest("hex");
}

/** The manifest in `value` when it is one this SDK wrote for `format`, else `undefined`. */
export function readManifest(value: unknown, format: string): SessionManifest | undefined {
  if (typeof value !== "object" || value === null) return undefined;
  const m = value as Partial<SessionManifest>;
  if (m.v !== 1 || m.format !== format || m.compression !== "gzip" || !Array.isArray(m.files)) return undefined;
  const ok = m.files.every(
    (f) =>
      typeof f?.name === "string" &&
      Number.isSafeInteger(f.bytes) &&
      typeof f.sha256 === "string" &&
      Array.isArray(f.segments) &&
      f.segments.every((i: unknown) => Number.isSafeInteger(i) && (i as number) >= 0),
  );
  return ok ? (m as SessionManifest) : undefined;
}
