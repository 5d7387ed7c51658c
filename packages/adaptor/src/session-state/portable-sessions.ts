import { promisify } from "node:util";
import { gunzip, gzip } from "node:zlib";
import type { SessionFile, SessionLocation, SessionTransfer } from "@adaptor/driver";
import type { SessionStateStore, SessionStateWrite, StoredSessionState } from "@adaptor/threadstore";
import { ThreadSessionError, type ThreadSessionFailure } from "../errors/thread-session-error.js";
import { grewFrom, readManifest, sha256, tailOf, type SessionManifest, type SessionManifestFile } from "./session-manifest.js";

const compress = promisify(gzip);
const decompress = promisify(gunzip);

/** Default most bytes (compressed) a thread's stored session state may hold: 64 MiB. */
export const DEFAULT_SESSION_STATE_LIMIT_BYTES = 64 * 1024 * 1024;

/** What restoring before a resume found. */
export type RestoreOutcome =
  /**
   * This host's CLI home already held the stored files, possibly followed by entries of turns that
   * were never committed (the drivers resume at the checkpoint and drop those themselves).
   */
  | "local"
  /** The stored files were written into this host's CLI home. */
  | "restored";

/** What the export after a turn gives the commit. */
export type SessionCapture =
  /** The `sessionState` of the commit; `bytes`: what the record's segments hold after it. */
  | { readonly kind: "write"; readonly write: SessionStateWrite; readonly bytes: number }
  /**
   * Nothing to store for this turn: the driver found no files or could not read them
   * (`not_exported`), or they would go over the limit (`too_large`).
   */
  | { readonly kind: "skipped"; readonly reason: "not_exported" | "too_large"; readonly message: string; readonly cause?: unknown }
  /** A stored file is gone, shorter, or no longer begins with the stored bytes: never stored. */
  | { readonly kind: "rewritten"; readonly file: string; readonly message: string };

/**
 * Portable sessions of one thread run: the store's session-state capability and the driver's
 * session transfer together. Before a resume the stored files are restored into this host's CLI home
 * when it lacks them or holds other bytes; after a committed turn the driver's export becomes the
 * `sessionState` of `finalize`.
 *
 * Storage: each file is kept as gzip segments, each with the sha256 of its uncompressed bytes, and
 * the sha256 of the file's last 64 KiB. A file that still holds the stored length and the same last
 * 64 KiB at the same offset has grown: only its new tail is compressed, hashed and appended as one
 * more segment (the CLIs append to their session files, so a turn normally writes only its own
 * lines), and files new since the last turn are added whole. A stored file that is gone, shorter,
 * or differs there was rewritten, and is never stored silently (see {@link SessionCapture}).
 */
export class PortableSessions {
  readonly #store: SessionStateStore;
  readonly #transfer: SessionTransfer;
  readonly #limitBytes: number;
  readonly #key: string;

  constructor(store: SessionStateStore, transfer: SessionTransfer, limitBytes: number, key: string) {
    this.#store = store;
    this.#transfer = transfer;
    this.#limitBytes = limitBytes;
    this.#key = key;
  }

  /** The stored state of record `recordId`, if the store has any. @throws the store's errors. */
  async stored(recordId: string, signal?: AbortSignal): Promise<StoredSessionState | undefined> {
    return this.#store.read(recordId, signal);
  }

