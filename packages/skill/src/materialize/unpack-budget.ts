import { posix } from "node:path";
import type { SkillArchiveLimits } from "./archive-limits.js";

/** A limit or path rule broken while unpacking; the `cause` of a `SkillMaterializationError`. */
export class UnpackRefusal extends Error {
  override readonly name = "UnpackRefusal";
}

/**
 * Checks one archive or inline entry path and returns it normalised (`a/b`, no trailing `/`).
 * Refused: empty names, absolute paths (`/x`, `C:x`, `\\x`), backslashes, NUL, and any `..`
 * segment, so nothing can land outside the destination folder.
 *
 * @throws UnpackRefusal naming the entry.
 */
export function checkEntryPath(name: string): string {
  if (name === "" || name.includes("\0")) throw new UnpackRefusal(`entry ${JSON.stringify(name)}: invalid name`);
  if (name.includes("\\")) throw new UnpackRefusal(`entry ${JSON.stringify(name)}: backslash in path`);
  if (name.startsWith("/") || /^[A-Za-z]:/.test(name)) throw new UnpackRefusal(`entry ${JSON.stringify(name)}: absolute path`);
  const segments = name.split("/");
  if (segments.includes("..")) throw new UnpackRefusal(`entry ${JSON.stringify(name)}: path traversal ("..")`);
  const normal = posix.normalize(name).replace(/\/+$/, "");
  if (normal === "" || normal === "." || normal.startsWith("../")) throw new UnpackRefusal(`entry ${JSON.stringify(name)}: invalid path`);
  return normal;
}

/** Counts entries and bytes against {@link SkillArchiveLimits}; each method throws {@link UnpackRefusal} on a breach. */
export class UnpackBudget {
  readonly limits: SkillArchiveLimits;
  #entries = 0;
  #bytes = 0;

  constructor(limits: SkillArchiveLimits) {
    this.limits = limits;
  }

  /** Counts one entry. */
  entry(): void {
    this.#entries += 1;
    if (this.#entries > this.limits.maxEntries) {
      throw new UnpackRefusal(`more than ${this.limits.maxEntries} entries (limit maxEntries)`);
    }
  }

  /** Adds `count` unpacked bytes. */
  bytes(count: number): void {
    this.#bytes += count;
    if (this.#bytes > this.limits.maxTotalBytes) {
      throw new UnpackRefusal(`more than ${this.limits.maxTotalBytes} bytes unpacked (limit maxTotalBytes)`);
    }
  }
}
