import { promisify } from "node:util";
import { gunzip, gzip } from "node:zlib";
import { AdaptorError } from "@adaptor/errors";
import type { SessionFile, SessionLocation, SessionTransfer } from "@adaptor/driver";
import type { SessionStateStore, SessionStateWrite, StoredSessionState } from "@adaptor/threadstore";
import { ErrThreadSessionUnavailable } from "../errors/sentinels.js";
import { readManifest, sha256, type SessionManifest, type SessionManifestFile } from "./session-manifest.js";

const compress = promisify(gzip);
const decompress = promisify(gunzip);

/** Default most bytes (compressed) a thread's stored session state may hold: 64 MiB. */
export const DEFAULT_SESSION_STATE_LIMIT_BYTES = 64 * 1024 * 1024;

/** What restoring before a resume found. */
export type RestoreOutcome =
  /** The store holds no session state for the record (written before portable sessions, or by a store without them). */
  | "none"
  /**
   * This host's CLI home already held the stored files, possibly followed by entries of turns that
   * were never committed (the drivers resume at the checkpoint and drop those themselves).
   */
  | "local"
  /** The stored files were written into this host's CLI home. */
  | "restored";

/**
 * Portable sessions of one thread run: the store's session-state capability and the driver's
 * session transfer together. Before a resume the stored files are restored into this host's CLI home
 * when it lacks them or holds other bytes; after a committed turn the driver's export becomes the
 * `sessionState` of `finalize`.
 *
 * Storage: each file is kept as gzip segments. When a file's new content begins with exactly the
 * stored content (same length prefix, same sha256), only the new tail is compressed and appended as
 * one more segment; the CLIs append to their session files, so a turn normally writes only its own
 * lines. Anything else (a new record, a file that was rewritten or shortened) replaces every segment.
 */
export class PortableSessions {
  readonly #store: SessionStateStore;
  readonly #transfer: SessionTransfer;
  readonly #limitBytes: number;

  constructor(store: SessionStateStore, transfer: SessionTransfer, limitBytes: number) {
    this.#store = store;
    this.#transfer = transfer;
    this.#limitBytes = limitBytes;
  }

  /** The stored state of record `recordId` (its manifest, when it is one this driver's format wrote). */
  async stored(recordId: string, signal?: AbortSignal): Promise<StoredSessionState | undefined> {
    return this.#store.read(recordId, signal);
  }

  /**
   * Makes this host's CLI home hold record `recordId`'s stored session files.
   * @throws ErrThreadSessionUnavailable when the stored state is not this driver's format or does
   * not decode to what its manifest says; the driver's import error as cause.
   */
  async restore(recordId: string, stored: StoredSessionState, location: SessionLocation, signal?: AbortSignal): Promise<RestoreOutcome> {
    const manifest = readManifest(stored.manifest, this.#transfer.format);
    if (!manifest) {
      throw unavailable(`the stored session state is not in this driver's format (${this.#transfer.format})`);
    }
    // As the files are now: no waiting for the checkpoint's last entry, which an older copy lacks.
    const { data: _now, ...asTheyAre } = location;
    const local = await this.#transfer.exportSession(asTheyAre, signal);
    // A local copy that holds the stored bytes and more (a turn that failed here later) is kept: the
    // drivers resume at the checkpoint and drop what follows it, and a CLI may refuse to see its
    // own file shrink under it.
    if (local && local.length === manifest.files.length && local.every((file) => grewFrom(manifest, file))) return "local";
    const segments = await this.#store.segments(recordId, signal);
    const files: SessionFile[] = [];
    for (const file of manifest.files) {
      const parts = await Promise.all(
        file.segments.map(async (index) => {
          const segment = segments[index];
          if (!segment) throw unavailable(`stored session file ${file.name} misses segment ${index}`);
          try {
            return await decompress(segment);
          } catch (cause) {
            throw unavailable(`stored session file ${file.name}: segment ${index} is not valid gzip`, cause);
          }
        }),
      );
      const content = Buffer.concat(parts);
      if (content.byteLength !== file.bytes || sha256(content) !== file.sha256)
        throw unavailable(`stored session file ${file.name} does not match its checksum`);
      files.push({ name: file.name, content });
    }
    try {
      await this.#transfer.importSession(location, files, signal);
    } catch (cause) {
      throw unavailable("the stored session files could not be written into this host's CLI home", cause);
    }
    return "restored";
  }

  /**
   * The `sessionState` of the commit of a turn: the driver's export of the session at its new
   * checkpoint, appended to `previous` (the record's stored state) where every file only grew.
   * @throws ErrThreadSessionUnavailable when this host holds no session files for the checkpoint;
   * the driver's export error as cause.
   */
  async capture(previous: StoredSessionState | undefined, location: SessionLocation, signal?: AbortSignal): Promise<SessionStateWrite> {
    let files: readonly SessionFile[] | undefined;
    try {
      files = await this.#transfer.exportSession(location, signal);
    } catch (cause) {
      throw unavailable("the session files could not be exported", cause);
    }
    if (!files || files.length === 0) throw unavailable(`no session files of ${location.resumeId} on this host`);
    const before = previous && readManifest(previous.manifest, this.#transfer.format);
    const grows = before !== undefined && files.length === before.files.length && files.every((file) => grewFrom(before, file));
    const segments: Uint8Array[] = [];
    let next = grows ? previous!.segments : 0;
    const manifestFiles: SessionManifestFile[] = [];
    for (const file of files) {
      const old = grows ? before.files.find((f) => f.name === file.name) : undefined;
      const tail = old ? file.content.subarray(old.bytes) : file.content;
      const indexes = [...(old?.segments ?? [])];
      if (tail.byteLength > 0 || !old) {
        segments.push(await compress(tail));
        indexes.push(next++);
      }
      manifestFiles.push({ name: file.name, bytes: file.content.byteLength, sha256: sha256(file.content), segments: indexes });
    }
    const manifest: SessionManifest = { v: 1, format: this.#transfer.format, compression: "gzip", files: manifestFiles };
    return { mode: grows ? "append" : "replace", segments, manifest, limitBytes: this.#limitBytes };
  }
}

function unavailable(message: string, cause?: unknown): AdaptorError {
  return new AdaptorError(`session state: ${message}`, {
    sentinel: ErrThreadSessionUnavailable,
    ...(cause !== undefined ? { cause } : {}),
  });
}

function grewFrom(manifest: SessionManifest, file: SessionFile): boolean {
  const old = manifest.files.find((f) => f.name === file.name);
  return old !== undefined && file.content.byteLength >= old.bytes && sha256(file.content.subarray(0, old.bytes)) === old.sha256;
}