  /**
   * Whether this host's CLI home holds the session through the checkpoint `location` names (its
   * `data`); the driver may wait a few seconds for a file that lacks the checkpoint's last entry.
   */
  async holdsCheckpoint(location: SessionLocation, signal?: AbortSignal): Promise<boolean> {
    try {
      return ((await this.#transfer.exportSession(location, signal)) ?? []).length > 0;
    } catch {
      signal?.throwIfAborted();
      return false;
    }
  }

  /**
   * Makes this host's CLI home hold record `recordId`'s stored session files.
   * @throws ThreadSessionError `damaged` (`ErrThreadSessionCorrupt`) when the stored state is not
   * this driver's format or does not decode to what its manifest says; `restore_failed`
   * (`ErrThreadSessionUnavailable`) when the driver cannot write the files, its error as cause.
   */
  async restore(recordId: string, stored: StoredSessionState, location: SessionLocation, signal?: AbortSignal): Promise<RestoreOutcome> {
    const manifest = readManifest(stored.manifest, this.#transfer.format);
    if (!manifest) throw this.#error("damaged", `the stored manifest is not one of this driver's format (${this.#transfer.format})`);
    // As the files are now: no waiting for the checkpoint's last entry, which an older copy lacks.
    const { data: _now, ...asTheyAre } = location;
    let local: readonly SessionFile[] | undefined;
    try {
      local = await this.#transfer.exportSession(asTheyAre, signal);
    } catch {
      signal?.throwIfAborted();
      // Unreadable here: written over below.
    }
    // A local copy that holds the stored bytes and more (a turn that failed here later) is kept: the
    // drivers resume at the checkpoint and drop what follows it, and a CLI may refuse to see its
    // own file shrink under it.
    if (local && local.length === manifest.files.length && manifest.files.every((file) => holds(local, file))) return "local";
    const segments = await this.#store.segments(recordId, signal);
    const files: SessionFile[] = [];
    for (const file of manifest.files) files.push({ name: file.name, content: await this.#decode(file, segments) });
    try {
      await this.#transfer.importSession(location, files, signal);
    } catch (cause) {
      throw this.#error("restore_failed", "the stored session files could not be written into this host's CLI home", cause);
    }
    return "restored";
  }

  /** The content of stored `file`, checked segment by segment. @throws ThreadSessionError `damaged`. */
  async #decode(file: SessionManifestFile, segments: readonly Uint8Array[]): Promise<Buffer> {
    const parts = await Promise.all(
      file.segments.map(async (index, i) => {
        const segment = segments[index];
        if (!segment) throw this.#error("damaged", `stored session file ${file.name} misses segment ${index}`);
        let part: Buffer;
        try {
          part = await decompress(segment);
        } catch (cause) {
          throw this.#error("damaged", `stored session file ${file.name}: segment ${index} is not valid gzip`, cause);
        }
        const expected = file.segmentSha256?.[i];
        if (expected !== undefined && sha256(part) !== expected)
          throw this.#error("damaged", `stored session file ${file.name}: segment ${index} does not match its checksum`);
        return part;
      }),
    );
    const content = Buffer.concat(parts);
    if (content.byteLength !== file.bytes || (file.sha256 !== undefined && sha256(content) !== file.sha256))
      throw this.#error("damaged", `stored session file ${file.name} does not match its checksum`);
    return content;
  }

  /**
   * What to store with the commit of a turn: the driver's export of the session at its new
   * checkpoint, appended to `previous` (the record's stored state) where every stored file only
   * grew. Hashes and compresses only the bytes the turn added (plus one 64 KiB window per file),
   * unless `previous` was written by an earlier version (then once the whole file).
   */
  async capture(previous: StoredSessionState | undefined, location: SessionLocation, signal?: AbortSignal): Promise<SessionCapture> {
    let files: readonly SessionFile[];
    try {
      files = (await this.#transfer.exportSession(location, signal)) ?? [];
    } catch (cause) {
      signal?.throwIfAborted();
      return { kind: "skipped", reason: "not_exported", message: "the session files could not be exported", cause };
    }
    const before = previous && readManifest(previous.manifest, this.#transfer.format);
    // Files the last turn stored and this one removed count as rewritten, not as never written.
    if (files.length === 0 && !before?.files.length)
      return { kind: "skipped", reason: "not_exported", message: `no session files of ${location.resumeId} on this host` };
    for (const old of before?.files ?? []) {
      const now = files.find((file) => file.name === old.name);
      if (!now || !grewFrom(old, now.content)) {
        const what = now ? `is now ${now.content.byteLength} bytes and does not begin with them` : "is gone";
        return { kind: "rewritten", file: old.name, message: `session file ${old.name} held ${old.bytes} bytes when stored and ${what}` };
      }
    }
    // Manifests of an earlier version keep no per-segment hashes: those are replaced once.
    const append = before !== undefined && before.files.every((file) => file.segmentSha256 !== undefined);
    const segments: Uint8Array[] = [];
    let next = append ? previous!.segments : 0;
    const manifestFiles: SessionManifestFile[] = [];
    for (const file of files) {
      const old = append ? before.files.find((f) => f.name === file.name) : undefined;
      const tail = old ? file.content.subarray(old.bytes) : file.content;
      const indexes = [...(old?.segments ?? [])];
      const hashes = [...(old?.segmentSha256 ?? [])];
      if (tail.byteLength > 0 || !old) {
        segments.push(await compress(tail));
        indexes.push(next++);
        hashes.push(sha256(tail));
      }
      manifestFiles.push({
        name: file.name,
        bytes: file.content.byteLength,
        segments: indexes,
        segmentSha256: hashes,
        tail: tailOf(file.content),
      });
    }
    const bytes = (append ? previous!.bytes : 0) + segments.reduce((sum, s) => sum + s.byteLength, 0);
    if (bytes > this.#limitBytes) {
      return {
        kind: "skipped",
        reason: "too_large",
        message: `session state of ${bytes} bytes is over the limit of ${this.#limitBytes}`,
      };
    }
    const manifest: SessionManifest = { v: 1, format: this.#transfer.format, compression: "gzip", files: manifestFiles };
    return { kind: "write", write: { mode: append ? "append" : "replace", segments, manifest, limitBytes: this.#limitBytes }, bytes };
  }

  /** A {@link ThreadSessionError} of this thread. */
  #error(reason: ThreadSessionFailure, message: string, cause?: unknown): ThreadSessionError {
    return new ThreadSessionError({
      key: this.#key,
      reason,
      message: `thread ${this.#key}: session state: ${message}`,
      ...(cause !== undefined ? { cause } : {}),
    });
  }
}

/** Whether `local` holds stored `file` and perhaps more after it. */
function holds(local: readonly SessionFile[], file: SessionManifestFile): boolean {
  const now = local.find((f) => f.name === file.name);
  return now !== undefined && grewFrom(file, now.content);
}
